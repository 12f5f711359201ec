import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema, ToolContract } from '../contract/index.js';

/**
 * The dialect every schema we publish declares (MCP's default, stated explicitly for clients that guess).
 *
 * @example
 * toMcpTool(contract).inputSchema.$schema === JSON_SCHEMA_2020_12; // true
 */
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The MCP `Tool` object of a contract: name, title, description, `inputSchema` with `$schema`
 * 2020-12, `outputSchema` from the return contract, and `annotations` from the effects.
 *
 * The 2025-11-25 revision restricts `outputSchema` to `type: "object"` at the root, so a return
 * schema of any other shape is published wrapped as `{ result: <schema> }`;
 * {@link toMcpCallResult} wraps `structuredContent` the same way (see {@link wrapsResult}).
 *
 * @example
 * const tool = toMcpTool(readFile.contract);
 * // { name: 'read_file', inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ... },
 * //   annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } }
 */
export function toMcpTool(contract: ToolContract): McpTool {
  const { readOnly, destructive, idempotent, openWorld } = contract.effects;
  const output = outputSchemaOf(contract);
  return {
    name: contract.name,
    ...(contract.title ? { title: contract.title } : {}),
    description: contract.description,
    inputSchema: {
      $schema: JSON_SCHEMA_2020_12,
      ...contract.parameters,
    } as unknown as McpTool['inputSchema'],
    ...(output ? { outputSchema: output as unknown as McpTool['outputSchema'] } : {}),
    annotations: {
      ...(contract.title ? { title: contract.title } : {}),
      readOnlyHint: readOnly,
      // The spec gives destructive and idempotent meaning only when the tool is not read-only.
      destructiveHint: !readOnly && destructive,
      idempotentHint: idempotent,
      openWorldHint: openWorld,
    },
  };
}

/**
 * True when the contract's return schema is not an object at the root and so is published as `{ result }`.
 *
 * @example
 * wrapsResult(countWords.contract); // true: it returns an integer
 */
export function wrapsResult(contract: ToolContract): boolean {
  const schema = contract.returns?.schema;
  return schema !== undefined && schema.type !== 'object';
}

function outputSchemaOf(contract: ToolContract): JsonSchema | undefined {
  const schema = contract.returns?.schema;
  if (!schema) return undefined;
  if (!wrapsResult(contract)) return { $schema: JSON_SCHEMA_2020_12, ...schema };
  // `$defs` must stay at the root for `#/$defs/...` references to resolve after wrapping.
  const { $defs, definitions, ...inner } = schema as { $defs?: unknown; definitions?: unknown };
  return {
    $schema: JSON_SCHEMA_2020_12,
    type: 'object',
    properties: { result: inner },
    required: ['result'],
    additionalProperties: false,
    ...($defs ? { $defs } : {}),
    ...(definitions ? { definitions } : {}),
  };
}
