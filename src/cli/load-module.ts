import { existsSync, statSync } from 'node:fs';
import { extname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { importTypeScript } from '../config/import-typescript.js';
import { type AnyTool, isTool } from '../contract/tool.js';
import { isPrompt, type Prompt } from '../define/define-prompt.js';
import { isResource, type Resource } from '../define/define-resource.js';
import { Registry } from '../registry/registry.js';
import { InputError } from './io.js';

const EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']);

/**
 * Loads a module of tools and returns them as a registry. Tools are taken, in this order, from: a
 * default export (a `Registry` or an array of tools), an export named `registry` or `tools`, otherwise
 * every named export that is a tool. Unless the module exports a `Registry` (which holds its own),
 * its resources and prompts are added too: the arrays exported as `resources` and `prompts`, and every
 * named export made by `defineResource` or `definePrompt`. TypeScript files load as ES modules through
 * toolpact's own loader (`importTypeScript`).
 */
export async function loadRegistry(modulePath: string, cwd: string): Promise<Registry> {
  const absolute = isAbsolute(modulePath) ? modulePath : resolve(cwd, modulePath);
  if (!existsSync(absolute) || !statSync(absolute).isFile()) {
    throw new InputError(
      `Cannot find the module "${modulePath}". Give the path of a .ts or .js file that exports tools.`,
    );
  }
  const extension = extname(absolute);
  if (!EXTENSIONS.has(extension)) {
    throw new InputError(
      `"${modulePath}" is a ${extension || 'extensionless'} file; give a .ts, .mts, .js or .mjs module.`,
    );
  }
  let exports: Record<string, unknown>;
  try {
    if (extension === '.ts' || extension === '.mts' || extension === '.cts') {
      exports = await importTypeScript(absolute);
    } else {
      exports = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
    }
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new InputError(`Cannot load "${modulePath}": ${reason}`);
  }
  return registryFromExports(unwrapCommonJs(exports), modulePath);
}

/**
 * A TypeScript file outside an ESM package is loaded as CommonJS, and its namespace's `default` is
 * then the whole `module.exports` object (with the real default export inside). Unwrap that.
 */
function unwrapCommonJs(exports: Record<string, unknown>): Record<string, unknown> {
  const inner = exports.default;
  if (
    inner === null ||
    typeof inner !== 'object' ||
    Array.isArray(inner) ||
    isRegistryLike(inner) ||
    isTool(inner)
  ) {
    return exports;
  }
  const names = Object.keys(exports).filter((key) => key !== 'default');
  const mirrors = names.every((key) => Object.hasOwn(inner, key));
  return mirrors && (Object.hasOwn(inner, 'default') || names.length > 0)
    ? (inner as Record<string, unknown>)
    : exports;
}

/** Picks the tools out of a module's exports (see {@link loadRegistry} for the order). */
export function registryFromExports(exports: Record<string, unknown>, label: string): Registry {
  const candidates: [string, unknown][] = [
    ['default export', exports.default],
    ['export "registry"', exports.registry],
    ['export "tools"', exports.tools],
  ];
  for (const [where, value] of candidates) {
    if (value === undefined) continue;
    if (value instanceof Registry) return value;
    if (Array.isArray(value)) {
      const bad = value.findIndex((item) => !isTool(item));
      if (bad >= 0)
        throw new InputError(`In "${label}", the ${where} is an array whose item ${bad} is not a tool.`);
      return withOfferings(new Registry().register(...(value as AnyTool[])), exports, label);
    }
    if (isRegistryLike(value)) return value as Registry;
    if (where !== 'default export') {
      throw new InputError(`In "${label}", the ${where} is neither a Registry nor an array of tools.`);
    }
  }
  const tools = namedExports(exports)
    .filter(([, value]) => isTool(value))
    .map(([, value]) => value as AnyTool);
  const registry = withOfferings(new Registry().register(...tools), exports, label);
  if (tools.length === 0 && registry.resources().length === 0 && registry.prompts().length === 0) {
    throw new InputError(
      `"${label}" exports no tools. Export a Registry or an array of tools as default, or export tools made with defineTool() (and resources and prompts made with defineResource() and definePrompt()).`,
    );
  }
  return registry;
}

/** Adds the resources and prompts a module exports (see {@link loadRegistry}). */
function withOfferings(registry: Registry, exports: Record<string, unknown>, label: string): Registry {
  const resources = offered(exports, 'resources', isResource, label) as Resource[];
  const prompts = offered(exports, 'prompts', isPrompt, label) as Prompt[];
  return registry.registerResource(resources).registerPrompt(prompts);
}

/** The array exported under `key` and every named export `is` accepts, each once. */
function offered(
  exports: Record<string, unknown>,
  key: 'resources' | 'prompts',
  is: (value: unknown) => boolean,
  label: string,
): unknown[] {
  const listed = exports[key];
  if (listed !== undefined && (!Array.isArray(listed) || !listed.every(is))) {
    const made = key === 'resources' ? 'defineResource()' : 'definePrompt()';
    throw new InputError(`In "${label}", the export "${key}" is not an array of ${key} made with ${made}.`);
  }
  const named = namedExports(exports)
    .filter(([, value]) => is(value))
    .map(([, value]) => value);
  return [...new Set([...((listed as unknown[] | undefined) ?? []), ...named])];
}

/**
 * The named exports in the order of their names, as an ES module's namespace lists them, whatever
 * produced the object (a loader that keeps declaration order gives the same registry).
 */
function namedExports(exports: Record<string, unknown>): [string, unknown][] {
  return Object.entries(exports)
    .filter(([name]) => name !== 'default')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

// A Registry from another copy of toolpact (e.g. the user's own node_modules) still works.
function isRegistryLike(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as Registry).dispatch === 'function' &&
    typeof (value as Registry).schemas === 'function' &&
    typeof (value as Registry).list === 'function'
  );
}
