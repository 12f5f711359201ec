import { createHash, createHmac } from 'node:crypto';

/**
 * A stable digest of a JSON-like value: SHA-256 of its canonical JSON (object keys sorted), as
 * `sha256:<hex>`, or HMAC-SHA-256 with `key` (`hmac-sha256:<hex>`) so that short secrets cannot be
 * recovered from the log by guessing. Equal arguments give equal digests, whatever the key order.
 *
 * @example
 * digestOf({ b: 1, a: 2 }) === digestOf({ a: 2, b: 1 }); // true
 */
export function digestOf(value: unknown, key?: string | Uint8Array): string {
  const text = canonicalJson(value);
  if (key === undefined) return `sha256:${createHash('sha256').update(text).digest('hex')}`;
  return `hmac-sha256:${createHmac('sha256', key).update(text).digest('hex')}`;
}

/**
 * JSON with object keys sorted at every level; `undefined` and functions are left out, as JSON does.
 *
 * @example
 * canonicalJson({ b: 1, a: [true] }); // '{"a":[true],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  const seen = new Set<object>();
  const walk = (item: unknown): string => {
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') return 'null';
    if (typeof item === 'bigint') return JSON.stringify(item.toString());
    if (item === null || typeof item !== 'object') return JSON.stringify(item) ?? 'null';
    if (seen.has(item)) return '"[circular]"';
    seen.add(item);
    let text: string;
    if (Array.isArray(item)) text = `[${item.map(walk).join(',')}]`;
    else {
      const keys = Object.keys(item)
        .filter((key) => {
          const entry = (item as Record<string, unknown>)[key];
          return entry !== undefined && typeof entry !== 'function';
        })
        .sort();
      text = `{${keys.map((key) => `${JSON.stringify(key)}:${walk((item as Record<string, unknown>)[key])}`).join(',')}}`;
    }
    seen.delete(item);
    return text;
  };
  return walk(value);
}
