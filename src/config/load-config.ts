import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { importTypeScript } from './import-typescript.js';

/** The file names searched, in this order, in the directory given. */
export const CONFIG_FILES: readonly string[] = Object.freeze([
  'toolpact.config.ts',
  'toolpact.config.mts',
  'toolpact.config.js',
  'toolpact.config.mjs',
  'toolpact.config.json',
]);

/** A loaded configuration: the raw object, and where it came from (for messages). */
export interface LoadedConfig {
  /** The configuration object; each feature validates its own section (`lint`, `policy`, …). */
  readonly config: { readonly [section: string]: unknown };
  /** The file it came from, or `package.json#toolpact`; undefined when there is none. */
  readonly source: string | undefined;
}

/** Thrown when a configuration file exists but cannot be read; the message names the file. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Finds and loads toolpact's configuration in `directory`: the first of `toolpact.config.{ts,mts,js,mjs,json}`,
 * else the `toolpact` key of `package.json`, else an empty configuration. A module's default export is the
 * configuration. Sections are not validated here.
 *
 * @example
 * const { config, source } = await loadConfig(process.cwd());
 * const lintOptions = config.lint;
 */
export async function loadConfig(directory: string): Promise<LoadedConfig> {
  for (const name of CONFIG_FILES) {
    const file = join(directory, name);
    if (!existsSync(file)) continue;
    return { config: await readConfigFile(file, name), source: name };
  }
  const packageFile = join(directory, 'package.json');
  if (existsSync(packageFile)) {
    const manifest = parseJson(readFileSync(packageFile, 'utf8'), 'package.json');
    const section = (manifest as { toolpact?: unknown }).toolpact;
    if (section !== undefined) {
      return { config: asObject(section, 'package.json#toolpact'), source: 'package.json#toolpact' };
    }
  }
  return { config: {}, source: undefined };
}

async function readConfigFile(file: string, name: string): Promise<LoadedConfig['config']> {
  if (name.endsWith('.json')) return asObject(parseJson(readFileSync(file, 'utf8'), name), name);
  let exports: { default?: unknown };
  try {
    if (name.endsWith('.ts') || name.endsWith('.mts')) {
      exports = (await importTypeScript(file)) as { default?: unknown };
    } else {
      exports = (await import(pathToFileURL(file).href)) as { default?: unknown };
    }
  } catch (error) {
    throw new ConfigError(`Cannot load ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return asObject(unwrapCommonJs(exports.default), `${name} (its default export)`);
}

/**
 * A TypeScript config outside an ESM package is loaded as CommonJS, and its default export then arrives
 * nested one level down (`{ default: { lint, policy } }`); unwrap that one level.
 */
function unwrapCommonJs(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const inner = (value as { default?: unknown }).default;
  const onlyDefault = keys.every((key) => key === 'default' || key === '__esModule');
  return onlyDefault && inner !== null && typeof inner === 'object' ? inner : value;
}

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `${name} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function asObject(value: unknown, where: string): LoadedConfig['config'] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const received = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    throw new ConfigError(`${where} must be an object such as { "lint": { ... } }, received ${received}.`);
  }
  return value as LoadedConfig['config'];
}
