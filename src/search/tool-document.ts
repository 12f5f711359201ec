import type { JsonSchema, ToolContract } from '../contract/index.js';

/** The fields of a tool the index reads, each weighed on its own. */
export type ToolField = 'name' | 'title' | 'description' | 'parameters' | 'parameterText' | 'enums';

/**
 * Every indexed field, in a stable order (for docs, the CLI and meta-tests).
 *
 * @example
 * TOOL_FIELDS.includes('enums'); // true
 */
export const TOOL_FIELDS: readonly ToolField[] = Object.freeze([
  'name',
  'title',
  'description',
  'parameters',
  'parameterText',
  'enums',
]);

/** One tool as the index stores it: plain text per field. */
export type ToolDocument = { readonly id: number } & { readonly [Field in ToolField]: string };

// Nested schemas deeper than this add noise, not meaning, and a hostile schema could be deep.
const MAX_DEPTH = 4;

/**
 * The text of each field of a contract: its name, title, description, the names of its parameters
 * (nested ones too), what the parameters' descriptions say, and their enum values.
 *
 * @example
 * toolDocument(7, readFile.contract).parameters; // 'path encoding'
 */
export function toolDocument(id: number, contract: ToolContract): ToolDocument {
  const names: string[] = [];
  const texts: string[] = [];
  const enums: string[] = [];
  collect(contract.parameters, 0, names, texts, enums);
  return {
    id,
    name: contract.name,
    title: contract.title ?? '',
    description: contract.description,
    parameters: names.join(' '),
    parameterText: texts.join(' '),
    enums: enums.join(' '),
  };
}

function collect(schema: unknown, depth: number, names: string[], texts: string[], enums: string[]): void {
  if (depth > MAX_DEPTH || schema === null || typeof schema !== 'object') return;
  const node = schema as JsonSchema;
  if (depth > 0) {
    if (typeof node.description === 'string') texts.push(node.description);
    if (typeof node.title === 'string') texts.push(node.title);
  }
  for (const value of [...(Array.isArray(node.enum) ? node.enum : []), node.const]) {
    if (typeof value === 'string' || typeof value === 'number') enums.push(String(value));
  }
  const properties = node.properties;
  if (properties && typeof properties === 'object') {
    for (const [name, child] of Object.entries(properties as Record<string, unknown>)) {
      names.push(name);
      collect(child, depth + 1, names, texts, enums);
    }
  }
  if (node.items && typeof node.items === 'object') collect(node.items, depth + 1, names, texts, enums);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = node[key];
    if (Array.isArray(branches))
      for (const branch of branches) collect(branch, depth + 1, names, texts, enums);
  }
}
