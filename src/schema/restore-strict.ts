import type { JsonSchema } from '../contract/index.js';
import { isRecord, resolveLocalRef, type SchemaObject, typesOf } from './schema-node.js';

/**
 * The way back from OpenAI strict mode: strict mode makes every optional property required and
 * nullable, so a model that means "absent" sends `null`. Before the arguments are validated against the
 * original contract, each such `null` is removed: the property is absent again, and the contract's
 * validator applies its `default` as for any call that leaves it out. A `null` the contract itself
 * accepts is kept. Returns a new value; the input is not changed.
 *
 * @example
 * restoreStrictArguments({ path: 'a.md', start_line: null }, readFile.contract.parameters);
 * // { path: 'a.md' }
 */
export function restoreStrictArguments<T>(value: T, parameters: JsonSchema): T {
  return restore(value, parameters, parameters, 0) as T;
}

function restore(value: unknown, schema: unknown, root: JsonSchema, depth: number): unknown {
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  const resolved = resolve(schema, root);
  if (!isRecord(resolved)) return value;
  let out: unknown = value;
  if (Array.isArray(value)) {
    const prefix = Array.isArray(resolved.prefixItems) ? resolved.prefixItems : [];
    out = value.map((item, index) =>
      restore(item, index < prefix.length ? prefix[index] : resolved.items, root, depth + 1),
    );
  } else if (isRecord(value)) {
    const properties = isRecord(resolved.properties) ? resolved.properties : undefined;
    if (properties) {
      const required = new Set(Array.isArray(resolved.required) ? resolved.required : []);
      const copy: SchemaObject = {};
      for (const [key, item] of Object.entries(value)) {
        const child = Object.hasOwn(properties, key) ? properties[key] : undefined;
        // Removed, not replaced by the default: the contract's validator applies its own defaults, and a
        // default that does not match the schema (the JSON Schema Test Suite has such) must not be forced in.
        if (item === null && child !== undefined && !required.has(key) && !acceptsNull(child, root, 0))
          continue;
        setOwn(copy, key, child === undefined ? item : restore(item, child, root, depth + 1));
      }
      out = copy;
    }
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = resolved[keyword];
    if (!Array.isArray(branches)) continue;
    const branch = pickBranch(out, branches, root);
    if (branch !== undefined) out = restore(out, branch, root, depth + 1);
  }
  if (Array.isArray(resolved.allOf)) {
    for (const part of resolved.allOf) out = restore(out, part, root, depth + 1);
  }
  return out;
}

// A "__proto__" key must stay a plain own property, never reach the prototype.
function setOwn(target: SchemaObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function resolve(schema: unknown, root: JsonSchema): unknown {
  let current = schema;
  for (let hops = 0; hops < 32 && isRecord(current) && typeof current.$ref === 'string'; hops++) {
    const { $ref, ...siblings } = current;
    const target = resolveLocalRef(root, $ref);
    current = Object.keys(siblings).length > 0 && isRecord(target) ? { ...target, ...siblings } : target;
  }
  return current;
}

/** Whether the contract accepts `null` here (then a `null` from the model means null, not "absent"). */
export function acceptsNull(schema: unknown, root: JsonSchema, depth: number): boolean {
  if (depth > 32) return false;
  const resolved = resolve(schema, root);
  if (resolved === true) return true;
  if (!isRecord(resolved)) return false;
  if (Object.hasOwn(resolved, 'const')) return resolved.const === null;
  if (Array.isArray(resolved.enum) && !resolved.enum.includes(null)) return false;
  const types = typesOf(resolved);
  if (types.length > 0 && !types.includes('null')) return false;
  if (Array.isArray(resolved.anyOf) && !resolved.anyOf.some((branch) => acceptsNull(branch, root, depth + 1)))
    return false;
  if (Array.isArray(resolved.oneOf) && !resolved.oneOf.some((branch) => acceptsNull(branch, root, depth + 1)))
    return false;
  if (
    Array.isArray(resolved.allOf) &&
    !resolved.allOf.every((branch) => acceptsNull(branch, root, depth + 1))
  )
    return false;
  if (resolved.not !== undefined && acceptsNull(resolved.not, root, depth + 1)) return false;
  return true;
}

/**
 * The branch of a union the model's value was written for: strict mode sends every property of a closed
 * object, so an object value belongs to the branch whose properties are exactly its keys and whose
 * `const`/`enum` properties it matches; other values go by their JSON type.
 */
function pickBranch(value: unknown, branches: readonly unknown[], root: JsonSchema): unknown {
  let fallback: unknown;
  for (const branch of branches) {
    const resolved = resolve(branch, root);
    if (!isRecord(resolved) || !typeFits(value, resolved)) continue;
    fallback ??= branch;
    if (!isRecord(value) || !isRecord(resolved.properties)) return branch;
    const properties = resolved.properties;
    const keys = Object.keys(value);
    if (!keys.every((key) => Object.hasOwn(properties, key))) continue;
    const discriminated = keys.every((key) => {
      const child = resolve(properties[key], root);
      if (!isRecord(child)) return true;
      if (Object.hasOwn(child, 'const')) return JSON.stringify(child.const) === JSON.stringify(value[key]);
      if (Array.isArray(child.enum))
        return child.enum.some((entry) => JSON.stringify(entry) === JSON.stringify(value[key]));
      return true;
    });
    if (discriminated) return branch;
  }
  return fallback;
}

function typeFits(value: unknown, schema: SchemaObject): boolean {
  const types = typesOf(schema);
  if (types.length === 0) return true;
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return types.some(
    (type) => type === actual || ((type === 'integer' || type === 'number') && actual === 'number'),
  );
}
