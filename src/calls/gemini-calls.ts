import type { Registry } from '../registry/registry.js';
import { describePayload, expectString, own, ProviderPayloadError } from '../schema/payload-error.js';
import {
  type CallOutcome,
  dispatchProviderCalls,
  type ProviderCall,
  type RunCallsOptions,
} from './dispatch-calls.js';

/** A `functionResponse` part: `response.output` on success, `response.error` on failure. */
export interface GeminiFunctionResponsePart {
  readonly functionResponse: {
    readonly id?: string;
    readonly name: string;
    readonly response: { readonly output: unknown } | { readonly error: unknown };
  };
}

/** The content carrying the responses back. */
export interface GeminiFunctionResponseContent {
  readonly role: 'user';
  readonly parts: GeminiFunctionResponsePart[];
}

/**
 * The `functionCall` parts of a Gemini answer: a `GenerateContentResponse` (its first candidate), a
 * `Content`, its `parts`, or the SDK's `functionCalls` list.
 *
 * @example
 * const calls = readGeminiFunctionCalls(await ai.models.generateContent({ model, contents, config: { tools } }));
 */
export function readGeminiFunctionCalls(response: unknown): ProviderCall[] {
  let path = '$';
  let content: unknown = response;
  const candidates = own(response, 'candidates');
  if (candidates !== undefined) {
    if (!Array.isArray(candidates))
      throw new ProviderPayloadError('$.candidates', 'an array of candidates', describePayload(candidates));
    if (candidates.length === 0) return [];
    content = own(candidates[0], 'content');
    path = '$.candidates[0].content';
    if (content === undefined) return [];
  }
  const parts = Array.isArray(content) ? content : own(content, 'parts');
  if (!Array.isArray(content)) path = `${path}.parts`;
  if (parts === undefined && content !== null && typeof content === 'object' && !Array.isArray(content))
    return [];
  if (!Array.isArray(parts)) {
    throw new ProviderPayloadError(
      path,
      'a GenerateContentResponse, a Content or its parts',
      describePayload(content),
    );
  }
  const calls: ProviderCall[] = [];
  for (const [index, part] of parts.entries()) {
    // The SDK's `response.functionCalls` lists the calls themselves; a part wraps one in `functionCall`.
    const call = own(part, 'functionCall') ?? (own(part, 'name') !== undefined ? part : undefined);
    if (call === undefined) continue;
    const at =
      own(part, 'functionCall') === undefined ? `${path}[${index}]` : `${path}[${index}].functionCall`;
    const id = own(call, 'id');
    calls.push({
      id: typeof id === 'string' ? id : undefined,
      name: expectString(own(call, 'name'), `${at}.name`, 'the function name (a string)'),
      arguments: own(call, 'args'),
    });
  }
  return calls;
}

/**
 * One `functionResponse` part per outcome, with the call's id and name; failures under `error`.
 *
 * @example
 * const content = toGeminiFunctionResponses(await dispatchProviderCalls(registry, readGeminiFunctionCalls(response), 'gemini'));
 */
export function toGeminiFunctionResponses(outcomes: readonly CallOutcome[]): GeminiFunctionResponseContent {
  return {
    role: 'user',
    parts: outcomes.map((outcome) => {
      const { envelope } = outcome;
      const response = envelope.ok
        ? {
            output: envelope.truncated
              ? { value: envelope.result, truncated: envelope.truncated }
              : envelope.result,
          }
        : { error: envelope.error };
      return {
        functionResponse: {
          ...(outcome.call.id !== undefined ? { id: outcome.call.id } : {}),
          name: outcome.call.name,
          response,
        },
      };
    }),
  };
}

/**
 * Reads the `functionCall` parts, runs them and answers with the `functionResponse` content.
 *
 * @example
 * contents.push(response.candidates[0].content, await runGeminiFunctionCalls(registry, response));
 */
export async function runGeminiFunctionCalls(
  registry: Registry,
  response: unknown,
  options?: RunCallsOptions,
): Promise<GeminiFunctionResponseContent> {
  return toGeminiFunctionResponses(
    await dispatchProviderCalls(registry, readGeminiFunctionCalls(response), 'gemini', options),
  );
}
