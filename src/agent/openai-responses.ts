import {
  readResponsesFunctionCalls,
  toResponsesFunctionCallOutputs,
} from '../calls/openai-responses-calls.js';
import { describePayload, expectArray, own, ProviderPayloadError } from '../schema/payload-error.js';
import type { ModelAdapter, ModelTurn } from './model.js';
import { bodyOf, isAsyncIterable, stringAt, usageOf } from './wire.js';

/** A Responses API input item: a message (`{ role, content }`), a `function_call`, a `function_call_output`, … */
export interface ResponsesInputItem {
  readonly type?: string;
  readonly role?: string;
  readonly content?: unknown;
  readonly call_id?: string;
  readonly output?: unknown;
}

/** The part of an `OpenAI` client that `openaiResponses` uses. */
export interface OpenAIResponsesClient {
  readonly responses: {
    create(body: never, options?: never): PromiseLike<unknown>;
  };
}

/** Options of {@link openaiResponses}. */
export interface OpenAIResponsesOptions {
  readonly model: string;
  /** Send the tools with `strict: true` (toolpact always sends `strict` explicitly; default false). */
  readonly strict?: boolean;
  /** Stream the answer; the loop reads the `response.completed` event's response. */
  readonly stream?: boolean;
  /** Extra request fields (`instructions`, `reasoning`, `store`, …). */
  readonly params?: Readonly<Record<string, unknown>>;
}

/**
 * A model behind the Responses API, through the user's `openai` client. The transcript is the list of
 * input items: each answer's `output` items are appended as they came, then one `function_call_output`
 * per call.
 *
 * @example
 * const model = openaiResponses(new OpenAI(), { model: 'gpt-5', params: { instructions: 'Be brief.' } });
 * await runAgent({ model, registry, messages: [{ role: 'user', content: 'What is in docs/?' }] });
 */
export function openaiResponses(
  client: OpenAIResponsesClient,
  options: OpenAIResponsesOptions,
): ModelAdapter<ResponsesInputItem> {
  return {
    provider: 'openai',
    model: options.model,
    format: 'openai-responses',
    schemaOptions: { strict: options.strict === true },
    async generate({ messages, tools, signal }) {
      const stream = options.stream === true;
      const body = bodyOf(options.params, {
        model: options.model,
        input: messages,
        tools: tools.length > 0 ? tools : undefined,
        stream: stream ? true : undefined,
      });
      const answer = await client.responses.create(body as never, (signal ? { signal } : undefined) as never);
      return readResponse(stream || isAsyncIterable(answer) ? await completedOf(answer) : answer);
    },
    toolResults: toResponsesFunctionCallOutputs,
  };
}

/** The response of a stream's `response.completed` (or `response.incomplete`) event. */
async function completedOf(stream: unknown): Promise<unknown> {
  if (!isAsyncIterable(stream))
    throw new ProviderPayloadError('$', 'a stream of Responses events', describePayload(stream));
  let last: unknown;
  for await (const event of stream) {
    const type = own(event, 'type');
    if (type === 'response.completed' || type === 'response.incomplete') last = own(event, 'response');
    if (type === 'response.failed' || type === 'error') {
      const error = own(own(event, 'response'), 'error') ?? event;
      throw new Error(
        `The stream ended with ${String(type)}: ${stringAt(error, 'message') ?? 'no message'} (${stringAt(error, 'code') ?? 'no code'}).`,
      );
    }
  }
  if (last === undefined)
    throw new ProviderPayloadError('$', 'a response.completed event', 'a stream that ended without one');
  return last;
}

function readResponse(response: unknown): ModelTurn<ResponsesInputItem> {
  const output = expectArray(own(response, 'output'), '$.output', 'a Response with output items');
  const calls = readResponsesFunctionCalls(response);
  let text = '';
  for (const item of output) {
    if (own(item, 'type') !== 'message') continue;
    const parts = own(item, 'content');
    if (!Array.isArray(parts)) continue;
    for (const part of parts) if (own(part, 'type') === 'output_text') text += stringAt(part, 'text') ?? '';
  }
  return {
    text,
    calls,
    messages: output as ResponsesInputItem[],
    usage: usageOf(own(response, 'usage'), ['input_tokens'], ['output_tokens']),
    finishReason: stringAt(response, 'status'),
    responseModel: stringAt(response, 'model'),
    responseId: stringAt(response, 'id'),
  };
}
