import { readAnthropicToolUses, toAnthropicToolResults } from '../calls/anthropic-calls.js';
import { describePayload, expectArray, own, ProviderPayloadError } from '../schema/payload-error.js';
import type { ModelAdapter, ModelTurn } from './model.js';
import { bodyOf, isAsyncIterable, stringAt, usageOf } from './wire.js';

/** A Messages API message, as the `@anthropic-ai/sdk` package's `MessageParam` has it. */
export interface AnthropicMessage {
  readonly role: 'user' | 'assistant';
  readonly content: unknown;
}

/** The part of an `Anthropic` client that `anthropicMessages` uses. */
export interface AnthropicMessagesClient {
  readonly messages: {
    create(body: never, options?: never): PromiseLike<unknown>;
  };
}

/** Options of {@link anthropicMessages}. */
export interface AnthropicMessagesOptions {
  readonly model: string;
  /** `max_tokens` of every request (the API requires one; default 4096). */
  readonly maxTokens?: number;
  /** The system prompt. */
  readonly system?: string;
  /** Send the tools with `strict: true`. */
  readonly strict?: boolean;
  /** Stream the answer (server-sent events); the loop acts on the whole message. */
  readonly stream?: boolean;
  /** Extra request fields (`temperature`, `thinking`, `tool_choice`, …). */
  readonly params?: Readonly<Record<string, unknown>>;
}

const INPUT_USAGE = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

/**
 * A model behind the Messages API, through the user's `@anthropic-ai/sdk` client. The assistant's content
 * blocks go back as they came (text, thinking and `tool_use` alike); the results follow as one user
 * message of `tool_result` blocks.
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk';
 * const model = anthropicMessages(new Anthropic(), { model: 'claude-sonnet-4-5', system: 'Be brief.' });
 */
export function anthropicMessages(
  client: AnthropicMessagesClient,
  options: AnthropicMessagesOptions,
): ModelAdapter<AnthropicMessage> {
  return {
    provider: 'anthropic',
    model: options.model,
    format: 'anthropic',
    schemaOptions: { strict: options.strict === true },
    async generate({ messages, tools, signal }) {
      const stream = options.stream === true;
      const body = bodyOf(options.params, {
        model: options.model,
        max_tokens: options.maxTokens ?? 4096,
        system: options.system,
        messages,
        tools: tools.length > 0 ? tools : undefined,
        stream: stream ? true : undefined,
      });
      const answer = await client.messages.create(body as never, (signal ? { signal } : undefined) as never);
      return readMessage(stream || isAsyncIterable(answer) ? await messageOf(answer) : answer);
    },
    toolResults: (outcomes) => [toAnthropicToolResults(outcomes)],
  };
}

interface Block {
  [key: string]: unknown;
}

/** Rebuilds the message from its events: `message_start`, the content block events, `message_delta`. */
async function messageOf(stream: unknown): Promise<unknown> {
  if (!isAsyncIterable(stream))
    throw new ProviderPayloadError('$', 'a stream of Messages events', describePayload(stream));
  let message: Block | undefined;
  const blocks: Block[] = [];
  const json = new Map<number, string>();
  for await (const event of stream) {
    const type = own(event, 'type');
    const index = own(event, 'index');
    if (type === 'message_start') {
      message = { ...(own(event, 'message') as Block) };
    } else if (type === 'content_block_start' && typeof index === 'number') {
      blocks[index] = { ...(own(event, 'content_block') as Block) };
    } else if (type === 'content_block_delta' && typeof index === 'number' && blocks[index]) {
      const block = blocks[index];
      const delta = own(event, 'delta');
      switch (own(delta, 'type')) {
        case 'text_delta':
          block.text = `${block.text ?? ''}${stringAt(delta, 'text') ?? ''}`;
          break;
        case 'input_json_delta':
          json.set(index, `${json.get(index) ?? ''}${stringAt(delta, 'partial_json') ?? ''}`);
          break;
        case 'thinking_delta':
          block.thinking = `${block.thinking ?? ''}${stringAt(delta, 'thinking') ?? ''}`;
          break;
        case 'signature_delta':
          block.signature = stringAt(delta, 'signature');
          break;
        default:
          break;
      }
    } else if (type === 'message_delta' && message) {
      Object.assign(message, own(event, 'delta'));
      message.usage = { ...(message.usage as object), ...(own(event, 'usage') as object) };
    } else if (type === 'error') {
      const error = own(event, 'error');
      throw new Error(
        `The stream sent an error event: ${stringAt(error, 'type') ?? 'error'}: ${stringAt(error, 'message') ?? 'no message'}.`,
      );
    }
  }
  if (!message) throw new ProviderPayloadError('$', 'a message_start event', 'a stream without one');
  for (const [index, text] of json) {
    const block = blocks[index];
    if (!block || text === '') continue;
    try {
      block.input = JSON.parse(text);
    } catch {
      // The call is dispatched with the text as sent (an invalid_json envelope answers it); the
      // transcript keeps an object, which is all the API accepts as `input`.
      block.input = {};
      rawInputs.set(block, text);
    }
  }
  message.content = blocks.filter((block) => block !== undefined);
  return message;
}

/** The text of a streamed `tool_use` input that was not JSON, by block. */
const rawInputs = new WeakMap<object, string>();

function readMessage(message: unknown): ModelTurn<AnthropicMessage> {
  const content = expectArray(own(message, 'content'), '$.content', 'a Message with content blocks');
  const toolUses = content.filter((block) => own(block, 'type') === 'tool_use') as Block[];
  const calls = readAnthropicToolUses(message).map((call, index) => {
    const block = toolUses[index];
    const raw = block ? rawInputs.get(block) : undefined;
    return raw === undefined ? call : { ...call, arguments: raw };
  });
  let text = '';
  for (const block of content) if (own(block, 'type') === 'text') text += stringAt(block, 'text') ?? '';
  return {
    text,
    calls,
    messages: [{ role: 'assistant', content }],
    usage: usageOf(own(message, 'usage'), INPUT_USAGE, ['output_tokens']),
    finishReason: stringAt(message, 'stop_reason'),
    responseModel: stringAt(message, 'model'),
    responseId: stringAt(message, 'id'),
  };
}
