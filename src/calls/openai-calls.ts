import type { Registry } from '../registry/registry.js';
import {
  describePayload,
  expectArray,
  expectString,
  own,
  ProviderPayloadError,
} from '../schema/payload-error.js';
import {
  type CallOutcome,
  dispatchProviderCalls,
  type ProviderCall,
  type RunCallsOptions,
} from './dispatch-calls.js';

/** A Chat Completions `tool` message answering one call. */
export interface OpenAIToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
}

/**
 * The tool calls of a Chat Completions answer: a `ChatCompletion` (its first choice), an assistant
 * message, or its `tool_calls` array. `arguments` stay the JSON strings the model wrote.
 * A payload of another shape throws {@link ProviderPayloadError}.
 *
 * @example
 * const calls = readOpenAIToolCalls(await openai.chat.completions.create({ model, messages, tools }));
 */
export function readOpenAIToolCalls(response: unknown): ProviderCall[] {
  let path = '$';
  let message: unknown = response;
  if (own(response, 'choices') !== undefined) {
    const choices = expectArray(own(response, 'choices'), '$.choices', 'an array of choices');
    if (choices.length === 0) return [];
    message = own(choices[0], 'message');
    path = '$.choices[0].message';
    if (message === undefined) throw new ProviderPayloadError(path, 'the assistant message', 'nothing');
  }
  let list: unknown = message;
  if (!Array.isArray(message)) {
    if (message === null || typeof message !== 'object') {
      throw new ProviderPayloadError(
        path,
        'a ChatCompletion, an assistant message or its tool_calls',
        describePayload(message),
      );
    }
    list = own(message, 'tool_calls');
    path = `${path}.tool_calls`;
    if (list === undefined || list === null) return [];
  }
  return expectArray(list, path, 'an array of tool calls').map((entry, index) => {
    const at = `${path}[${index}]`;
    const type = own(entry, 'type');
    if (type !== undefined && type !== 'function') {
      throw new ProviderPayloadError(
        `${at}.type`,
        '"function" (other tool call types are not dispatched here)',
        describePayload(type),
      );
    }
    const fn = own(entry, 'function');
    if (fn === null || typeof fn !== 'object')
      throw new ProviderPayloadError(
        `${at}.function`,
        'an object with name and arguments',
        describePayload(fn),
      );
    return {
      id: expectString(own(entry, 'id'), `${at}.id`, 'the call id (a string)'),
      name: expectString(own(fn, 'name'), `${at}.function.name`, 'the function name (a string)'),
      arguments: own(fn, 'arguments'),
    };
  });
}

/**
 * One `tool` message per outcome, in the order of the calls; the content is the envelope's JSON.
 *
 * @example
 * const messages = toOpenAIToolMessages(await dispatchProviderCalls(registry, readOpenAIToolCalls(completion), 'openai'));
 */
export function toOpenAIToolMessages(outcomes: readonly CallOutcome[]): OpenAIToolMessage[] {
  return outcomes.map((outcome) => ({
    role: 'tool',
    tool_call_id: outcome.call.id ?? '',
    content: outcome.text,
  }));
}

/**
 * Reads the calls of a Chat Completions answer, runs them through the registry and answers with the
 * `tool` messages to append. Pass `strict: true` when the tools were sent in strict mode.
 *
 * @example
 * messages.push(completion.choices[0].message, ...(await runOpenAIToolCalls(registry, completion, { strict: true })));
 */
export async function runOpenAIToolCalls(
  registry: Registry,
  response: unknown,
  options?: RunCallsOptions,
): Promise<OpenAIToolMessage[]> {
  return toOpenAIToolMessages(
    await dispatchProviderCalls(registry, readOpenAIToolCalls(response), 'openai', options),
  );
}
