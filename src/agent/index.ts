/**
 * toolpact/agent: the loop. `runAgent` sends a registry's tools to a model through the user's own
 * provider client, dispatches every call through the registry's gate, appends the results in the
 * provider's message shape and repeats until the model answers or a bound stops it. With
 * `approvals: 'interrupt'` a run stops at the gate's `ask` with a JSON state to resume from later.
 * The provider SDKs are optional peers: the adapters take a client and import nothing.
 */
export {
  type AnthropicMessage,
  type AnthropicMessagesClient,
  type AnthropicMessagesOptions,
  anthropicMessages,
} from './anthropic-messages.js';
export {
  type GeminiContent,
  type GeminiGenerateOptions,
  type GeminiModelsClient,
  geminiGenerate,
} from './gemini-generate.js';
export type { AgentFormat, ModelAdapter, ModelRequest, ModelTurn, TokenUsage } from './model.js';
export type { AgentModelError } from './model-error.js';
export {
  type OpenAIChatClient,
  type OpenAIChatMessage,
  type OpenAIChatOptions,
  openaiChat,
} from './openai-chat.js';
export {
  type OpenAIResponsesClient,
  type OpenAIResponsesOptions,
  openaiResponses,
  type ResponsesInputItem,
} from './openai-responses.js';
export {
  AGENT_STATE_KIND,
  AGENT_STATE_VERSION,
  type AgentDecision,
  type AgentDecisions,
  type AgentPausedCall,
  type AgentPauseState,
  type AgentPendingCall,
  AgentResumeError,
  type AgentResumeErrorCode,
} from './pause-state.js';
export {
  AGENT_STOP_REASONS,
  type AgentEvent,
  type AgentEventStream,
  type AgentResult,
  type AgentStep,
  type AgentStopReason,
  agentEvents,
  type RunAgentOptions,
  type RunAgentSettings,
  runAgent,
} from './run-agent.js';
export type { AgentTelemetry } from './telemetry.js';
