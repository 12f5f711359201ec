import type { JsonSchema } from '../contract/index.js';

/** One parameter of a tool, top-level or nested inside an object or array parameter. */
export interface ParameterView {
  readonly name: string;
  readonly schema: JsonSchema;
  /** JSONPath into the contract, e.g. `$.parameters.properties.path`. */
  readonly path: string;
  readonly required: boolean;
  /** 0 for a top-level parameter. */
  readonly depth: number;
}

const MAX_DEPTH = 8;

/**
 * Every parameter of a parameter schema, depth first, in declaration order: the root's properties
 * and those of nested objects (also inside `items`, `anyOf` and `oneOf`).
 *
 * @example
 * parametersOf({ type: 'object', properties: { path: { type: 'string' } } }).map((p) => p.path);
 * // ['$.parameters.properties.path']
 */
export function parametersOf(schema: JsonSchema, base = '$.parameters'): ParameterView[] {
  const out: ParameterView[] = [];
  visit(schema, base, 0, out);
  return out;
}

function visit(node: unknown, at: string, depth: number, out: ParameterView[]): void {
  if (!isRecord(node) || depth > MAX_DEPTH) return;
  const properties = node.properties;
  if (isRecord(properties)) {
    const required = new Set(Array.isArray(node.required) ? (node.required as unknown[]) : []);
    for (const name of Object.keys(properties)) {
      const child = properties[name];
      if (!isRecord(child)) continue;
      const path = propertyPath(at, name);
      out.push({ name, schema: child, path, required: required.has(name), depth });
      visit(child, path, depth + 1, out);
    }
  }
  if (isRecord(node.items)) visit(node.items, `${at}.items`, depth, out);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const list = node[keyword];
    if (!Array.isArray(list)) continue;
    for (const [index, item] of list.entries()) visit(item, `${at}.${keyword}[${index}]`, depth, out);
  }
}

/**
 * The JSONPath of property `name` under the schema at `base`: `.name` for identifiers, `["a b"]` otherwise.
 *
 * @example
 * propertyPath('$.parameters', 'tag name'); // '$.parameters.properties["tag name"]'
 */
export function propertyPath(base: string, name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)
    ? `${base}.properties.${name}`
    : `${base}.properties[${JSON.stringify(name)}]`;
}

/** The JSON types a schema allows (`type` as a string or a list), without `null`. */
export function typesOf(schema: JsonSchema): string[] {
  const type = schema.type;
  const list = Array.isArray(type) ? type : typeof type === 'string' ? [type] : [];
  return list.filter((item): item is string => typeof item === 'string' && item !== 'null');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
