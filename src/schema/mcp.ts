import type { JsonSchema, ToolContract, ToolEffects } from '../contract/index.js';
import type { Envelope } from '../dispatch/envelope.js';
import { DiagnosticSink, type ToolDiagnostics } from './diagnostics.js';
import { checkLocalRefs } from './local-refs.js';
import type { McpToolAnnotations, McpToolDefinition, SchemaOptions } from './types.js';

/**
 * The dialect of MCP schemas. Since revision 2025-11-25 (SEP-1613) a schema without `$schema` is read as
 * draft 2020-12, so it is stated only with the `dialect` option, for clients that guess otherwise
 * (typescript-sdk#2721).
 */
export const MCP_JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The MCP `Tool` object (revision 2025-11-25) of a contract: `inputSchema` in draft 2020-12 (the
 * revision's default dialect, so `$schema` is left out unless `dialect: true`), `outputSchema` from the
 * return contract, `annotations` from the effects. Only the hints that differ from the spec's defaults
 * are sent (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false, `openWorldHint` true),
 * and for a read-only tool neither `destructiveHint` nor `idempotentHint`, which the spec gives meaning
 * only when `readOnlyHint` is false; the title is the tool's own `title`, not repeated in the
 * annotations. That revision allows only an object at the root of `outputSchema`, so any other return
 * schema is published as `{ result: <schema> }`, and {@link toMcpCallResult} shapes `structuredContent`
 * the same way.
 *
 * @example
 * toMcpTool(readFile.contract);
 * // { name: 'read_file', title: 'Read file', description: '…',
 * //   inputSchema: { type: 'object', properties: { path: … }, required: ['path'] },
 * //   annotations: { readOnlyHint: true, openWorldHint: false } }
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
  checkLocalRefs(contract.parameters, '$.parameters', diagnostics);
  const dialect = options.dialect === true ? { $schema: MCP_JSON_SCHEMA_DIALECT } : {};
  const output =
    (options.returns ?? 'auto') === 'auto' ? outputSchemaOf(contract, dialect, diagnostics) : undefined;
  const description = options.returns === 'description' ? withReturnsText(contract) : contract.description;
  const annotations = mcpAnnotations(contract.effects);
  return {
    name: contract.name,
    ...(contract.title ? { title: contract.title } : {}),
    description,
    inputSchema: { ...dialect, ...contract.parameters } as unknown as McpToolDefinition['inputSchema'],
    ...(output ? { outputSchema: output } : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
}

/**
 * The effects as MCP `ToolAnnotations`, only the hints a client would otherwise read wrong: each default
 * (schema.ts `ToolAnnotations`) is what a client assumes for a hint left out, and `destructiveHint` and
 * `idempotentHint` mean something only when the tool is not read-only.
 *
 * @example
 * mcpAnnotations({ readOnly: true, destructive: false, idempotent: true, openWorld: false });
 * // { readOnlyHint: true, openWorldHint: false }
 */
export function mcpAnnotations(effects: ToolEffects): McpToolAnnotations {
  const { readOnly, destructive, idempotent, openWorld } = effects;
  return {
    ...(readOnly ? { readOnlyHint: true } : {}),
    ...(!readOnly && !destructive ? { destructiveHint: false } : {}),
    ...(!readOnly && idempotent ? { idempotentHint: true } : {}),
    ...(openWorld ? {} : { openWorldHint: false }),
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
  dialect: { readonly $schema?: string },
  diagnostics: ToolDiagnostics,
): McpToolDefinition['outputSchema'] {
  const schema = contract.returns?.schema;
  if (!schema) return undefined;
  checkLocalRefs(schema, '$.returns.schema', diagnostics);
  if (!mcpWrapsResult(contract)) {
    return { ...dialect, ...schema } as unknown as McpToolDefinition['outputSchema'];
  }
  diagnostics.report(
    '$.returns.schema',
    'keyword_rewritten',
    'The return schema is not an object, so outputSchema wraps it as { result: … } and structuredContent is { result }',
  );
  // `$defs` stay at the root so that "#/$defs/…" references still resolve after wrapping.
  const { $defs, definitions, ...inner } = schema as JsonSchema & { $defs?: unknown; definitions?: unknown };
  return {
    ...dialect,
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
