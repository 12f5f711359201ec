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

/** A Responses API `function_call_output` input item. */
export interface ResponsesFunctionCallOutput {
  readonly type: 'function_call_output';
  readonly call_id: string;
  readonly output: string;
}

/**
 * The `function_call` items of a Responses API answer: a `Response` (its `output`) or an item list.
 * Other items (messages, reasoning) are skipped.
 *
 * @example
 * const calls = readResponsesFunctionCalls(await openai.responses.create({ model, input, tools }));
 */
export function readResponsesFunctionCalls(response: unknown): ProviderCall[] {
  const items = Array.isArray(response) ? response : own(response, 'output');
  const path = Array.isArray(response) ? '$' : '$.output';
  if (!Array.isArray(items))
    throw new ProviderPayloadError(path, 'a Response or its output items', describePayload(response));
  const calls: ProviderCall[] = [];
  for (const [index, item] of expectArray(items, path, 'an array of output items').entries()) {
    if (own(item, 'type') !== 'function_call') continue;
    const at = `${path}[${index}]`;
    calls.push({
      id: expectString(own(item, 'call_id'), `${at}.call_id`, 'the call id (a string)'),
      name: expectString(own(item, 'name'), `${at}.name`, 'the function name (a string)'),
      arguments: own(item, 'arguments'),
    });
  }
  return calls;
}

/**
 * One `function_call_output` item per outcome; the output is the envelope's JSON.
 *
 * @example
 * const items = toResponsesFunctionCallOutputs(await dispatchProviderCalls(registry, calls, 'openai-responses'));
 */
export function toResponsesFunctionCallOutputs(
  outcomes: readonly CallOutcome[],
): ResponsesFunctionCallOutput[] {
  return outcomes.map((outcome) => ({
    type: 'function_call_output',
    call_id: outcome.call.id ?? '',
    output: outcome.text,
  }));
}

/**
 * Reads the calls of a Responses answer, runs them and answers with the items for the next `input`.
 *
 * @example
 * input.push(...response.output, ...(await runResponsesFunctionCalls(registry, response, { strict: true })));
 */
export async function runResponsesFunctionCalls(
  registry: Registry,
  response: unknown,
  options?: RunCallsOptions,
): Promise<ResponsesFunctionCallOutput[]> {
  return toResponsesFunctionCallOutputs(
    await dispatchProviderCalls(registry, readResponsesFunctionCalls(response), 'openai-responses', options),
  );
}
