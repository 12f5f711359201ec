import type { JsonValue } from '../contract/validation.js';

export type { JsonValue } from '../contract/validation.js';

/** Thrown by {@link toJsonValue} when a value refers to itself. */
export class CircularResultError extends Error {
  override readonly name = 'CircularResultError';
  constructor(readonly path: string) {
    super(`the result refers to itself at ${path}`);
  }
}

/**
 * Converts what a tool returned into plain JSON data, so the envelope can always be written:
 * `bigint` → decimal string, `Date` → ISO string (an invalid date → null), `Map` → object (or
 * `[key, value]` pairs when a key is not a string), `Set` → array, typed arrays → number arrays,
 * `ArrayBuffer` → number array, `Error` → `{ name, message }`, `undefined`/functions/symbols →
 * omitted (null inside arrays), non-finite numbers → null, `toJSON()` honoured.
 * A cycle throws {@link CircularResultError}; a shared, non-cyclic reference is fine.
 */
export function toJsonValue(value: unknown): JsonValue {
  if (isPlainJson(value, 0)) return value as JsonValue;
  return convertSlowly(value);
}

// Deeper than this, the fast check gives up and the careful path (which finds cycles) decides.
const FAST_DEPTH = 200;

/**
 * True when JSON.stringify would write `value` exactly as it is: only strings, finite numbers,
 * booleans, null, arrays and plain objects, with no undefined, no toJSON and no cycle. Most tool results
 * are like this, and then no copy is made.
 */
function isPlainJson(value: unknown, depth: number): boolean {
  return typeof value === 'object' ? isPlainContainer(value, depth) : isPlainScalar(value);
}

function isPlainScalar(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'boolean' || Number.isFinite(value);
}

// Scalars are checked in the loops rather than by a call each: results are mostly scalars.
function isPlainContainer(value: object | null, depth: number): boolean {
  if (value === null) return true;
  if (depth > FAST_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (typeof item === 'object' ? !isPlainContainer(item, depth + 1) : !isPlainScalar(item)) return false;
    }
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const key in value) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (typeof item === 'object' ? !isPlainContainer(item, depth + 1) : !isPlainScalar(item)) return false;
  }
  return true;
}

function convertSlowly(value: unknown): JsonValue {
  const stack = new Set<object>();
  const path: string[] = ['$'];

  const convert = (node: unknown): JsonValue | undefined => {
    switch (typeof node) {
      case 'string':
      case 'boolean':
        return node;
      case 'number':
        return Number.isFinite(node) ? node : null;
      case 'bigint':
        return node.toString();
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
    }
    if (node === null) return null;
    const object = node as object;
    if (stack.has(object)) throw new CircularResultError(path.join(''));
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? null : object.toISOString();
    stack.add(object);
    try {
      return convertObject(object);
    } finally {
      stack.delete(object);
    }
  };

  const convertObject = (object: object): JsonValue | undefined => {
    if (typeof (object as { toJSON?: unknown }).toJSON === 'function') {
      const replaced = (object as { toJSON: () => unknown }).toJSON();
      if (replaced !== object) return convert(replaced);
    }
    if (ArrayBuffer.isView(object)) {
      if (object instanceof DataView)
        return Array.from(new Uint8Array(object.buffer, object.byteOffset, object.byteLength));
      return Array.from(object as unknown as ArrayLike<number | bigint>, (item) =>
        typeof item === 'bigint' ? item.toString() : item,
      );
    }
    if (object instanceof ArrayBuffer) return Array.from(new Uint8Array(object));
    if (Array.isArray(object) || object instanceof Set) {
      const items = Array.isArray(object) ? object : [...object];
      return items.map((item, index) => {
        path.push(`[${index}]`);
        const converted = convert(item);
        path.pop();
        return converted === undefined ? null : converted;
      });
    }
    if (object instanceof Map) {
      const entries = [...object.entries()];
      if (entries.every(([key]) => typeof key === 'string')) {
        return convertEntries(entries as [string, unknown][]);
      }
      return entries.map(([key, item], index) => {
        path.push(`[${index}]`);
        const pair = [convert(key) ?? null, convert(item) ?? null];
        path.pop();
        return pair;
      });
    }
    if (object instanceof Error) {
      return { name: object.name, message: object.message };
    }
    return convertEntries(Object.entries(object));
  };

  const convertEntries = (entries: [string, unknown][]): JsonValue => {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of entries) {
      path.push(/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);
      const converted = convert(item);
      path.pop();
      if (converted !== undefined) {
        Object.defineProperty(out, key, {
          value: converted,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return out;
  };

  const result = convert(value);
  return result === undefined ? null : result;
}
