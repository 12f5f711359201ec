import type { ContentType } from '../content/blocks.js';
import type { ToolContract } from '../contract/index.js';
import type { ToolDiagnostics } from './diagnostics.js';
import type { ProviderFormat } from './types.js';

/** What one format's tool results can hold, and where that is written. */
export interface ResultContentSupport {
  /** The block types a tool result can carry as such (not as JSON text). */
  readonly accepts: readonly ContentType[];
  /** Where the rule comes from, for whoever checks it again. */
  readonly source: string;
}

/**
 * The content blocks each format's tool results can hold. OpenAI Chat Completions: a tool message
 * is text (or text parts). The Responses API: a `function_call_output` may be a list of text,
 * image and file inputs. Anthropic: a `tool_result` may hold text, image, document and search-result
 * blocks. Gemini: a `functionResponse` holds a JSON object, with media as `parts` of inline data
 * (models with multimodal function responses). MCP: every block. Audio goes back as a tool result
 * only through MCP.
 *
 * @example
 * RESULT_CONTENT.anthropic.accepts; // ['text', 'image', 'resource']
 */
export const RESULT_CONTENT: { readonly [F in ProviderFormat]: ResultContentSupport } = Object.freeze({
  canonical: {
    accepts: ['text', 'image', 'audio', 'resource_link', 'resource'],
    source: 'the contract itself',
  },
  openai: {
    accepts: ['text'],
    source:
      'openai-python src/openai/types/chat/chat_completion_tool_message_param.py (content: str | text parts)',
  },
  'openai-responses': {
    accepts: ['text', 'image', 'resource'],
    source:
      'openai-python src/openai/types/responses/response_function_call_output_item_param.py (input_text, input_image, input_file)',
  },
  anthropic: {
    accepts: ['text', 'image', 'resource'],
    source:
      'anthropic-sdk-python src/anthropic/types/tool_result_block_param.py (text, image, search_result, document)',
  },
  gemini: {
    accepts: ['text', 'image', 'resource'],
    source: 'python-genai google/genai/types.py FunctionResponse.parts (FunctionResponsePart.inline_data)',
  },
  mcp: {
    accepts: ['text', 'image', 'audio', 'resource_link', 'resource'],
    source: 'MCP schema.ts CallToolResult.content (ContentBlock)',
  },
});

/**
 * Reports each block type the contract declares (`returns.content`) that `format`'s tool results
 * cannot hold.
 */
export function checkResultContent(
  contract: ToolContract,
  format: ProviderFormat,
  diagnostics: ToolDiagnostics,
): void {
  const declared = contract.returns?.content;
  if (!declared) return;
  const accepts = RESULT_CONTENT[format].accepts;
  declared.forEach((type, index) => {
    if (!accepts.includes(type)) {
      diagnostics.report(
        `$.returns.content[${index}]`,
        'result_content_unsupported',
        `The tool answers ${type} blocks`,
      );
    }
  });
}
