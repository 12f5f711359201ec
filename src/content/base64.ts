const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The base64 text of `data`: bytes are encoded, a string must already be base64 (standard alphabet,
 * padded). Throws a `TypeError` naming `what` for anything else.
 */
export function base64Of(data: Uint8Array | string, what: string): string {
  if (data instanceof Uint8Array)
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
  if (typeof data === 'string' && data.length % 4 === 0 && BASE64.test(data)) return data;
  const received =
    typeof data === 'string'
      ? `a string of ${data.length} characters that is not padded base64`
      : typeof data;
  throw new TypeError(
    `${what} takes a Uint8Array or a base64 string (A–Z, a–z, 0–9, +, /, padded with =), received ${received}. Pass the bytes, or encode them with Buffer.from(bytes).toString('base64').`,
  );
}

/**
 * How many bytes base64 `data` decodes to, read from its length (the text is not decoded). Text that
 * is not base64 counts as its length, so a hostile block can never look smaller than it is.
 *
 * @example
 * decodedBytes('aGVsbG8='); // 5
 */
export function decodedBytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(Math.floor((data.length * 3) / 4) - padding, 0);
}
