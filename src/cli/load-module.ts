import { existsSync, statSync } from 'node:fs';
import { extname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AnyTool, isTool } from '../contract/tool.js';
import { Registry } from '../registry/registry.js';
import { InputError } from './io.js';

const EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']);

/**
 * Loads a module of tools and returns them as a registry. Tools are taken, in this order, from: a
 * default export (a `Registry` or an array of tools), an export named `registry` or `tools`, otherwise
 * every named export that is a tool. TypeScript files are loaded with tsx.
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
      const { tsImport } = await import('tsx/esm/api');
      exports = (await tsImport(pathToFileURL(absolute).href, import.meta.url)) as Record<string, unknown>;
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
      return new Registry().register(...(value as AnyTool[]));
    }
    if (isRegistryLike(value)) return value as Registry;
    if (where !== 'default export') {
      throw new InputError(`In "${label}", the ${where} is neither a Registry nor an array of tools.`);
    }
  }
  const tools = Object.entries(exports)
    .filter(([key, value]) => key !== 'default' && isTool(value))
    .map(([, value]) => value as AnyTool);
  if (tools.length === 0) {
    throw new InputError(
      `"${label}" exports no tools. Export a Registry or an array of tools as default, or export tools made with defineTool().`,
    );
  }
  return new Registry().register(...tools);
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
