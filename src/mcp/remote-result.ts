import type { CallToolResult } from '@modelcontextprotocol/client';
import { ToolError } from '../dispatch/tool-error.js';

/**
 * What a remote tool's `CallToolResult` becomes in our envelope. `isError: true` throws a
 * {@link ToolError}, so the envelope is a failure (type `mcp_tool_error`, or the remote envelope's own
 * type when the server is a toolpact server). A success is its `structuredContent` when there is one,
 * else the result of a toolpact envelope in the text, else the text itself, else the content blocks.
 *
 * @example
 * remoteResultValue({ content: [{ type: 'text', text: 'hello' }] }, 'everything'); // 'hello'
 */
export function remoteResultValue(result: CallToolResult, server: string): unknown {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const texts = blocks.filter((block) => block.type === 'text').map((block) => block.text);
  const onlyText = texts.length === blocks.length;
  if (result.isError === true) {
    const envelope = texts.length === 1 ? parseEnvelope(texts[0]!) : undefined;
    if (envelope && envelope.ok === false) {
      const error = envelope.error;
      throw new ToolError(error.message, {
        type: error.type,
        ...(typeof error.hint === 'string' ? { hint: error.hint } : {}),
        details: { server },
      });
    }
    const message = texts.join('\n').trim();
    throw new ToolError(message || `The MCP server "${server}" reported an error without a message.`, {
      type: 'mcp_tool_error',
      details: { server },
    });
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  if (onlyText && texts.length === 1) {
    const envelope = parseEnvelope(texts[0]!);
    return envelope && envelope.ok === true ? envelope.result : texts[0];
  }
  if (onlyText) return texts;
  return blocks;
}

type ParsedEnvelope =
  | { ok: true; result: unknown }
  | { ok: false; error: { type: string; message: string; hint?: unknown } };

// Only text that is exactly a toolpact envelope counts; anything else is the tool's own text.
function parseEnvelope(text: string): ParsedEnvelope | undefined {
  if (!text.startsWith('{"ok":')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if (record.ok === true && Object.hasOwn(record, 'result')) return { ok: true, result: record.result };
  const error = record.error as Record<string, unknown> | undefined;
  if (
    record.ok === false &&
    error !== null &&
    typeof error === 'object' &&
    typeof error.type === 'string' &&
    typeof error.message === 'string'
  ) {
    return { ok: false, error: { type: error.type, message: error.message, hint: error.hint } };
  }
  return undefined;
}
