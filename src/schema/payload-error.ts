/**
 * A provider response that does not have the shape its provider documents (a programmer's mistake:
 * the wrong object was passed, or a proxy mangled it). Thrown by the `read…` helpers; a model's own
 * mistakes inside a well-formed call (bad JSON, an unknown tool) come back as envelopes instead.
 *
 * @example
 * try { readOpenAIToolCalls(response) } catch (error) {
 *   if (error instanceof ProviderPayloadError) console.error(error.path, error.message);
 * }
 */
export class ProviderPayloadError extends Error {
  override readonly name = 'ProviderPayloadError';
  constructor(
    /** Where in the payload, as a JSON path: `$.choices[0].message.tool_calls[1].id`. */
    readonly path: string,
    /** What was expected there. */
    readonly expected: string,
    /** What was there instead, described (never the raw value, which may be large). */
    readonly received: string,
  ) {
    super(`${path}: expected ${expected}, received ${received}.`);
  }
}

/** A short description of a payload value, for {@link ProviderPayloadError}. */
export function describePayload(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'string')
    return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'object')
    return `an object with keys ${Object.keys(value).slice(0, 6).join(', ') || '(none)'}`;
  return `${typeof value} ${String(value)}`;
}

/** The value at `key` when `value` is an object that has it as an own property. */
export function own(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** `value` as an array, or a {@link ProviderPayloadError}. */
export function expectArray(value: unknown, path: string, expected: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new ProviderPayloadError(path, expected, describePayload(value));
  return value;
}

/** `value` as a non-empty string, or a {@link ProviderPayloadError}. */
export function expectString(value: unknown, path: string, expected: string): string {
  if (typeof value !== 'string' || value === '')
    throw new ProviderPayloadError(path, expected, describePayload(value));
  return value;
}
