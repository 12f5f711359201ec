import type { McpAsked, McpElicitationRequest, McpSamplingRequest } from '../mcp/connect.js';
import type { UpstreamOptions } from './upstream-types.js';

/** What the gateway sends again with each round of a revision 2026-07-28 server's questions. */
export interface RoundParams {
  readonly inputResponses?: Record<string, unknown>;
  readonly requestState?: string;
}

/** An `input_required` result, as a request sent with `allowInputRequired` may answer. */
interface InputRequiredAnswer {
  readonly resultType: 'input_required';
  readonly inputRequests?: Record<string, unknown>;
  readonly requestState?: string;
}

/** The most rounds of questions one request may take before the gateway gives it up. */
export const MAX_UPSTREAM_ROUNDS = 16;

type Handlers = Pick<UpstreamOptions, 'onElicitation' | 'onSampling' | 'onRoots'>;

/**
 * Sends a request to a revision 2026-07-28 server and answers its questions round by round, as the
 * SDK's own loop would, but within the client's request that caused them: each question (elicitation,
 * sampling, roots) goes to `handlers` under the key the server asked it with, so that it reaches the
 * client whose request it serves and travels on under the same key. `send` sends the request with a
 * round's answers and the server's `requestState`.
 *
 * @example
 * const result = await withUpstreamRounds('tools/call echo', handlers, (round) =>
 *   client.callTool({ name: 'echo', arguments: {}, ...round }, { allowInputRequired: true }));
 */
export async function withUpstreamRounds<T>(
  what: string,
  handlers: Handlers,
  send: (round: RoundParams) => Promise<unknown>,
): Promise<T> {
  let round: RoundParams = {};
  for (let count = 0; count < MAX_UPSTREAM_ROUNDS; count += 1) {
    const answer = await send(round);
    if (!isInputRequired(answer)) return answer as T;
    const requests = Object.entries(answer.inputRequests ?? {});
    const responses = await Promise.all(
      requests.map(async ([key, entry]) => [key, await answerOne(handlers, key, entry)] as const),
    );
    round = {
      ...(responses.length > 0 ? { inputResponses: Object.fromEntries(responses) } : {}),
      ...(typeof answer.requestState === 'string' ? { requestState: answer.requestState } : {}),
    };
  }
  throw new Error(
    `${what} still asked for input after ${MAX_UPSTREAM_ROUNDS} rounds, so the gateway gave it up; the server may be asking in a loop.`,
  );
}

function isInputRequired(value: unknown): value is InputRequiredAnswer {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { resultType?: unknown }).resultType === 'input_required'
  );
}

/** One question of a round, answered by its handler; a question the gateway cannot answer fails the request. */
async function answerOne(handlers: Handlers, key: string, entry: unknown): Promise<unknown> {
  const { method, params } = (entry ?? {}) as { method?: unknown; params?: unknown };
  const asked: McpAsked = { key };
  switch (method) {
    case 'elicitation/create':
      if (!handlers.onElicitation) break;
      try {
        return await handlers.onElicitation(params as McpElicitationRequest, asked);
      } catch {
        // As for a pushed request: a handler that fails reads to the server as the user dismissing it.
        return { action: 'cancel' };
      }
    case 'sampling/createMessage':
      if (!handlers.onSampling) break;
      return handlers.onSampling(params as McpSamplingRequest, asked);
    case 'roots/list':
      if (!handlers.onRoots) break;
      return handlers.onRoots(asked);
    default:
      break;
  }
  throw new Error(
    `The server asked ${typeof method === 'string' ? method.slice(0, 60) : 'something that is not a request'} (input "${key.slice(0, 64)}"), which the gateway did not declare it can answer.`,
  );
}
