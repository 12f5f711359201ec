/** Where `toolpact approvals` reads and decides: the store directly, or a server's approvals API. */
import { isLoopbackHost } from '../mcp/origin-check.js';
import type { Approval, PostgresStore } from '../store/index.js';
import { InputError, UsageError } from './io.js';

/** The approvals, wherever they are read from. */
export interface ApprovalSource {
  list(options: { readonly status: Approval['status'] | 'all'; readonly limit: number }): Promise<Approval[]>;
  /** Undefined when there is no such approval. */
  get(id: string): Promise<Approval | undefined>;
  /** Throws {@link DecisionRefused} when the approval cannot be decided (unknown, final, not allowed). */
  decide(
    id: string,
    action: 'approve' | 'deny',
    decision: { readonly by?: string; readonly reason?: string },
  ): Promise<Approval>;
  close(): Promise<void>;
}

/** The approval cannot be decided: unknown, no longer pending, or the decider is not allowed (exit 1). */
export class DecisionRefused extends Error {
  override readonly name = 'DecisionRefused';
}

/** The environment variable a credential is read from by default. */
export const TOKEN_VARIABLE = 'TOOLPACT_TOKEN';
/** Longest wait for a server's answer, in milliseconds. */
export const TIMEOUT_MS = 30_000;

/** The store at a `postgres://` URL, decided on as the local process. */
export async function storeSource(url: string): Promise<ApprovalSource> {
  const { openPostgresStore, StoreError } = await import('../store/index.js');
  let store: PostgresStore;
  try {
    store = await openPostgresStore(url, { poolSize: 1 });
  } catch (error) {
    if (error instanceof StoreError) throw new UsageError(error.message);
    throw error;
  }
  const refused = (error: unknown): never => {
    if (error instanceof StoreError && ['not_found', 'not_pending', 'not_allowed'].includes(error.code)) {
      throw new DecisionRefused(error.message);
    }
    if (error instanceof StoreError) throw new UsageError(error.message);
    throw error;
  };
  return {
    list: (options) => store.approvals.list(options).catch(refused),
    get: (id) => store.approvals.get(id).catch(refused),
    decide: (id, action, decision) =>
      (action === 'approve'
        ? store.approvals.approve(id, decision)
        : store.approvals.deny(id, decision)
      ).catch(refused),
    close: () => store.close(),
  };
}

/**
 * A server's approvals API, `<MCP endpoint URL>/approvals`, with the credential (an access token or
 * an API key) read from the environment variable `variable`: the decider is who it authenticates as.
 */
export function serverSource(
  server: string,
  variable: string,
  env: { readonly [name: string]: string | undefined },
): ApprovalSource {
  const endpoint = endpointOf(server);
  const credential = credentialOf(variable, env);
  const base = `${endpoint.href.replace(/\/+$/, '')}/approvals`;
  const request = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const target = `${base}${path}`;
    let response: Response;
    try {
      response = await fetch(target, {
        method: init.method ?? 'GET',
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
        headers: {
          authorization: `Bearer ${credential}`,
          accept: 'application/json',
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    } catch (error) {
      throw new InputError(
        `Cannot reach ${target}: ${reasonOf(error)}. Check that the server runs there and that --server is its MCP endpoint URL (e.g. https://tools.example.com/mcp).`,
      );
    }
    const text = await response.text();
    if (response.ok) return JSON.parse(text) as unknown;
    throw answerError(response, text, target, variable);
  };
  return {
    async list({ status, limit }) {
      const body = (await request(`?status=${status}&limit=${limit}`)) as { approvals: Approval[] };
      return body.approvals;
    },
    async get(id) {
      try {
        return (await request(`/${encodeURIComponent(id)}`)) as Approval;
      } catch (error) {
        if (error instanceof DecisionRefused) return undefined;
        throw error;
      }
    },
    async decide(id, action, decision) {
      return (await request(`/${encodeURIComponent(id)}/${action}`, {
        method: 'POST',
        body: decision.reason === undefined ? {} : { reason: decision.reason },
      })) as Approval;
    },
    close: async () => {},
  };
}

/**
 * The credential (an access token or a toolpact API key) in the environment variable `variable`, for
 * the server `flag` names; a usage error when it is unset or empty. Never read from the command line.
 */
export function credentialOf(
  variable: string,
  env: { readonly [name: string]: string | undefined },
  flag = '--server',
): string {
  const credential = env[variable]?.trim();
  if (!credential) {
    throw new UsageError(
      `${flag} needs a credential, and ${variable} is ${env[variable] === undefined ? 'not set' : 'empty'}. Set ${variable} to an access token for the server (or a toolpact API key, tpk_…); it is read from the environment, never from the command line.`,
    );
  }
  return credential;
}

/** The MCP endpoint URL given to `flag`, checked: http(s), and https unless it is on loopback. */
export function endpointOf(server: string, flag = '--server'): URL {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new UsageError(
      `${flag} takes the server's MCP endpoint URL, such as https://tools.example.com/mcp, received "${server}".`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${flag} takes an https:// URL, received a ${url.protocol.replace(/:$/, '')} URL.`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `${flag} ${url.origin} is plain http to a host that is not loopback: the credential would cross the network readable. Give the server's https:// URL.`,
    );
  }
  if (url.search || url.hash) {
    throw new UsageError(
      `${flag} takes the MCP endpoint URL without a query or fragment, received "${server}".`,
    );
  }
  return url;
}

// What an error answer means for the person at the terminal: exit 1 for what cannot be decided, 2 else.
function answerError(response: Response, text: string, target: string, variable: string): Error {
  const { type, said } = problemOf(text);
  const status = response.status;
  if (type === 'unknown_approval' || type === 'not_pending' || type === 'not_allowed') {
    return new DecisionRefused(said ?? `${status} ${type}`);
  }
  if (status === 401) {
    return new InputError(
      `${target} refused the credential in ${variable} (401${type ? ` ${type}` : ''}): ${said ?? 'no reason given'} Set ${variable} to a valid access token for this server (its audience is the server's resource URI) or a toolpact API key.`,
    );
  }
  if (status === 403 && type === 'insufficient_scope') {
    return new InputError(
      `${target} refused the credential in ${variable}: ${said ?? 'a scope is missing'} Get a token with the scopes named.`,
    );
  }
  return otherRefusal(response, type, said, {
    target,
    flag: '--server',
    speaker: "toolpact's approvals API",
  });
}

/** The `{ error: { type, message } }` body of a toolpact HTTP API's error answer, as far as it is one. */
export function problemOf(text: string): { readonly type?: string; readonly said?: string } {
  let problem: { type?: unknown; message?: unknown } | undefined;
  try {
    problem = (JSON.parse(text) as { error?: { type?: unknown; message?: unknown } }).error;
  } catch {}
  return {
    ...(typeof problem?.type === 'string' ? { type: problem.type } : {}),
    ...(typeof problem?.message === 'string' ? { said: problem.message } : {}),
  };
}

/**
 * An error answer no caller reads in its own way: a redirect (the credential is not sent on), an
 * answer that is not a toolpact API's, or a problem said as it came.
 */
export function otherRefusal(
  response: Response,
  type: string | undefined,
  said: string | undefined,
  asked: { readonly target: string; readonly flag: string; readonly speaker: string },
): Error {
  const status = response.status;
  if (status >= 300 && status < 400) {
    return new InputError(
      `${asked.target} answered a redirect (${status}) to ${response.headers.get('location') ?? 'nowhere'}; the credential is not sent on. Give the URL it redirects to as ${asked.flag}.`,
    );
  }
  if (type === undefined) {
    return new InputError(
      `${asked.target} answered ${status} ${response.statusText}, not as ${asked.speaker}: give the server's MCP endpoint URL as ${asked.flag} (e.g. https://tools.example.com/mcp), the one MCP clients use.`,
    );
  }
  return new InputError(`${asked.target} answered ${status} ${type}: ${said ?? 'no reason given'}`);
}

/** Why a request got no answer, in a few words (a timeout, the connection's error code). */
export function reasonOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError')
    return `no answer within ${TIMEOUT_MS / 1000} s`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
