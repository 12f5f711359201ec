import type { ToolContract } from '../contract/index.js';
import type { ToolDiagnostics } from './diagnostics.js';
import { isRecord, typesOf } from './schema-node.js';
import type { SchemaDiagnostic, SchemaOptions } from './types.js';

/**
 * The return contract as one line of text, for providers with no slot for it:
 * "Returns: <description> Shape: {path: string, lines: integer}". Empty when the contract has none.
 *
 * @example
 * returnsLine({ ...contract, returns: { description: 'The file text.' } }); // 'Returns: The file text.'
 */
export function returnsLine(contract: ToolContract): string {
  const returns = contract.returns;
  if (!returns) return '';
  const parts: string[] = [];
  if (returns.description) parts.push(returns.description.trim());
  if (returns.schema)
    parts.push(`${returns.description ? 'Shape' : 'Returns'}: ${summarize(returns.schema, 0)}.`);
  if (parts.length === 0) return '';
  return returns.description ? `Returns: ${parts.join(' ')}` : parts.join(' ');
}

/** The description with the return line after it, separated by a blank line. */
export function withReturns(description: string, contract: ToolContract): string {
  const line = returnsLine(contract);
  return line ? `${description}\n\n${line}` : description;
}

/**
 * The description a provider reads, with the return contract placed by `options.returns`:
 * - no slot for it (`hasSlot` false): appended as a line unless `omit`;
 * - a slot (Responses, Gemini): under `auto` the slot carries the schema and only the return
 *   description joins the text; under `description` the whole line is appended.
 * Moving the contract into words is reported, so it is never silent.
 *
 * @example
 * describeWithReturns(contract, {}, diagnostics, { hasSlot: false }); // '…\n\nReturns: The file text.'
 */
export function describeWithReturns(
  contract: ToolContract,
  options: SchemaOptions,
  diagnostics: ToolDiagnostics,
  placement: { readonly hasSlot: boolean; readonly severity?: SchemaDiagnostic['severity'] },
): string {
  const mode = options.returns ?? 'auto';
  let description = contract.description;
  let moved = false;
  if (!placement.hasSlot) {
    if (mode !== 'omit') description = withReturns(description, contract);
    moved = description !== contract.description;
  } else if (mode === 'description') {
    description = withReturns(description, contract);
    moved = description !== contract.description;
  } else if (mode === 'auto' && contract.returns?.description) {
    description = `${description}\n\nReturns: ${contract.returns.description.trim()}`;
  }
  if (moved) {
    diagnostics.report(
      '$.returns',
      'returns_described',
      `"${returnsLine(contract)}" is appended to the description`,
      placement.severity,
    );
  }
  return description;
}

function summarize(schema: unknown, depth: number): string {
  if (!isRecord(schema)) return 'any';
  if (depth > 3) return '…';
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (Object.hasOwn(schema, 'const')) return JSON.stringify(schema.const);
  for (const union of ['anyOf', 'oneOf'] as const) {
    const branches = schema[union];
    if (Array.isArray(branches)) return branches.map((branch) => summarize(branch, depth + 1)).join(' | ');
  }
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop() ?? 'object';
  const types = typesOf(schema);
  const shown = types.map((type) => {
    if (type === 'object' && isRecord(schema.properties)) {
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      const fields = Object.entries(schema.properties).map(
        ([name, child]) => `${name}${required.has(name) ? '' : '?'}: ${summarize(child, depth + 1)}`,
      );
      return `{${fields.join(', ')}}`;
    }
    if (type === 'array') return `${wrap(summarize(schema.items, depth + 1))}[]`;
    return type;
  });
  return shown.length > 0 ? shown.join(' | ') : 'any';
}

function wrap(text: string): string {
  return text.includes(' | ') ? `(${text})` : text;
}
