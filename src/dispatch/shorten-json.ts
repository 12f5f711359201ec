import type { JsonValue } from './serialize.js';

/**
 * A shorter copy of a JSON value with the same shape: every array keeps its first items and every
 * string longer than 32 characters its first characters, `fraction` (between 0 and 1) of each (a string
 * keeps at least 32); objects keep all their keys and scalars are kept as they are. Unlike cutting the JSON text, the copy is still a value of the same
 * kind, so a result cut for length can still match its output schema (lists without a `minItems`,
 * strings without a `minLength` or `pattern`). A surrogate pair is never split.
 *
 * @example
 * shortenJson({ files: ['a', 'b', 'c', 'd'], total: 4 }, 0.5); // { files: ['a', 'b'], total: 4 }
 */
export function shortenJson(value: JsonValue, fraction: number): JsonValue {
  if (typeof value === 'string') return shortenString(value, fraction);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const kept = Math.floor(value.length * fraction);
    const copy = new Array<JsonValue>(kept);
    for (let index = 0; index < kept; index++) copy[index] = shortenJson(value[index]!, fraction);
    return copy;
  }
  const copy: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(value)) {
    // Keys come from a JSON-safe value, but `__proto__` must still stay a plain key.
    Object.defineProperty(copy, key, {
      value: shortenJson(value[key]!, fraction),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/** Strings this short are kept whole: names, ids and units say more than they cost. */
const SHORT_STRING = 32;

function shortenString(text: string, fraction: number): string {
  if (text.length <= SHORT_STRING) return text;
  const kept = text.slice(0, Math.max(SHORT_STRING, Math.floor(text.length * fraction)));
  return /[\uD800-\uDBFF]$/.test(kept) ? kept.slice(0, -1) : kept;
}
