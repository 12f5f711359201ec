import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolDefinitionError } from '../errors/index.js';
import { json, problem, refuseAuth } from '../mcp/http-problem.js';
import type { HttpRoute, HttpRouteContext } from '../mcp/http-route.js';
import { type McpOAuth, McpSignInError, StoredOAuthProvider } from '../mcp/oauth/oauth-provider.js';
import { checkRequestOrigin } from '../mcp/origin-check.js';
import { cookieValue, escapeHtml, firstHeader } from '../util/http-text.js';
import { upstreamPrincipalId } from './principal-upstreams.js';
import { type PendingRefusal, PendingSignIns } from './team-signin-pending.js';

/** A remote server people sign in to through the team gateway. */
export interface TeamSignInServer {
  /** The server's URL (Streamable HTTP): its protected resource metadata leads to its authorization server. */
  readonly url: string | URL;
  /** Its OAuth settings, the same as the connection pool's (`server` is the name sign-ins are kept under). */
  readonly auth: Omit<McpOAuth, 'principal' | 'signIn'>;
}

/** Options of {@link teamSignIn}. */
export interface TeamSignInOptions {
  /** The MCP endpoint's path (e.g. `/mcp`); the link is served under `<path>/signin`. */
  readonly path: string;
  /**
   * The MCP endpoint's public URL (e.g. `https://tools.example.com/mcp`); the authorization server
   * sends the browser back to `<publicUrl>/signin/callback`. Default: the auth configuration's
   * `resource`, which is that URL.
   */
  readonly publicUrl?: string;
  /** The servers, by the gateway's name for each. */
  readonly servers: { readonly [name: string]: TeamSignInServer };
  /** How long a sign-in may take, from the link to the callback, in milliseconds. Default 600,000. */
  readonly ttlMs?: number;
  /** The most sign-ins under way at once; past it the oldest is dropped. Default 1,000. */
  readonly maxPending?: number;
  /** The clock, in milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

const CALLBACK = 'callback';
const HANDLE = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * The team sign-in link, served beside a team gateway's MCP endpoint (an {@link HttpRoute}): each
 * person signs in to a remote server as themselves, and their tokens are kept under their own
 * principal, for the connection pool to use on their calls only.
 *
 * - `GET|POST <path>/signin/<server>`, authenticated as MCP requests are: starts the authorization
 *   code flow with PKCE for the caller, keeping the verifier and `state` in the token store under
 *   the caller's principal. Answers `{ server, url, expiresAt }`, or a 303 to `url` for a browser;
 * - `GET <url>` (`<path>/signin/<server>/go/<handle>`), once: sets a one-time `HttpOnly` cookie in
 *   the browser that follows it, and sends it on to the authorization server;
 * - `GET <path>/signin/callback`: completes the sign-in, once, only in that browser and before it
 *   expires; the `iss` of the answer is checked (RFC 9207) and the code redeemed.
 *
 * No answer carries a token. Sign-ins under way are kept in this process: in a fleet, the callback
 * must reach the replica that started the sign-in.
 *
 * @example
 * const link = teamSignIn({ path: '/mcp', servers: { linear: { url, auth: { store, server: 'linear', clientId } } } });
 * await serveHttp(registry, { auth, routes: [link] });
 */
export function teamSignIn(options: TeamSignInOptions): HttpRoute {
  for (const name of Object.keys(options.servers)) {
    if (name === CALLBACK || name === '') {
      throw new ToolDefinitionError(
        'invalid_option',
        `A server named ${JSON.stringify(name)} cannot have a sign-in link: <path>/signin/callback is where sign-ins come back. Rename the server.`,
      );
    }
  }
  const prefix = `${options.path.replace(/\/+$/, '')}/signin`;
  const now = options.now ?? Date.now;
  const pending = new PendingSignIns(options.ttlMs ?? 600_000, options.maxPending ?? 1_000, now);
  const link: Link = { options, now, pending };
  const owns = (pathname: string) => pathname.startsWith(`${prefix}/`);

  const handle = async (
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    context: HttpRouteContext,
  ): Promise<void> => {
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('Referrer-Policy', 'no-referrer');
    const refusal = checkRequestOrigin(
      { host: request.headers.host, origin: firstHeader(request.headers.origin) },
      context.origins,
    );
    if (refusal) return problem(response, refusal.status, refusal.reason, refusal.message);
    const publicUrl = (options.publicUrl ?? context.auth?.config.resource)?.replace(/\/+$/, '');
    if (!context.auth || !publicUrl) {
      return problem(
        response,
        404,
        'needs_auth',
        'Sign-ins through the gateway are served only when the gateway authenticates its callers (--auth <file>, see docs/auth.md), so that each sign-in is kept for the person who made it. Without it, sign in with toolpact gateway login <server> on the gateway machine.',
      );
    }
    const route = routeOf(decodeSegments(url.pathname.slice(prefix.length + 1)));
    const method = request.method ?? 'GET';
    const allowed = route?.kind === 'start' ? ['GET', 'POST'] : ['GET'];
    if (route && !allowed.includes(method)) {
      response.setHeader('Allow', allowed.join(', '));
      return problem(
        response,
        405,
        'method_not_allowed',
        `${method} is not answered here; use ${allowed.join(' or ')}.`,
      );
    }
    const server = route && route.kind !== 'callback' ? ownServer(options.servers, route.server) : undefined;
    if (!route || (route.kind !== 'callback' && !server)) {
      const names = Object.keys(options.servers).sort().join(', ') || 'none';
      return problem(
        response,
        404,
        'not_found',
        `No sign-in at this path. Start one at ${prefix}/<server>, where <server> is one of: ${names}.`,
      );
    }
    const callbackUrl = `${publicUrl}/signin/${CALLBACK}`;
    if (route.kind === 'start') {
      const outcome = await context.auth.authenticate(firstHeader(request.headers.authorization));
      if (!outcome.ok) return refuseAuth(response, outcome);
      return start(link, request, response, {
        name: route.server,
        server: server!,
        principal: upstreamPrincipalId(outcome.principal),
        callbackUrl,
        linkBase: `${publicUrl}/signin/${encodeURIComponent(route.server)}/go/`,
      });
    }
    if (route.kind === 'go') return follow(link, response, route.server, route.handle, callbackUrl);
    return complete(link, request, response, url.searchParams, callbackUrl);
  };
  return { owns, handle };
}

/** What the link's steps share. */
interface Link {
  readonly options: TeamSignInOptions;
  readonly now: () => number;
  readonly pending: PendingSignIns;
}

/** Starts a sign-in for the authenticated caller: answers the link that sends a browser on. */
async function start(
  link: Link,
  request: IncomingMessage,
  response: ServerResponse,
  run: {
    name: string;
    server: TeamSignInServer;
    principal: string;
    callbackUrl: string;
    linkBase: string;
  },
): Promise<void> {
  const { provider, serverUrl } = providerFor(run.server, run.principal, run.callbackUrl);
  try {
    const { auth } = await import('@modelcontextprotocol/client');
    // A new sign-in, even for a person who has one: `gateway login` is how a person switches accounts.
    await auth(provider, { serverUrl, forceReauthorization: true });
  } catch (error) {
    return problem(response, 502, 'signin_failed', signInFailure(run.name, error));
  }
  const authorizationUrl = provider.pendingAuthorization;
  const state = authorizationUrl?.searchParams.get('state');
  if (!authorizationUrl || !state) {
    return problem(
      response,
      502,
      'signin_failed',
      `The MCP server ${run.name} did not lead to an authorization server that takes a browser sign-in. Check its URL in the gateway config.`,
    );
  }
  const added = link.pending.add({ server: run.name, principal: run.principal, state, authorizationUrl });
  const followUrl = `${run.linkBase}${added.handle}`;
  const accept = firstHeader(request.headers.accept) ?? '';
  if (/text\/html/i.test(accept) && !/application\/json/i.test(accept)) {
    response.writeHead(303, { Location: followUrl }).end();
    return;
  }
  json(response, 200, {
    server: run.name,
    url: followUrl,
    expiresAt: new Date(added.expiresAt).toISOString(),
  });
}

/** Follows a link, once: binds the sign-in to this browser with a cookie, and sends it on. */
function follow(
  link: Link,
  response: ServerResponse,
  name: string,
  handle: string,
  callbackUrl: string,
): void {
  const followed = link.pending.follow(handle, name);
  if (typeof followed === 'string') {
    page(response, followed === 'expired' ? 410 : 404, refusedText(followed, name));
    return;
  }
  const maxAge = Math.max(1, Math.ceil((followed.pending.expiresAt - link.now()) / 1_000));
  const secure = callbackUrl.startsWith('https:') ? '; Secure' : '';
  response.setHeader(
    'Set-Cookie',
    `${followed.pending.cookie}=${followed.secret}; Path=${new URL(callbackUrl).pathname}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`,
  );
  response.writeHead(303, { Location: followed.pending.authorizationUrl.href }).end();
}

/** Completes a sign-in, once, in the browser that followed its link: redeems the code. */
async function complete(
  link: Link,
  request: IncomingMessage,
  response: ServerResponse,
  params: URLSearchParams,
  callbackUrl: string,
): Promise<void> {
  const state = params.get('state');
  const taken =
    state === null
      ? 'unknown'
      : link.pending.take(state, (name) => cookieValue(request.headers.cookie, name));
  if (typeof taken === 'string')
    return page(response, taken === 'unbound' ? 403 : 400, refusedText(taken, undefined));
  response.setHeader(
    'Set-Cookie',
    `${taken.cookie}=; Path=${new URL(callbackUrl).pathname}; Max-Age=0; HttpOnly; SameSite=Lax`,
  );
  const server = ownServer(link.options.servers, taken.server);
  const refused = params.get('error');
  const code = params.get('code');
  if (!server || refused !== null || code === null) {
    const said = refused === null ? 'no code' : `"${refused.slice(0, 100)}"`;
    return page(
      response,
      400,
      `The authorization server answered ${said}, so you are not signed in to ${taken.server}. Start again: toolpact gateway login ${taken.server} --gateway <gateway URL>.`,
    );
  }
  const { provider, serverUrl } = providerFor(server, taken.principal, callbackUrl);
  // A later start by the same person replaced the verifier and state: this callback is stale.
  if ((await provider.expectedState()) !== taken.state)
    return page(response, 400, refusedText('unknown', taken.server));
  try {
    const { auth } = await import('@modelcontextprotocol/client');
    const iss = params.get('iss');
    await auth(provider, { serverUrl, authorizationCode: code, ...(iss !== null ? { iss } : {}) });
  } catch (error) {
    return page(response, 400, signInFailure(taken.server, error));
  }
  page(
    response,
    200,
    `Signed in to ${taken.server}. The gateway uses this sign-in for your calls only. You can close this tab.`,
  );
}

type Route =
  | { readonly kind: 'start'; readonly server: string }
  | { readonly kind: 'go'; readonly server: string; readonly handle: string }
  | { readonly kind: 'callback' };

function routeOf(segments: readonly string[] | undefined): Route | undefined {
  if (!segments) return undefined;
  const [first, second, third, ...rest] = segments;
  if (first === undefined || rest.length > 0) return undefined;
  if (first === CALLBACK) return second === undefined ? { kind: 'callback' } : undefined;
  if (second === undefined) return { kind: 'start', server: first };
  return second === 'go' && third !== undefined && HANDLE.test(third)
    ? { kind: 'go', server: first, handle: third }
    : undefined;
}

function decodeSegments(rest: string): string[] | undefined {
  try {
    return rest.split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}

function ownServer(servers: TeamSignInOptions['servers'], name: string): TeamSignInServer | undefined {
  return Object.hasOwn(servers, name) ? servers[name] : undefined;
}

/** The SDK's OAuth client for one person's sign-in to one server, sent back to the gateway. */
function providerFor(
  server: TeamSignInServer,
  principal: string,
  callbackUrl: string,
): { provider: StoredOAuthProvider; serverUrl: URL } {
  const serverUrl = new URL(server.url);
  const provider = new StoredOAuthProvider(
    {
      ...server.auth,
      principal,
      signIn: {
        redirectUrl: callbackUrl,
        visit: () => Promise.reject(new Error('A team sign-in is completed by its callback.')),
      },
    },
    serverUrl,
  );
  return { provider, serverUrl };
}

function signInFailure(server: string, error: unknown): string {
  const reason =
    error instanceof McpSignInError ? error.message : error instanceof Error ? error.message : String(error);
  return `The sign-in to ${server} did not complete: ${reason.slice(0, 500)} Start again with toolpact gateway login ${server} --gateway <gateway URL>; if it fails again, the gateway's operator should check the server's URL and OAuth settings.`;
}

function refusedText(refusal: PendingRefusal, server: string | undefined): string {
  const again = `Start again with toolpact gateway login ${server ?? '<server>'} --gateway <gateway URL>.`;
  switch (refusal) {
    case 'unknown':
      return `This sign-in is not under way here: it was completed or refused already, replaced by a newer one, or started on another gateway. ${again}`;
    case 'expired':
      return `This sign-in took too long and has expired. ${again}`;
    case 'unbound':
      return `This sign-in came back to a browser other than the one that followed its link, so it was not completed: a sign-in completes only where it was started. ${again}`;
  }
}

function page(response: ServerResponse, status: number, text: string): void {
  response
    .writeHead(status, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'",
    })
    .end(`<!doctype html><meta charset="utf-8"><title>toolpact sign-in</title><p>${escapeHtml(text)}</p>\n`);
}
