import { readOpenAIToolCalls, toOpenAIToolMessages } from '../calls/openai-calls.js';
import { describePayload, expectArray, own, ProviderPayloadError } from '../schema/payload-error.js';
import type { ModelAdapter, ModelTurn } from './model.js';
import { bodyOf, isAsyncIterable, stringAt, usageOf } from './wire.js';

/** A Chat Completions message, as the `openai` package's `ChatCompletionMessageParam` has it. */
export interface OpenAIChatMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly name?: string;
  readonly tool_calls?: readonly unknown[];
  readonly tool_call_id?: string;
}

/** The part of an `OpenAI` client that `openaiChat` uses (typed structurally, so nothing is imported). */
export interface OpenAIChatClient {
  readonly chat: {
    readonly completions: {
      create(body: never, options?: never): PromiseLike<unknown>;
    };
  };
}

/** Options of {@link openaiChat}. */
export interface OpenAIChatOptions {
  readonly model: string;
  /** Send the tools with `strict: true`; the model's nulls for optional fields are restored before validation. */
  readonly strict?: boolean;
  /** Stream the answer (`stream: true`, usage in the last chunk); the loop still acts on the whole turn. */
  readonly stream?: boolean;
  /** Extra request fields (`temperature`, `parallel_tool_calls`, `reasoning_effort`, …). */
  readonly params?: Readonly<Record<string, unknown>>;
  /** `gen_ai.provider.name` for telemetry (default `openai`; say `ollama` or `vllm` for those servers). */
  readonly provider?: string;
}

/**
 * A model behind the Chat Completions API, through the user's `openai` client. Any OpenAI-compatible
 * server (Ollama, vLLM, llama.cpp's server, LM Studio) works the same way: give the client its `baseURL`.
 *
 * @example
 * import OpenAI from 'openai';
 * const model = openaiChat(new OpenAI(), { model: 'gpt-5-mini', strict: true });
 * const local = openaiChat(new OpenAI({ baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'ollama' }), { model: 'qwen3' });
 */
export function openaiChat(
  client: OpenAIChatClient,
  options: OpenAIChatOptions,
): ModelAdapter<OpenAIChatMessage> {
  const strict = options.strict === true;
  return {
    provider: options.provider ?? 'openai',
    model: options.model,
    format: 'openai',
    schemaOptions: { strict },
    async generate({ messages, tools, signal }) {
      const stream = options.stream === true;
      const body = bodyOf(options.params, {
        model: options.model,
        messages,
        tools: tools.length > 0 ? tools : undefined,
        stream: stream ? true : undefined,
        stream_options: stream ? { include_usage: true } : undefined,
      });
      const answer = await client.chat.completions.create(
        body as never,
        (signal ? { signal } : undefined) as never,
      );
      return stream || isAsyncIterable(answer) ? readChunks(answer) : readCompletion(answer);
    },
    toolResults: toOpenAIToolMessages,
  };
}

function readCompletion(completion: unknown): ModelTurn<OpenAIChatMessage> {
  const choices = expectArray(own(completion, 'choices'), '$.choices', 'a ChatCompletion with choices');
  const message = own(choices[0], 'message');
  if (message === null || typeof message !== 'object')
    throw new ProviderPayloadError('$.choices[0].message', 'the assistant message', describePayload(message));
  return turnOf(
    message,
    own(choices[0], 'finish_reason'),
    usageOf(own(completion, 'usage'), ['prompt_tokens'], ['completion_tokens']),
    completion,
  );
}

/** A streamed answer: text deltas joined, tool call deltas joined by their `index`. */
async function readChunks(stream: unknown): Promise<ModelTurn<OpenAIChatMessage>> {
  if (!isAsyncIterable(stream))
    throw new ProviderPayloadError('$', 'a stream of chat.completion.chunk events', describePayload(stream));
  let content = '';
  let finishReason: unknown;
  let usage: unknown;
  let first: unknown;
  const calls: { id?: unknown; type?: unknown; function: { name: string; arguments: string } }[] = [];
  for await (const chunk of stream) {
    first ??= chunk;
    if (own(chunk, 'usage')) usage = own(chunk, 'usage');
    const choice = (own(chunk, 'choices') as unknown[] | undefined)?.[0];
    if (choice === undefined) continue;
    finishReason = own(choice, 'finish_reason') ?? finishReason;
    const delta = own(choice, 'delta');
    const text = own(delta, 'content');
    if (typeof text === 'string') content += text;
    const deltas = own(delta, 'tool_calls');
    if (!Array.isArray(deltas)) continue;
    for (const [position, part] of deltas.entries()) {
      const index = typeof own(part, 'index') === 'number' ? (own(part, 'index') as number) : position;
      if (index < 0 || index > 1024) continue;
      const call = calls[index] ?? { function: { name: '', arguments: '' } };
      calls[index] = call;
      if (own(part, 'id') !== undefined) call.id = own(part, 'id');
      if (own(part, 'type') !== undefined) call.type = own(part, 'type');
      const fn = own(part, 'function');
      call.function.name += stringAt(fn, 'name') ?? '';
      call.function.arguments += stringAt(fn, 'arguments') ?? '';
    }
  }
  const toolCalls = calls.filter((call) => call !== undefined);
  const message = {
    role: 'assistant',
    content: content === '' ? null : content,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  return turnOf(message, finishReason, usageOf(usage, ['prompt_tokens'], ['completion_tokens']), first);
}

function turnOf(
  message: object,
  finishReason: unknown,
  usage: ModelTurn<OpenAIChatMessage>['usage'],
  response: unknown,
): ModelTurn<OpenAIChatMessage> {
  const calls = readOpenAIToolCalls(message);
  const text = own(message, 'content');
  // The assistant turn goes back as a plain param: only what the API reads, arguments always a string.
  const assistant: OpenAIChatMessage = {
    role: 'assistant',
    content: typeof text === 'string' ? text : null,
    ...(calls.length > 0
      ? {
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function',
            function: {
              name: call.name,
              arguments:
                typeof call.arguments === 'string'
                  ? call.arguments
                  : (JSON.stringify(call.arguments) ?? '{}'),
            },
          })),
        }
      : {}),
  };
  return {
    text: typeof text === 'string' ? text : '',
    calls,
    messages: [assistant],
    usage,
    finishReason: typeof finishReason === 'string' ? finishReason : undefined,
    responseModel: stringAt(response, 'model'),
    responseId: stringAt(response, 'id'),
  };
}
