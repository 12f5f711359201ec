import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContract } from '../contract/index.js';
import type { Envelope } from '../dispatch/envelope.js';
import { wrapsResult } from './to-mcp-tool.js';

/**
 * The `CallToolResult` of an envelope. The one text block is the envelope's JSON, exactly what
 * `registry.dispatch` answers, so a model reads the same thing whichever way the call came in.
 * A failure is `isError: true` (never a JSON-RPC error: the model must see it to correct itself).
 * A success also carries `structuredContent`, shaped as the contract's `outputSchema` is (the object
 * result itself, or `{ result }` when the return schema is not an object); a tool without a return
 * schema offers an object result as `structuredContent` and any other result as text only.
 *
 * A result cut for length carries no `structuredContent`, since a cut string cannot match the
 * schema; the text says it was cut.
 *
 * @example
 * const result = toMcpCallResult(await registry.call('read_file', args), readFile.contract);
 * // { content: [{ type: 'text', text: '{"ok":true,"result":{"lines":3}}' }], structuredContent: { lines: 3 } }
 */
export function toMcpCallResult(envelope: Envelope, contract?: ToolContract): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(envelope) }];
  if (!envelope.ok) return { content, isError: true };
  if (envelope.truncated) return { content };
  const result = envelope.result;
  if (contract && wrapsResult(contract)) return { content, structuredContent: { result } };
  const isObject = result !== null && typeof result === 'object' && !Array.isArray(result);
  // Without a return schema there is no outputSchema to match: an object result is offered as
  // structuredContent as it is, anything else only as the text.
  return isObject ? { content, structuredContent: result as { [key: string]: unknown } } : { content };
}
