import type { JsonSchema } from '../contract/index.js';

const MAX_PURPOSE_CHARS = 200;

/**
 * The first sentence of a description, at most 200 characters: what `search_tools` says a tool is for.
 *
 * @example
 * purposeOf('Reads a file. Use it for text files only.'); // 'Reads a file.'
 */
export function purposeOf(description: string): string {
  const first = /^[\s\S]*?[.!?。！？](?=\s|$)/u.exec(description.trim())?.[0] ?? description.trim();
  const line = first.replace(/\s+/g, ' ');
  return line.length <= MAX_PURPOSE_CHARS ? line : `${line.slice(0, MAX_PURPOSE_CHARS - 1)}…`;
}

/**
 * A one-line summary of a parameter schema: each parameter with its type, optional ones ending in `?`.
 *
 * @example
 * describeParameters({ type: 'object', properties: { path: { type: 'string' }, depth: { type: 'integer' } }, required: ['path'] });
 * // 'path (string), depth? (integer)'
 */
export function describeParameters(schema: JsonSchema): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const parts = Object.entries(properties).map(([name, property]) => {
    const type = typeOf(property);
    return `${name}${required.has(name) ? '' : '?'}${type ? ` (${type})` : ''}`;
  });
  return parts.length > 0 ? parts.join(', ') : '(none)';
}

function typeOf(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum
      .slice(0, 6)
      .map((value) => JSON.stringify(value))
      .join(', ')}${schema.enum.length > 6 ? ', …' : ''}`;
  if (typeof schema.type === 'string')
    return schema.type === 'array' && schema.items && typeof schema.items === 'object'
      ? `array of ${typeOf(schema.items as JsonSchema) ?? 'values'}`
      : schema.type;
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return undefined;
}
