import type { JsonSchema } from '../../../src/index.js';

type Node = { [key: string]: unknown };
const isNode = (value: unknown): value is Node =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * What a model constrained by an OpenAI strict schema sends for `value`: every property the strict
 * schema lists, with `null` where the caller left an optional one out. Walks the strict schema itself
 * (following `$ref`s and picking the union branch that fits), so it knows nothing of the adapter.
 */
export function encodeForStrict(value: unknown, strictSchema: JsonSchema): unknown {
  return encode(value, strictSchema, strictSchema, 0);
}

function resolve(schema: unknown, root: JsonSchema): unknown {
  let current = schema;
  for (let hops = 0; hops < 16 && isNode(current) && typeof current.$ref === 'string'; hops++) {
    const pointer = current.$ref.slice(1);
    let target: unknown = root;
    for (const part of pointer.split('/').slice(1))
      target = isNode(target) ? target[decodeURIComponent(part)] : undefined;
    current = target;
  }
  return current;
}

function fits(value: unknown, schema: Node): boolean {
  const types =
    typeof schema.type === 'string'
      ? [schema.type]
      : Array.isArray(schema.type)
        ? (schema.type as string[])
        : [];
  if (types.length === 0) return true;
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return types.some(
    (type) => type === actual || ((type === 'integer' || type === 'number') && actual === 'number'),
  );
}

function encode(value: unknown, schema: unknown, root: JsonSchema, depth: number): unknown {
  const node = resolve(schema, root);
  if (depth > 64 || !isNode(node)) return value;
  if (Array.isArray(node.anyOf)) {
    const branch = node.anyOf.find((candidate) => {
      const resolved = resolve(candidate, root);
      if (!isNode(resolved) || !fits(value, resolved)) return false;
      if (!isNode(value) || !isNode(resolved.properties)) return true;
      const properties = resolved.properties;
      return Object.keys(value).every((key) => Object.hasOwn(properties, key));
    });
    return branch === undefined ? value : encode(value, branch, root, depth + 1);
  }
  if (Array.isArray(value)) return value.map((item) => encode(item, node.items, root, depth + 1));
  if (isNode(value) && isNode(node.properties)) {
    const out: Node = {};
    for (const [key, child] of Object.entries(node.properties)) {
      out[key] = Object.hasOwn(value, key) ? encode(value[key], child, root, depth + 1) : null;
    }
    for (const [key, item] of Object.entries(value)) if (!Object.hasOwn(out, key)) out[key] = item;
    return out;
  }
  return value;
}
