import { typoOf } from '../../util/closest.js';

/** Why a gateway configuration was refused. */
export type GatewayConfigErrorCode =
  | 'unreadable_file'
  | 'invalid_json'
  | 'invalid_config'
  | 'unset_variable'
  | 'unsupported_input'
  | 'exposed_file';

/**
 * A gateway configuration that cannot be used: a missing file, JSON that does not parse, a key the host's
 * dialect or toolpact's section does not know, a wrong type, an unset variable. The message names the file,
 * the JSON path, what was received and what is allowed; it is meant for the person running the CLI.
 *
 * @example
 * try {
 *   readGatewayConfig('mcp.json');
 * } catch (error) {
 *   if (error instanceof GatewayConfigError) console.error(error.code, error.path, error.line); // invalid_json undefined 3
 * }
 */
export class GatewayConfigError extends Error {
  override readonly name = 'GatewayConfigError';
  readonly code: GatewayConfigErrorCode;
  /** The configuration file, as it was given. */
  readonly file: string;
  /** The JSON path of the value at fault, e.g. `$.mcpServers.github.args[2]`. */
  readonly path: string | undefined;
  /** 1-based line of a JSON syntax error. */
  readonly line: number | undefined;
  /** 1-based column of a JSON syntax error. */
  readonly column: number | undefined;

  constructor(
    code: GatewayConfigErrorCode,
    message: string,
    details: { file: string; path?: string; line?: number; column?: number; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.file = details.file;
    this.path = details.path;
    this.line = details.line;
    this.column = details.column;
  }
}

/** What every check needs to word an error: the file as given. */
export interface ErrorScope {
  readonly file: string;
}

/** Throws an `invalid_config` error whose message starts with the file and the JSON path. */
export function invalid(scope: ErrorScope, path: string, message: string): never {
  throw new GatewayConfigError('invalid_config', `${scope.file}: ${path} ${message}`, {
    file: scope.file,
    path,
  });
}

/** `$.a.b` for plain keys, `$.a["odd key"]` for the rest. */
export function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Refuses any key of `value` outside `allowed`, naming the closest allowed key when one is near.
 * `what` completes "… has an unknown key "x". <what> has: a, b, c."
 */
export function checkKeys(
  scope: ErrorScope,
  path: string,
  value: Record<string, unknown>,
  allowed: readonly string[],
  what: string,
): void {
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue;
    invalid(
      scope,
      path,
      `has an unknown key "${key}".${didYouMean(key, allowed)} ${what} has: ${allowed.join(', ')}.`,
    );
  }
}

/** ` Did you mean "command"?` when `key` looks like a typo of an allowed key; empty otherwise. */
export function didYouMean(key: string, allowed: readonly string[]): string {
  const near = typoOf(key, allowed);
  return near === undefined ? '' : ` Did you mean "${near}"?`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A short account of a received value for messages: `"npx"`, `an array`, `number 3`. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
