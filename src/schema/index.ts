/**
 * toolpact/schema: one contract in every provider's dialect, and the way back.
 *
 * Each adapter is a pure function from contracts to one provider's wire shape, reporting what it
 * could not carry exactly as diagnostics. The call helpers read a provider's tool calls out of its
 * response, dispatch them through a registry and render the envelopes as that provider's message.
 * This entry loads the tokenizer, the optional peer `gpt-tokenizer`, on the first count (`countTokens`,
 * `tokenReport`), and estimates without it; the root entry never loads it.
 */

export {
  type AnthropicToolResultBlock,
  type AnthropicToolResultMessage,
  readAnthropicToolUses,
  runAnthropicToolUses,
  toAnthropicToolResults,
} from '../calls/anthropic-calls.js';
export {
  type CallOutcome,
  dispatchProviderCalls,
  type ProviderCall,
  type RunCallsOptions,
} from '../calls/dispatch-calls.js';
export {
  type GeminiFunctionResponseContent,
  type GeminiFunctionResponsePart,
  readGeminiFunctionCalls,
  runGeminiFunctionCalls,
  toGeminiFunctionResponses,
} from '../calls/gemini-calls.js';
export { readMcpToolCall, runMcpToolCall } from '../calls/mcp-calls.js';
export {
  type OpenAIToolMessage,
  readOpenAIToolCalls,
  runOpenAIToolCalls,
  toOpenAIToolMessages,
} from '../calls/openai-calls.js';
export {
  type ResponsesFunctionCallOutput,
  readResponsesFunctionCalls,
  runResponsesFunctionCalls,
  toResponsesFunctionCallOutputs,
} from '../calls/openai-responses-calls.js';
export { toAnthropicTool } from './anthropic.js';
export { DIAGNOSTIC_CODES, type DiagnosticCode } from './diagnostics.js';
export { toGeminiFunctionDeclaration } from './gemini.js';
export { toGeminiSchema } from './gemini-schema.js';
export {
  MCP_JSON_SCHEMA_DIALECT,
  type McpCallResult,
  mcpAnnotations,
  mcpWrapsResult,
  toMcpCallResult,
  toMcpTool,
} from './mcp.js';
export { nameKeys, providerToolName, type ToolNameMap, toolNameMap } from './names.js';
export { toOpenAITool } from './openai.js';
export { toOpenAIResponsesTool } from './openai-responses.js';
export { ProviderPayloadError } from './payload-error.js';
export { restoreStrictArguments } from './restore-strict.js';
export { RESULT_CONTENT, type ResultContentSupport } from './result-content.js';
export { ANTHROPIC_STRICT, OPENAI_STRICT, type StrictProfile, toStrictSchema } from './strict-schema.js';
export { toProviderTools } from './to-provider-tools.js';
export {
  countTokens,
  ESTIMATED_TOKENS_NOTE,
  estimateTokens,
  TOKENIZER_PACKAGE,
  type TokenReport,
  tokenCounting,
  tokenReport,
} from './tokens.js';
export {
  type AnthropicTool,
  type GeminiFunctionDeclaration,
  type GeminiSchema,
  isProviderFormat,
  type McpToolAnnotations,
  type McpToolDefinition,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  PROVIDER_FORMATS,
  type ProviderFormat,
  type ProviderToolMap,
  type ProviderTools,
  type ReturnsMode,
  type SchemaDiagnostic,
  type SchemaOptions,
} from './types.js';
