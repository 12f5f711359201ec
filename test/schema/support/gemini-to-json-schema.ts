import type { JsonSchema } from '../../../src/index.js';
import type { GeminiSchema } from '../../../src/schema/index.js';

/**
 * Reads a Gemini OpenAPI-subset `Schema` back as the JSON Schema it means (upper-case types, `nullable`,
 * string enums of numbers, int64 fields as strings), so the test can check what Gemini would accept.
 */
export function geminiToJsonSchema(schema: GeminiSchema): JsonSchema {
  const out: Record<string, unknown> = {};
  const type = schema.type?.toLowerCase();
  if (type) out.type = schema.nullable ? [type, 'null'] : type;
  if (schema.enum) {
    const values: unknown[] =
      type === 'integer' || type === 'number' ? schema.enum.map(Number) : [...schema.enum];
    out.enum = schema.nullable ? [...values, null] : values;
  }
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, child]) => [name, geminiToJsonSchema(child)]),
    );
  }
  if (schema.required) out.required = schema.required;
  if (schema.items) out.items = geminiToJsonSchema(schema.items);
  for (const key of [
    'minItems',
    'maxItems',
    'minLength',
    'maxLength',
    'minProperties',
    'maxProperties',
  ] as const) {
    if (schema[key] !== undefined) out[key] = Number(schema[key]);
  }
  if (schema.pattern !== undefined) out.pattern = schema.pattern;
  if (schema.minimum !== undefined) out.minimum = schema.minimum;
  if (schema.maximum !== undefined) out.maximum = schema.maximum;
  if (schema.anyOf) {
    const branches = schema.anyOf.map(geminiToJsonSchema);
    out.anyOf = schema.nullable && !type ? [...branches, { type: 'null' }] : branches;
  }
  if (!type && !schema.anyOf && schema.nullable) return {};
  return out;
}
