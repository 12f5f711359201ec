import { AsyncLocalStorage } from 'node:async_hooks';
import type { McpRequestContext } from '../mcp/request-context.js';

/** A client's call running on an upstream server: the client's request, and the tool it called there. */
export interface UpstreamCaller {
  /** The client's request (`tools/call`, `prompts/get`, `resources/read`); undefined when it did not come over MCP. */
  readonly context: McpRequestContext | undefined;
  /** What the request reached on the server: a tool's or a prompt's name, a resource's URI. */
  readonly remoteName: string;
}

/**
 * Whom an upstream's request or notification is for: the client call it serves, nobody (it came
 * outside any call), or nobody either because calls of several clients run on the server at once and
 * nothing says which one it serves.
 */
export type CallerRoute =
  | { readonly kind: 'call'; readonly caller: UpstreamCaller }
  | { readonly kind: 'none' }
  | { readonly kind: 'ambiguous' };

/**
 * Who a message of an upstream is for, given the call it was sent under when that is known (an HTTP
 * or 2026-07-28 server answers within the call's own exchange) and the calls running on the server.
 * A legacy stdio server says nothing of the call it serves: the message is for the running calls'
 * client when they all come from one client connection, never a guess between two clients.
 *
 * @example
 * callerRoute(undefined, [call]); // { kind: 'call', caller: call }
 */
export function callerRoute(
  known: UpstreamCaller | undefined,
  running: readonly UpstreamCaller[],
): CallerRoute {
  if (known && running.includes(known)) return { kind: 'call', caller: known };
  const newest = running.at(-1);
  if (!newest) return { kind: 'none' };
  const connection = newest.context?.connection;
  const oneClient =
    connection !== undefined && running.every((call) => call.context?.connection === connection);
  return running.length === 1 || oneClient ? { kind: 'call', caller: newest } : { kind: 'ambiguous' };
}

/**
 * The client calls running on one upstream server, so that what the server sends back while it works
 * (sampling, elicitation, roots, progress, logs) reaches the client that made the call, and nobody else.
 *
 * @example
 * const callers = new UpstreamCallers();
 * await callers.run({ context, remoteName: 'echo' }, () => client.callTool(...));
 * callers.route(); // inside a handler the SDK calls for that call
 */
export class UpstreamCallers {
  readonly #current = new AsyncLocalStorage<UpstreamCaller>();
  readonly #running: UpstreamCaller[] = [];

  /** Runs `send` as `caller`'s call until it settles. */
  async run<T>(caller: UpstreamCaller, send: () => Promise<T>): Promise<T> {
    this.#running.push(caller);
    try {
      return await this.#current.run(caller, send);
    } finally {
      this.#running.splice(this.#running.indexOf(caller), 1);
    }
  }

  /** Whom a message the server sends now is for. */
  route(): CallerRoute {
    return callerRoute(this.#current.getStore(), this.#running);
  }
}
