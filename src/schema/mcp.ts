import type { JsonSchema, ToolContract } from '../contract/index.js';
import type { Envelope } from '../dispatch/envelope.js';
import { DiagnosticSink, type ToolDiagnostics } from './diagnostics.js';
import { checkLocalRefs } from './local-refs.js';
import type { McpToolDefinition, SchemaOptions } from './types.js';

/** The dialect MCP schemas declare: its default, stated for clients that guess (typescript-sdk#2721). */
export const MCP_JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The MCP `Tool` object (revision 2025-11-25) of a contract: `inputSchema` in draft 2020-12,
 * `outputSchema` from the return contract, `annotations` from the effects. That revision allows only an
 * object at the root of `outputSchema`, so any other return schema is published as `{ result: <schema> }`,
 * and {@link toMcpCallResult} shapes `structuredContent` the same way.
 *
 * @example
 * toMcpTool(readFile.contract);
 * // { name: 'read_file', title: 'Read file', description: '…',
 * //   inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', … },
 * //   annotations: { title: 'Read file', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } }
 */
export function toMcpTool(contract: ToolContract, options: SchemaOptions = {}): McpToolDefinition {
  return mcpTool(contract, options, new DiagnosticSink('mcp').forTool(contract.name));
}

/** The adapter behind {@link toMcpTool}, reporting what it had to change. */
export function mcpTool(
  contract: ToolContract,
  options: SchemaOptions,
  diagnostics: ToolDiagnostics,
): McpToolDefinition {
  const { readOnly, destructive, idempotent, openWorld } = contract.effects;
  checkLocalRefs(contract.parameters, '$.parameters', diagnostics);
  const output = (options.returns ?? 'auto') === 'auto' ? outputSchemaOf(contract, diagnostics) : undefined;
  const description = options.returns === 'description' ? withReturnsText(contract) : contract.description;
  return {
    name: contract.name,
    ...(contract.title ? { title: contract.title } : {}),
    description,
    inputSchema: {
      $schema: MCP_JSON_SCHEMA_DIALECT,
      ...contract.parameters,
    } as unknown as McpToolDefinition['inputSchema'],
    ...(output ? { outputSchema: output } : {}),
    annotations: {
      ...(contract.title ? { title: contract.title } : {}),
      readOnlyHint: readOnly,
      // destructive and idempotent mean something only when the tool is not read-only (schema.ts ToolAnnotations).
      destructiveHint: !readOnly && destructive,
      idempotentHint: idempotent,
      openWorldHint: openWorld,
    },
  };
}

function withReturnsText(contract: ToolContract): string {
  const text = contract.returns?.description;
  return text ? `${contract.description}\n\nReturns: ${text}` : contract.description;
}

/**
 * True when the return schema is not an object at the root and so is published as `{ result }`.
 *
 * @example
 * mcpWrapsResult({ ...contract, returns: { schema: { type: 'integer' } } }); // true
 */
export function mcpWrapsResult(contract: ToolContract): boolean {
  const schema = contract.returns?.schema;
  return schema !== undefined && schema.type !== 'object';
}

function outputSchemaOf(
  contract: ToolContract,
  diagnostics: ToolDiagnostics,
): McpToolDefinition['outputSchema'] {
  const schema = contract.returns?.schema;
  if (!schema) return undefined;
  checkLocalRefs(schema, '$.returns.schema', diagnostics);
  if (!mcpWrapsResult(contract)) {
    return { $schema: MCP_JSON_SCHEMA_DIALECT, ...schema } as unknown as McpToolDefinition['outputSchema'];
  }
  diagnostics.report(
    '$.returns.schema',
    'keyword_rewritten',
    'The return schema is not an object, so outputSchema wraps it as { result: … } and structuredContent is { result }',
  );
  // `$defs` stay at the root so that "#/$defs/…" references still resolve after wrapping.
  const { $defs, definitions, ...inner } = schema as JsonSchema & { $defs?: unknown; definitions?: unknown };
  return {
    $schema: MCP_JSON_SCHEMA_DIALECT,
    type: 'object',
    properties: { result: inner },
    required: ['result'],
    additionalProperties: false,
    ...($defs ? { $defs } : {}),
    ...(definitions ? { definitions } : {}),
  };
}

/** MCP's `CallToolResult`, as this module produces it. */
export interface McpCallResult {
  readonly content: { readonly type: 'text'; readonly text: string }[];
  readonly structuredContent?: { readonly [key: string]: unknown };
  readonly isError?: true;
  readonly [key: string]: unknown;
}

/**
 * The `CallToolResult` of an envelope: one text block holding the envelope's JSON (what
 * `registry.dispatch` answers); `isError: true` for a failure, so the model sees it and can correct
 * itself; `structuredContent` for a success whose contract has an object return schema (or, with no
 * return schema, an object result), shaped as {@link toMcpTool}'s `outputSchema`. A result that was cut
 * for length has no `structuredContent`, since the cut text no longer matches the schema.
 *
 * @example
 * toMcpCallResult({ ok: true, result: { lines: 3 } }, readFile.contract);
 * // { content: [{ type: 'text', text: '{"ok":true,"result":{"lines":3}}' }], structuredContent: { lines: 3 } }
 */
export function toMcpCallResult(envelope: Envelope, contract?: ToolContract): McpCallResult {
  const content = [{ type: 'text' as const, text: JSON.stringify(envelope) }];
  if (!envelope.ok) return { content, isError: true };
  if (envelope.truncated) return { content };
  const result = envelope.result;
  if (contract && mcpWrapsResult(contract)) return { content, structuredContent: { result } };
  const isObject = result !== null && typeof result === 'object' && !Array.isArray(result);
  return isObject ? { content, structuredContent: result as { [key: string]: unknown } } : { content };
}
