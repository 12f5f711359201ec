import type { JsonSchema } from '../contract/index.js';
import type { IssuePath } from '../contract/validation.js';

export type { IssueCode, IssuePath, ValidationIssue } from '../contract/validation.js';

/** Renders a path as `$`, `$.name`, `$.items[2].id` or `$["odd key"]`. */
export function formatPath(path: IssuePath): string {
  let out = '$';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Parses an ajv/JSON Pointer instance path (`/items/0/name`) into segments. */
export function pointerToPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => {
      const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment;
    });
}

const MISSING = Symbol('missing');

/** The value at `path` inside `root`, or a marker when it is absent. Own properties only. */
export function valueAt(root: unknown, path: IssuePath): unknown {
  let node: unknown = root;
  for (const segment of path) {
    if (node === null || typeof node !== 'object') return MISSING;
    if (!Object.hasOwn(node, segment)) return MISSING;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

/** A short description of a value for the model: its type and a bounded preview. */
export function describeValue(value: unknown): string {
  if (value === MISSING || value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  switch (typeof value) {
    case 'string': {
      const preview = value.length > 40 ? `${value.slice(0, 40)}…` : value;
      return `the string ${JSON.stringify(preview)}`;
    }
    case 'number':
      return Number.isInteger(value) ? `the integer ${value}` : `the number ${value}`;
    case 'boolean':
      return `the boolean ${value}`;
    case 'object': {
      const keys = Object.keys(value as object);
      const shown = keys.slice(0, 5).join(', ');
      return keys.length === 0
        ? 'an empty object'
        : `an object with keys ${shown}${keys.length > 5 ? ', …' : ''}`;
    }
    default:
      return `a ${typeof value}`;
  }
}

/** A short phrase for what `schema` accepts, e.g. `string`, `one of "a", "b"`, `integer >= 1`. */
export function describeSchema(schema: unknown): string {
  if (schema === true || schema === undefined) return 'any value';
  if (schema === false) return 'no value (the field is not allowed)';
  if (schema === null || typeof schema !== 'object') return 'a valid value';
  const s = schema as Record<string, unknown>;
  if (Object.hasOwn(s, 'const')) return `exactly ${JSON.stringify(s.const)}`;
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const types = Array.isArray(s.type) ? s.type.join(' or ') : typeof s.type === 'string' ? s.type : undefined;
  if (types === 'object' && s.properties && typeof s.properties === 'object') {
    const tags = Object.entries(s.properties as Record<string, Record<string, unknown>>)
      .filter(([, property]) => property && typeof property === 'object' && Object.hasOwn(property, 'const'))
      .map(([key, property]) => `${key} ${JSON.stringify(property.const)}`);
    if (tags.length) return `an object with ${tags.join(', ')}`;
  }
  if (types) {
    if (typeof s.format === 'string') return `${types} in ${s.format} format`;
    return types;
  }
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    const branches = (s.anyOf ?? s.oneOf) as unknown[];
    return branches.map(describeSchema).join(' or ');
  }
  return 'a valid value';
}

/** The subschema that governs `path`, following `properties`, `items`, `prefixItems` and local `$ref`s. */
export function schemaAt(root: JsonSchema, path: IssuePath): unknown {
  let node: unknown = root;
  for (const segment of path) {
    node = resolveLocalRef(root, node);
    if (node === null || typeof node !== 'object') return undefined;
    const s = node as Record<string, unknown>;
    if (typeof segment === 'number') {
      const prefix = s.prefixItems as unknown[] | undefined;
      node = prefix && segment < prefix.length ? prefix[segment] : s.items;
    } else {
      const props = s.properties as Record<string, unknown> | undefined;
      node = props && Object.hasOwn(props, segment) ? props[segment] : s.additionalProperties;
    }
  }
  return resolveLocalRef(root, node);
}

function resolveLocalRef(root: JsonSchema, node: unknown): unknown {
  for (let hops = 0; hops < 32; hops++) {
    if (node === null || typeof node !== 'object') return node;
    const ref = (node as Record<string, unknown>).$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#')) return node;
    node = valueAt(root, pointerToPath(ref.slice(1)));
  }
  return node;
}

export { MISSING };
