import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authenticator } from '../auth/authenticator.js';
import type { Principal } from '../dispatch/principal.js';
import type { DeciderCondition } from '../policy/policy.js';
import { firstHeader } from '../util/http-text.js';
import { json, problem, refuseAuth } from './http-problem.js';
import { readJsonBody } from './json-body.js';
import { checkRequestOrigin, type OriginPolicy } from './origin-check.js';

/** The statuses an approval passes through, and `all` for a listing of every one. */
export type ServedApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'used';

/** What the approvals API reads of an approval; the rest of it is answered as the store gives it. */
export interface ServedApproval {
  readonly id: string;
  /** Who asked (`auth:<subject>@<issuer>`, or `local`). */
  readonly principal: string;
  readonly status: ServedApprovalStatus;
  /** Who may decide it: its rule's `decidedBy`, when the rule has one. */
  readonly deciders?: DeciderCondition;
}

/**
 * The approval queue the approvals API serves: `store.approvals` of `openPostgresStore` (in
 * `toolpact/store`). A decision carries the signed-in decider, which the store checks against the
 * approval's `decidedBy` (refusing with a `StoreError` whose code is `not_allowed`, and recording it).
 */
export interface ApprovalsApiStore {
  list(options?: {
    readonly status?: ServedApprovalStatus | 'all';
    readonly limit?: number;
  }): Promise<readonly ServedApproval[]>;
  get(id: string): Promise<ServedApproval | undefined>;
  approve(
    id: string,
    decision: { readonly reason?: string; readonly decider?: Principal },
  ): Promise<ServedApproval>;
  deny(
    id: string,
    decision: { readonly reason?: string; readonly decider?: Principal },
  ): Promise<ServedApproval>;
}

/** The approvals API as `serveHttp` mounts it beside the MCP endpoint. */
export interface ApprovalsApi {
  /** The path the API is served under: the MCP endpoint's path followed by `/approvals`. */
  readonly prefix: string;
  /** Whether a request path belongs to the API. */
  owns(pathname: string): boolean;
  handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void>;
}

/** What {@link approvalsApi} serves with. */
export interface ApprovalsApiOptions {
  /** The MCP endpoint's path; the API is served under `<path>/approvals`. */
  readonly path: string;
  /** The queue; without one, the API answers 404 `no_store`. */
  readonly store: ApprovalsApiStore | undefined;
  /** The MCP endpoint's authenticator; without one, the API answers 404 `needs_auth`. */
  readonly auth: Authenticator | undefined;
  /** The MCP endpoint's Origin and Host policy (the DNS-rebinding defence). */
  readonly origins: OriginPolicy;
}

/** The largest request body the API reads: a decision is `{ "reason": "…" }`. */
export const APPROVALS_API_MAX_BODY = 16 * 1024;
const MAX_REASON = 2_000;
const MAX_LIMIT = 1_000;
const STATUSES = ['pending', 'approved', 'denied', 'expired', 'used', 'all'] as const;
/** An approval id as the store makes them (`apr_` and base64url), with room for other stores' ids. */
const ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * The approvals API of a serving surface with a store: list, show, approve and deny queued approvals
 * over HTTP, each request authenticated as the MCP endpoint authenticates (the decider is who the
 * request authenticated as). Served only with authentication, so that no anonymous caller decides.
 *
 * - `GET <path>/approvals[?status=…&limit=…]`: `{ "approvals": [ … ] }`, newest first;
 * - `GET <path>/approvals/<id>`: the approval;
 * - `POST <path>/approvals/<id>/approve` and `…/deny` with `{ "reason"?: "…" }`: the decided approval.
 *
 * Errors are `{ "error": { "type", "message" } }`.
 *
 * @example
 * const api = approvalsApi({ path: '/mcp', store: store.approvals, auth, origins: { loopback: true } });
 * if (api.owns(url.pathname)) return api.handle(request, response, url);
 */
export function approvalsApi(options: ApprovalsApiOptions): ApprovalsApi {
  const prefix = `${options.path.replace(/\/+$/, '')}/approvals`;
  const { store, auth } = options;
  const owns = (pathname: string) => pathname === prefix || pathname.startsWith(`${prefix}/`);

  const handle = async (request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> => {
    response.setHeader('Cache-Control', 'no-store');
    const refusal = checkRequestOrigin(
      { host: request.headers.host, origin: firstHeader(request.headers.origin) },
      options.origins,
    );
    if (refusal) return problem(response, refusal.status, refusal.reason, refusal.message);
    if (!store) {
      return problem(
        response,
        404,
        'no_store',
        'This server has no shared store, so it has no approval queue to serve. Start it with --store postgres://… (or TOOLPACT_STORE), or pass store to serveRegistry.',
      );
    }
    if (!auth) {
      return problem(
        response,
        404,
        'needs_auth',
        'The approvals API is served only when requests are authenticated, so that every decision names a signed-in person; this server authenticates no one. Start it with --auth <file> (see docs/auth.md), or decide with toolpact approvals … --store <postgres URL> where the store is reachable.',
      );
    }
    const outcome = await auth.authenticate(firstHeader(request.headers.authorization));
    if (!outcome.ok) return refuseAuth(response, outcome);
    const route = routeOf(url.pathname.slice(prefix.length));
    if (typeof route === 'string') return problem(response, 404, 'not_found', route);
    const method = request.method ?? 'GET';
    const allowed = route.action === undefined ? 'GET, HEAD' : 'POST';
    if (!allowed.split(', ').includes(method)) {
      response.setHeader('Allow', allowed);
      return problem(
        response,
        405,
        'method_not_allowed',
        `${method} is not answered at ${url.pathname}; use ${allowed.replace(', HEAD', '')}.`,
      );
    }
    try {
      if (route.id === undefined) {
        const query = listQuery(url.searchParams);
        if (typeof query === 'string') return problem(response, 400, 'bad_request', query);
        return json(response, 200, { approvals: await store.list(query) });
      }
      if (route.action === undefined) {
        const found = await store.get(route.id);
        return found ? json(response, 200, found) : unknownApproval(response, route.id);
      }
      const decision = await decisionOf(request);
      if (typeof decision !== 'object') {
        if (decision !== 'too_large') return problem(response, 400, 'bad_request', decision);
        // The rest is not read: close once the answer is out, and let what still arrives drain.
        response.setHeader('Connection', 'close');
        request.resume();
        return problem(
          response,
          413,
          'too_large',
          `A decision is at most ${APPROVALS_API_MAX_BODY} bytes; send { "reason": "…" } with a shorter reason.`,
        );
      }
      const decide = route.action === 'approve' ? store.approve : store.deny;
      const decided = await decide.call(store, route.id, { ...decision, decider: outcome.principal });
      return json(response, 200, decided);
    } catch (error) {
      return storeFailure(response, error, route.id);
    }
  };
  return { prefix, owns, handle };
}

type Route = { readonly id?: string; readonly action?: 'approve' | 'deny' };

// `''` is the list, `/<id>` one approval, `/<id>/approve|deny` a decision; anything else is not found.
function routeOf(rest: string): Route | string {
  if (rest === '' || rest === '/') return {};
  const [, id, action, ...extra] = rest.split('/');
  const shown = JSON.stringify(rest.slice(0, 200));
  if (id === undefined || !ID.test(id) || extra.length > 0) {
    return `No approvals resource at ${shown}: use /approvals, /approvals/<id>, or /approvals/<id>/approve or /deny.`;
  }
  if (action === undefined || action === '') return { id };
  if (action !== 'approve' && action !== 'deny') {
    return `No action ${JSON.stringify(action.slice(0, 50))} on an approval: POST /approvals/<id>/approve or /deny.`;
  }
  return { id, action };
}

function listQuery(
  params: URLSearchParams,
): { status: ServedApprovalStatus | 'all'; limit: number } | string {
  const status = params.get('status') ?? 'pending';
  if (!(STATUSES as readonly string[]).includes(status)) {
    return `status takes one of ${STATUSES.join(', ')}, received ${JSON.stringify(status.slice(0, 50))}.`;
  }
  const limit = params.get('limit') ?? '100';
  if (!/^[1-9]\d{0,3}$/.test(limit) || Number(limit) > MAX_LIMIT) {
    return `limit takes a whole number from 1 to ${MAX_LIMIT}, received ${JSON.stringify(limit.slice(0, 50))}.`;
  }
  for (const name of params.keys()) {
    if (name !== 'status' && name !== 'limit') {
      return `Unknown query parameter ${JSON.stringify(name.slice(0, 50))}: the list takes status and limit.`;
    }
  }
  return { status: status as ServedApprovalStatus | 'all', limit: Number(limit) };
}

// The body of a decision: a JSON object with an optional reason. Who decides is never in it.
async function decisionOf(request: IncomingMessage): Promise<{ reason?: string } | string> {
  const type = firstHeader(request.headers['content-type']) ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    return `Send the decision as Content-Type: application/json, received ${JSON.stringify(type.slice(0, 100) || 'none')}; the body is { "reason"?: "…" } ({} for none).`;
  }
  const read = await readJsonBody(request, { maxBytes: APPROVALS_API_MAX_BODY, maxDepth: 4 });
  if (!read.ok) {
    if (read.reason === 'too_large') return 'too_large';
    return 'The body is not a JSON object; send { "reason"?: "…" } ({} for none).';
  }
  const body = read.value;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return `The body must be a JSON object such as { "reason": "release window" }, received ${Array.isArray(body) ? 'an array' : body === null ? 'null' : typeof body}.`;
  }
  for (const key of Object.keys(body)) {
    if (key === 'by' || key === 'decider') {
      return `"${key}" is not taken: the decider is who the request authenticated as. Leave it out.`;
    }
    if (key !== 'reason')
      return `Unknown key ${JSON.stringify(key.slice(0, 50))}: a decision takes "reason" only.`;
  }
  const reason = (body as { reason?: unknown }).reason;
  if (reason === undefined) return {};
  if (typeof reason !== 'string' || reason.length > MAX_REASON) {
    return `"reason" is text of at most ${MAX_REASON} characters, received ${typeof reason === 'string' ? `${reason.length} characters` : typeof reason}.`;
  }
  return { reason };
}

// A store error as the API answers it. Anything else failed reading or writing the store: a 503
// that says nothing of the server.
function storeFailure(response: ServerResponse, error: unknown, id: string | undefined): void {
  const code =
    error instanceof Error && error.name === 'StoreError' ? (error as { code?: unknown }).code : undefined;
  const message = error instanceof Error ? error.message : '';
  if (code === 'not_allowed') problem(response, 403, 'not_allowed', message);
  else if (code === 'not_pending') problem(response, 409, 'not_pending', message);
  else if (code === 'not_found') unknownApproval(response, id ?? '');
  else {
    response.setHeader('Retry-After', '5');
    problem(
      response,
      503,
      'store_unavailable',
      'The approvals could not be read or written in the shared store just now. Try again in a moment; if it persists, the server operator should check the store.',
    );
  }
}

function unknownApproval(response: ServerResponse, id: string): void {
  problem(
    response,
    404,
    'unknown_approval',
    `There is no approval "${id}". List the pending ones with GET …/approvals (toolpact approvals list --server <url>).`,
  );
}
