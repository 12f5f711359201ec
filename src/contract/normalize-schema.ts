import type { JsonSchema } from './tool-contract.js';

const SAFE = Number.MAX_SAFE_INTEGER;

/** Keywords whose value is a map from names to subschemas. */
export const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);
/** Keywords whose value is an array of subschemas. */
export const SCHEMA_ARRAY_KEYWORDS: ReadonlySet<string> = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
/** Keywords whose value is one subschema (or, for some, a boolean). */
export const SCHEMA_SINGLE_KEYWORDS: ReadonlySet<string> = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
]);

/**
 * The lean canonical form of a parameter or return schema, as it goes into a contract:
 * no `$schema` (each adapter adds the dialect its target wants), none of the
 * `±Number.MAX_SAFE_INTEGER` bounds that converters add to every integer, no empty `required`, no
 * `propertyNames: { type: 'string' }` (zod's records carry it; every property name is a string).
 * Everything else is kept as it was; key order is preserved so output stays stable.
 */
export function normalizeSchema(schema: JsonSchema): JsonSchema {
  return normalizeNode(schema) as JsonSchema;
}

function normalizeNode(node: unknown): unknown {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const source = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const value = source[key];
    if (key === '$schema') continue;
    if (key === 'maximum' && value === SAFE) continue;
    if (key === 'minimum' && value === -SAFE) continue;
    if (key === 'required' && Array.isArray(value) && value.length === 0) continue;
    if (key === 'propertyNames' && isStringSchema(value)) continue;
    if (SCHEMA_MAP_KEYWORDS.has(key) && isRecord(value)) {
      const map: Record<string, unknown> = {};
      for (const name of Object.keys(value)) map[name] = normalizeNode(value[name]);
      out[key] = map;
    } else if (SCHEMA_ARRAY_KEYWORDS.has(key) && Array.isArray(value)) {
      out[key] = value.map(normalizeNode);
    } else if (SCHEMA_SINGLE_KEYWORDS.has(key)) {
      out[key] = Array.isArray(value) ? value.map(normalizeNode) : normalizeNode(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function isStringSchema(value: unknown): boolean {
  return isRecord(value) && Object.keys(value).length === 1 && value.type === 'string';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
