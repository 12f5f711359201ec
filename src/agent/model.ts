import type { CallOutcome, ProviderCall } from '../calls/dispatch-calls.js';
import type { ProviderFormat, SchemaOptions } from '../schema/types.js';

/** Tokens one model request used, or a run in total, as the provider's `usage` reports them. */
export interface TokenUsage {
  /** Prompt tokens, cached ones included. */
  readonly inputTokens: number;
  /** Completion tokens, reasoning included. */
  readonly outputTokens: number;
}

/** The formats a model adapter speaks: the tool-calling dialects of the provider APIs. */
export type AgentFormat = Extract<ProviderFormat, 'openai' | 'openai-responses' | 'anthropic' | 'gemini'>;

/** What the loop asks of a model adapter for one step. */
export interface ModelRequest<Message> {
  /** The whole transcript so far, in the provider's message shape. */
  readonly messages: readonly Message[];
  /** The tools to offer, already in the provider's wire shape (`registry.schemas(format, options)`). */
  readonly tools: readonly unknown[];
  readonly signal: AbortSignal | undefined;
}

/** One answer of the model, read by the adapter. */
export interface ModelTurn<Message> {
  /** The text the model wrote (empty when it only called tools). */
  readonly text: string;
  /** The tool calls, read with the provider's reader from `toolpact/schema`, in the order sent. */
  readonly calls: readonly ProviderCall[];
  /** The assistant's turn as the provider wants it sent back, to append to the transcript. */
  readonly messages: readonly Message[];
  /** Undefined when the provider reported none. */
  readonly usage: TokenUsage | undefined;
  /** The provider's own word for why it stopped (`tool_calls`, `end_turn`, `STOP`, …). */
  readonly finishReason: string | undefined;
  /** The model that answered, as the provider names it. */
  readonly responseModel?: string | undefined;
  /** The provider's id of the response. */
  readonly responseId?: string | undefined;
}

/**
 * A model behind one provider API, as `runAgent` drives it: send the transcript and the tools, read the
 * answer, and render tool results in the provider's message shape. The adapters of `toolpact/agent`
 * (`openaiChat`, `openaiResponses`, `anthropicMessages`, `geminiGenerate`) take the user's own SDK
 * client; a custom adapter only has to implement this interface.
 *
 * @example
 * const scripted: ModelAdapter<OpenAIChatMessage> = {
 *   provider: 'scripted', model: 'script', format: 'openai', schemaOptions: {},
 *   generate: async () => ({ text: 'done', calls: [], messages: [{ role: 'assistant', content: 'done' }], usage: undefined, finishReason: 'stop' }),
 *   toolResults: (outcomes) => toOpenAIToolMessages(outcomes),
 * };
 */
export interface ModelAdapter<Message> {
  /** The provider, as OpenTelemetry's `gen_ai.provider.name` spells it (`openai`, `anthropic`, `gcp.gemini`). */
  readonly provider: string;
  /** The model requested. */
  readonly model: string;
  /** Which dialect the tools are sent in and the calls are read in. */
  readonly format: AgentFormat;
  /** The options the tools are rendered with (`strict`, …), the same on every step. */
  readonly schemaOptions: SchemaOptions;
  /** Sends one request. Rejects on a provider error; the loop turns that into `model_error`. */
  readonly generate: (request: ModelRequest<Message>) => Promise<ModelTurn<Message>>;
  /** The messages that carry the results back, in the order of the calls. */
  readonly toolResults: (outcomes: readonly CallOutcome[]) => readonly Message[];
}
