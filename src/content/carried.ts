import type { ContentBlock } from './blocks.js';

/**
 * A `CallToolResult` as MCP sends it: the blocks, and `structuredContent`, `isError` and `_meta` when
 * there are any. An upstream server's result keeps whatever else it held.
 */
export interface ContentResult {
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
  readonly _meta?: { readonly [key: string]: unknown };
}

/** What a tool's value carries besides the value the envelope shows. */
export interface Carried {
  /** What the envelope's `result` is (and so what `registry.call` and the provider adapters read). */
  readonly value: unknown;
  /** The result the MCP face sends in place of the envelope's text. */
  readonly result: ContentResult;
  /** What a return schema checks: the structured value, when there is one. */
  readonly checked: unknown;
  /** True when the value is the blocks' JSON form (a `toolResult`), which the limits cut as well. */
  readonly blocks: boolean;
}

// Module-private keys: a tool cannot forge them, and neither JSON nor a spread copies them.
const CARRIED = Symbol('toolpact.carried');
const SENT = Symbol('toolpact.sent');

/**
 * A tool's answer that shows `value` in its envelope and sends `result` as it is through MCP (an
 * imported tool's upstream result). Its JSON form is `value`, for whatever reads it outside the call
 * path.
 */
export function carryContent(value: unknown, result: ContentResult): object {
  const carrier = { toJSON: () => value };
  Object.defineProperty(carrier, CARRIED, { value: { value, result, checked: value, blocks: false } });
  return Object.freeze(carrier);
}

/** Marks `target` (a tool result's own object) as carrying `carried`. */
export function markCarried<T extends object>(target: T, carried: Carried): T {
  Object.defineProperty(target, CARRIED, { value: carried });
  return target;
}

/** What a tool's returned value or thrown error carries, if anything. */
export function carriedBy(value: unknown): Carried | undefined {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
  return Object.hasOwn(value, CARRIED) ? (value as { [CARRIED]: Carried })[CARRIED] : undefined;
}

/** `error` (an upstream's `isError` result, thrown) carrying that result, to send as it is. */
export function carryOnError<E extends object>(error: E, result: ContentResult): E {
  return markCarried(error, { value: undefined, result, checked: undefined, blocks: false });
}

/**
 * Puts `result` on an envelope, where only {@link sentContentOf} finds it: never enumerable, so
 * JSON, a spread, a structured clone, observers and the audit never see it.
 */
export function attachSentContent(envelope: object, result: ContentResult): void {
  Object.defineProperty(envelope, SENT, { value: result });
}

/**
 * The result the MCP face sends for this envelope in place of its text, if the call carried one.
 *
 * @example
 * const raw = sentContentOf(await registry.call('screenshot', {}));
 */
export function sentContentOf(envelope: object): ContentResult | undefined {
  return Object.hasOwn(envelope, SENT) ? (envelope as { [SENT]: ContentResult })[SENT] : undefined;
}
