import type { Registry } from '../registry/registry.js';
import { type McpCallResult, toMcpCallResult } from '../schema/mcp.js';
import { describePayload, expectString, own, ProviderPayloadError } from '../schema/payload-error.js';
import { dispatchProviderCalls, type ProviderCall, type RunCallsOptions } from './dispatch-calls.js';

/**
 * The call in MCP `tools/call` params (`{ name, arguments? }`).
 *
 * @example
 * readMcpToolCall({ name: 'read_file', arguments: { path: 'a.md' } });
 */
export function readMcpToolCall(params: unknown): ProviderCall {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    throw new ProviderPayloadError('$', 'tools/call params { name, arguments? }', describePayload(params));
  }
  return {
    id: undefined,
    name: expectString(own(params, 'name'), '$.name', 'the tool name (a string)'),
    arguments: own(params, 'arguments'),
  };
}

/**
 * Runs one `tools/call` and answers with its `CallToolResult` (`isError` on failure, `structuredContent`
 * shaped as the tool's `outputSchema`).
 *
 * @example
 * const result = await runMcpToolCall(registry, request.params);
 */
export async function runMcpToolCall(
  registry: Registry,
  params: unknown,
  options?: RunCallsOptions,
): Promise<McpCallResult> {
  const [outcome] = await dispatchProviderCalls(registry, [readMcpToolCall(params)], 'mcp', options);
  return toMcpCallResult(outcome!.envelope, registry.get(outcome!.tool)?.contract);
}
