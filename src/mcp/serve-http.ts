import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import {
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  isJsonContentType,
  type Server,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import type { AuthConfig, ResolvedAuthConfig } from '../auth/auth-config.js';
import { type Authenticator, type AuthRefusal, openAuthenticator } from '../auth/authenticator.js';
import { type Principal, principalKey } from '../dispatch/principal.js';
import { ToolDefinitionError } from '../errors/index.js';
import type { Registry } from '../registry/registry.js';
import { firstHeader } from '../util/http-text.js';
import { INSECURE_WARNING, INSECURE_WARNING_HEADER } from '../util/insecure-warning.js';
import { type ApprovalsApiStore, approvalsApi } from './approvals-api.js';
import {
  buildMcpServer,
  createMcpServer,
  followChanges,
  followKinds,
  type McpServerOptions,
  pageSizeOf,
} from './create-mcp-server.js';
import { parseHostHeader } from './host-header.js';
import type { HttpRoute } from './http-route.js';
import { type JsonBodyFailure, jsonBodyMessage, readJsonBody } from './json-body.js';
import { watchListenStream } from './listen-watch.js';
import { abandonHeldCalls } from './modern-call.js';
import {
  checkRequestOrigin,
  invalidHostEntries,
  isLoopbackHost,
  type OriginRefusal,
} from './origin-check.js';
import { RequestStateSealer } from './request-state.js';
import { ResourceWatchers } from './resource-watchers.js';
import {
  clientOf,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  DEFAULT_SESSIONS_PER_CLIENT,
  expiredSessions,
  type SessionUse,
  sessionsToEvict,
} from './session-limits.js';

/** Options of {@link serveHttp}. */
export interface HttpServeOptions extends McpServerOptions {
  /** The address to listen on (default `127.0.0.1`). A non-loopback address exposes the tools to the network. */
  readonly host?: string;
  /** The port (default 0: any free port; read it from the result). */
  readonly port?: number;
  /** The endpoint path (default `/mcp`). */
  readonly path?: string;
  /**
   * No sessions for legacy (2025) clients either: every legacy POST is served by a fresh server, so
   * any replica behind a load balancer can answer any request. Costs legacy clients `list_changed` (no
   * stream to carry it) and elicitation. Revision 2026-07-28 requests are always served statelessly.
   */
  readonly stateless?: boolean;
  /** Browser origins allowed besides loopback ones (the DNS-rebinding defence refuses all others). */
  readonly allowedOrigins?: readonly string[];
  /**
   * Host header values (`host` for any port, or `host:port`) allowed besides loopback names, for a
   * loopback server behind a local proxy. Whatever the list, a `Host` that is not `host[:port]` is
   * answered 421.
   */
  readonly allowedHosts?: readonly string[];
  /** Largest request body, in bytes (default 4 MiB); a larger one is answered 413 (-32600). */
  readonly maxBodyBytes?: number;
  /**
   * Deepest nesting of arrays and objects in a request body (default 64, as .NET's `System.Text.Json`);
   * a deeper one is answered 400 (-32600) before it is parsed.
   */
  readonly maxJsonDepth?: number;
  /**
   * Most legacy sessions open at once, across all clients (default 1,000): the last resort, an
   * initialize beyond it is answered 503. Never reached by one client alone unless
   * `maxSessionsPerClient` is as large.
   */
  readonly maxSessions?: number;
  /**
   * Most legacy sessions one client holds at once (default 32, or half of `maxSessions` when that is
   * smaller). "A client" is the remote address (an IPv6 one by its /64); see `clientOf`. A client
   * past it may keep opening sessions: its own least recently active session is closed (an idle one
   * before one with a request open). Behind a reverse proxy all clients share the proxy's address:
   * raise this, or serve `stateless`.
   */
  readonly maxSessionsPerClient?: number;
  /**
   * A legacy session with no request open (its GET stream included) for this long is closed, in
   * milliseconds (default 30 minutes); its client's next request is answered 404, and the client
   * initializes again, as the transport spec says.
   */
  readonly sessionIdleMs?: number;
  /**
   * Seals the `requestState` of a revision 2026-07-28 approval (default
   * `RequestStateSealer.fromEnvironment()`: the key in `TOOLPACT_STATE_KEY`, which every replica must
   * share; without it, a key of this process, so a retry must come back to this process).
   */
  readonly requestState?: RequestStateSealer;
  /**
   * Where the change events of revision 2026-07-28 `subscriptions/listen` streams come from (the
   * SDK's `ServerEventBus`): by default this process alone; a fleet gives one every replica shares
   * (`PostgresStore.eventBus()`), so a change on one replica reaches the streams open on all of them.
   */
  readonly bus?: ServerEventBus;
  /**
   * Authenticate every request as an OAuth resource server: an auth configuration (see `docs/auth.md`)
   * or an authenticator made from one (`createAuthenticator`). The protected resource metadata is served
   * at `/.well-known/oauth-protected-resource` (and its path-aware form); a request without a valid
   * token is answered 401, one without a scope it needs 403, and the token is never handed on.
   */
  readonly auth?: AuthConfig | ResolvedAuthConfig | Authenticator;
  /**
   * Serve a non-loopback address without `auth` (refused otherwise). Every response then carries the
   * `Toolpact-Warning` header. For a network that is private, or a proxy in front that authenticates.
   */
  readonly insecureNoAuth?: boolean;
  /**
   * The shared store's approval queue (`store.approvals` of `openPostgresStore`), served as the
   * approvals API under `<path>/approvals` beside the MCP endpoint: list, show, approve and deny, as
   * the request's authenticated principal. Served only with `auth` (see docs/auth.md).
   */
  readonly approvals?: ApprovalsApiStore;
  /**
   * Further handlers served beside the MCP endpoint, each given the endpoint's authenticator and
   * Origin policy (the gateway's team sign-in link is one). The endpoint's own path stays MCP's.
   */
  readonly routes?: readonly HttpRoute[];
}

/** The header on every response of a server reachable from the network without authentication. */
export { INSECURE_WARNING_HEADER };

/** A listening MCP HTTP server. */
export interface RunningHttpServer {
  /** The endpoint URL, e.g. `http://127.0.0.1:43121/mcp`. */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** Open legacy sessions (always 0 when stateless; revision 2026-07-28 has none). */
  readonly sessionCount: () => number;
  /** Ends every session and open stream, and stops listening. */
  close(): Promise<void>;
}

interface Session extends SessionUse {
  readonly server: Server;
  readonly transport: NodeStreamableHTTPServerTransport;
  lastActive: number;
  inFlight: number;
  /** The principal that opened the session (its key); only it may use the session. */
  readonly owner: string | undefined;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const DEFAULT_MAX_DEPTH = 64;

/**
 * Serves a registry over MCP Streamable HTTP on one endpoint for both eras, on loopback unless told
 * otherwise, with the Origin and Host checks the spec requires against DNS rebinding. A revision
 * 2026-07-28 request (its `_meta` envelope and headers) is served statelessly by a fresh server: no
 * `Mcp-Session-Id`, any replica can answer, approvals are input-required results, change
 * notifications go to `subscriptions/listen` streams. A 2025 client opens a session with `initialize`
 * and keeps everything it had: the GET stream, `list_changed`, approvals by elicitation (with
 * `stateless: true`, legacy POSTs stand alone too). Every call goes through `registry.call`, with its gate.
 *
 * @example
 * const running = await serveHttp(registry, { port: 3000 });
 * console.log(`MCP endpoint: ${running.url}`);
 */
export async function serveHttp(
  registry: Registry,
  options: HttpServeOptions = {},
): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const maxBody = wholeOption('maxBodyBytes', options.maxBodyBytes, DEFAULT_MAX_BODY, 1);
  const maxDepth = wholeOption('maxJsonDepth', options.maxJsonDepth, DEFAULT_MAX_DEPTH, 1);
  const maxSessions = wholeOption('maxSessions', options.maxSessions, DEFAULT_MAX_SESSIONS, 1);
  const perClient = wholeOption(
    'maxSessionsPerClient',
    options.maxSessionsPerClient,
    // Half the global cap at most, so that one client alone never reaches it.
    Math.max(1, Math.min(DEFAULT_SESSIONS_PER_CLIENT, Math.floor(maxSessions / 2))),
    1,
  );
  if (perClient > maxSessions) {
    throw new ToolDefinitionError(
      'invalid_option',
      `maxSessionsPerClient is ${perClient}, more than maxSessions (${maxSessions}); give at most ${maxSessions}.`,
    );
  }
  const idleMs = wholeOption('sessionIdleMs', options.sessionIdleMs, DEFAULT_SESSION_IDLE_MS, 1);
  const port = wholeOption('port', options.port, 0, 0, 65_535);
  const badHosts = invalidHostEntries(options.allowedHosts ?? []);
  if (badHosts.length > 0) {
    throw new ToolDefinitionError(
      'invalid_option',
      `allowedHosts has ${badHosts.map((entry) => JSON.stringify(entry)).join(', ')}; give host or host:port values (e.g. "proxy.local" or "proxy.local:8080").`,
    );
  }
  if (!path.startsWith('/')) {
    throw new ToolDefinitionError(
      'invalid_option',
      `path is ${JSON.stringify(path)}; it must start with "/".`,
    );
  }
  const loopback = isLoopbackHost(host);
  const auth = await authenticatorOf(options.auth);
  if (!loopback && !auth && !options.insecureNoAuth) {
    throw new ToolDefinitionError(
      'invalid_option',
      `host is ${JSON.stringify(host)}, reachable from the network, and no auth is configured: anyone who reaches the port could call the tools. Give auth (an OAuth resource server configuration; see docs/auth.md), bind 127.0.0.1, or set insecureNoAuth when something in front authenticates.`,
    );
  }
  const insecure = !loopback && !auth;
  const policy = {
    loopback,
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
  };
  const sessions = new Map<string, Session>();
  // Loaded only when HTTP is served: the Node adapter brings hono with it.
  const { NodeStreamableHTTPServerTransport, toNodeHandler } = await import('@modelcontextprotocol/node');

  // Revision 2026-07-28: a fresh server per request (the SDK's strict handler checks the envelope,
  // the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, and answers subscriptions/listen).
  // Legacy traffic never reaches it: its 'stateless' legacy mode has no return path for elicitation.
  pageSizeOf(options); // servers are built per request: a bad option must fail here, not on each one
  const approvals = options.requestState ?? RequestStateSealer.fromEnvironment();
  const modern = createMcpHandler(
    () => buildMcpServer(registry, options, { listChanged: true, serverRequests: false }, approvals),
    { legacy: 'reject', maxRequestBodySize: maxBody, ...(options.bus ? { bus: options.bus } : {}) },
  );
  const serveModern = toNodeHandler(modern, { maxRequestBodySize: maxBody });
  // Modern clients see the listing's stateless view, which changes only with the registry: a legacy
  // session's search must not tell them their list changed.
  const stopTools = followChanges(options.listing?.stateless ?? options.listing ?? registry, () =>
    modern.notify.toolsChanged(),
  );
  const stopKinds = followKinds(registry, (kind) =>
    kind === 'resources' ? modern.notify.resourcesChanged() : modern.notify.promptsChanged(),
  );
  // The resources modern listen streams opted in to, each watched once for every stream.
  const listened = new ResourceWatchers(registry, (uri) => modern.notify.resourceUpdated(uri));
  const stopFollowing = () => {
    stopTools();
    stopKinds();
    listened.close();
  };

  const serveLegacy = async (
    request: IncomingMessage,
    response: ServerResponse,
    method: string,
    body: unknown,
    principal: Principal | undefined,
  ): Promise<void> => {
    const owner = principal ? principalKey(principal) : undefined;
    if (options.stateless) {
      if (method !== 'POST') {
        response.setHeader('Allow', 'POST');
        return rpcError(response, 405, -32000, 'This server is stateless: send every request as a POST.');
      }
      const server = buildMcpServer(registry, options, { listChanged: false, serverRequests: false });
      const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => {
        transport.close().catch(() => {});
        server.close().catch(() => {});
      });
      await server.connect(transport);
      await transport.handleRequest(request, response, body);
      return;
    }
    const sessionId = firstHeader(request.headers['mcp-session-id']);
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      // A session belongs to whoever opened it: another caller's token does not reach into it.
      if (!session || session.owner !== owner) {
        return rpcError(
          response,
          404,
          -32001,
          'Unknown or ended session (sessions idle for a while are closed). Initialize a new session.',
        );
      }
      // A session is idle when no request of its own is open: a GET stream held open keeps it.
      session.inFlight++;
      session.lastActive = Date.now();
      response.once('close', () => {
        session.inFlight--;
        session.lastActive = Date.now();
      });
      await session.transport.handleRequest(request, response, body);
      return;
    }
    if (method !== 'POST') {
      return rpcError(response, 400, -32000, 'Send an initialize request (POST) first; it opens a session.');
    }
    if (!isInitializeRequest(body)) {
      return rpcError(
        response,
        400,
        -32000,
        'No Mcp-Session-Id header: only an initialize request may come without a session (or send a revision 2026-07-28 request, with its _meta envelope, which needs none).',
      );
    }
    const client = clientOf(request.socket.remoteAddress);
    // A client at its cap makes room among its own sessions; only the others' count toward a refusal.
    const evicted = evict(sessionsToEvict(sessions, client, perClient - 1));
    if (evicted === 0 && sessions.size >= maxSessions) {
      response.setHeader('Retry-After', '60');
      return rpcError(
        response,
        503,
        -32000,
        `Too many open sessions across all clients (${maxSessions}); try again later, or send revision 2026-07-28 requests, which need none.`,
      );
    }
    const server = createMcpServer(registry, options, { listChanged: true, serverRequests: true });
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport, client, lastActive: Date.now(), inFlight: 0, owner });
        // Initializes of one client that ran side by side each saw room; the newest stays.
        const extra = new Map(sessions);
        extra.delete(id);
        evict(sessionsToEvict(extra, client, perClient - 1));
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      server.close().catch(() => {});
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
    // An initialize the transport refused opened no session; nothing else will close this pair.
    if (!transport.sessionId || !sessions.has(transport.sessionId)) {
      await transport.close().catch(() => {});
    }
  };

  // Closes sessions chosen by a limit; each is gone from the table before its transport closes.
  const evict = (ids: readonly string[]): number => {
    for (const id of ids) {
      const session = sessions.get(id);
      if (!session) continue;
      sessions.delete(id);
      session.transport.close().catch(() => {});
    }
    return ids.length;
  };
  const sweep = setInterval(
    () => evict(expiredSessions(sessions, Date.now(), idleMs)),
    Math.min(Math.max(Math.floor(idleMs / 4), 10), 60_000),
  );
  sweep.unref();

  const metadataPaths = new Set(
    auth ? [...auth.metadataPaths, `/.well-known/oauth-protected-resource${path}`] : [],
  );
  const metadataBody = auth ? JSON.stringify(auth.metadata) : '';
  const api = approvalsApi({ path, store: options.approvals, auth, origins: policy });
  const routes = options.routes ?? [];
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (insecure) response.setHeader(INSECURE_WARNING_HEADER, INSECURE_WARNING);
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (metadataPaths.has(url.pathname)) return serveMetadata(request, response, metadataBody);
    if (url.pathname !== path && api.owns(url.pathname)) return api.handle(request, response, url);
    const mounted = url.pathname === path ? undefined : routes.find((each) => each.owns(url.pathname));
    if (mounted) return mounted.handle(request, response, url, { auth, origins: policy });
    if (url.pathname !== path) return plain(response, 404, `Not found. The MCP endpoint is ${path}.`);
    const refusal = checkRequestOrigin(
      { host: request.headers.host, origin: firstHeader(request.headers.origin) },
      policy,
    );
    if (refusal) return refuse(response, refusal);
    // The one reading of Host from here on: the transports rebuild the URL from it, and refuse a
    // spelling (`[0:0::1]`, `2130706433`) that is not the canonical one the check accepted.
    const canonical = parseHostHeader(request.headers.host);
    if (canonical) {
      request.headers.host =
        canonical.port === undefined ? canonical.hostname : `${canonical.hostname}:${canonical.port}`;
    }

    let principal: Principal | undefined;
    if (auth) {
      // A token of a key the issuer published moments ago may wait for the JWKS; not after a hang-up.
      const hungUp = new AbortController();
      response.once('close', () => hungUp.abort());
      const outcome = await auth.authenticate(firstHeader(request.headers.authorization), {
        signal: hungUp.signal,
      });
      if (!outcome.ok) return refuseAuth(response, outcome);
      // The transports hand `auth` to the server as the request's authInfo (the token is not in it).
      (request as IncomingMessage & { auth?: unknown }).auth = outcome.authInfo;
      principal = outcome.principal;
    }

    const method = request.method ?? 'GET';
    if (method !== 'POST') return serveLegacy(request, response, method, undefined, principal);
    if (!isJsonContentType(firstHeader(request.headers['content-type']))) {
      return rpcError(response, 415, -32000, 'Send the request as Content-Type: application/json.');
    }
    const read = await readJsonBody(request, { maxBytes: maxBody, maxDepth });
    if (!read.ok) {
      const { ok: _, ...failure } = read;
      return refuseBody(request, response, failure);
    }
    const body = read.value;
    if (auth && principal) {
      const call = calledTool(body, registry);
      const refused = call && auth.checkCall(principal, call.name, call.category);
      if (refused) return refuseAuth(response, refused);
    }
    // The era is a property of each request: an enveloped one (or one that claims the modern era in its
    // headers, even wrongly, so that the strict handler can say what is wrong) is modern.
    const route = classifyInboundRequest({
      httpMethod: method,
      protocolVersionHeader: firstHeader(request.headers['mcp-protocol-version']),
      mcpMethodHeader: firstHeader(request.headers['mcp-method']),
      mcpNameHeader: firstHeader(request.headers['mcp-name']),
      body,
    });
    const legacy = route.kind === 'legacy' && !isBareDiscover(body, request);
    if (legacy) return serveLegacy(request, response, method, body, principal);
    watchListenStream(listened, body, response);
    await serveModern(request, response, body);
  };

  const http = createServer((request, response) => {
    handle(request, response).catch(() => {
      // A defect of ours must not take the process down or leak a stack trace to the client.
      if (!response.headersSent) rpcError(response, 500, -32603, 'Internal server error.');
      else response.end();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, host, () => {
        http.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    // Nothing is served: let go of the registry's change listener and the modern handler.
    clearInterval(sweep);
    stopFollowing();
    await modern.close().catch(() => {});
    throw error;
  }
  const address = http.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' || host.includes(':') ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}${path}`,
    port: address.port,
    host: address.address,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(sweep);
      stopFollowing();
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled([modern.close(), ...open.map((session) => session.transport.close())]);
      // The calls still waiting for their client's answers end with the server.
      abandonHeldCalls(approvals);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function authenticatorOf(auth: HttpServeOptions['auth']): Promise<Authenticator | undefined> {
  if (auth === undefined) return undefined;
  return 'authenticate' in auth && typeof auth.authenticate === 'function'
    ? auth
    : openAuthenticator(auth as AuthConfig | ResolvedAuthConfig);
}

// The tool a `tools/call` names (through `call_tool`, the tool it calls), with its category.
function calledTool(
  body: unknown,
  registry: Registry,
): { readonly name: string; readonly category: string | undefined } | undefined {
  if (body === null || typeof body !== 'object' || (body as { method?: unknown }).method !== 'tools/call') {
    return undefined;
  }
  const params = (body as { params?: { name?: unknown; arguments?: { name?: unknown } } }).params;
  let name = params?.name;
  if (typeof name !== 'string') return undefined;
  if (!registry.has(name) && name === 'call_tool' && typeof params?.arguments?.name === 'string') {
    name = params.arguments.name;
  }
  const tool = registry.get(name as string);
  return { name: name as string, category: tool?.contract.category };
}

// The protected resource metadata (RFC 9728): public, readable from any origin.
function serveMetadata(request: IncomingMessage, response: ServerResponse, body: string): void {
  response.setHeader('Access-Control-Allow-Origin', '*');
  if (request.method === 'OPTIONS') {
    response.writeHead(204, { 'Access-Control-Allow-Methods': 'GET', 'Access-Control-Allow-Headers': '*' });
    response.end();
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD');
    plain(response, 405, 'The protected resource metadata is read with GET.');
    return;
  }
  response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=300' });
  response.end(request.method === 'HEAD' ? undefined : body);
}

// An authentication refusal: the status and WWW-Authenticate of RFC 6750, the reason as a JSON-RPC error.
function refuseAuth(response: ServerResponse, refusal: AuthRefusal): void {
  if (refusal.wwwAuthenticate) response.setHeader('WWW-Authenticate', refusal.wwwAuthenticate);
  if (refusal.status === 503) response.setHeader('Retry-After', '5');
  rpcError(response, refusal.status, -32000, refusal.message, { reason: refusal.error ?? 'no_token' });
}

// A `server/discover` without an envelope or a session is a probe that only the modern era knows:
// the strict handler answers it with the revisions it supports (-32022) instead of "no session".
function isBareDiscover(body: unknown, request: IncomingMessage): boolean {
  return (
    body !== null &&
    typeof body === 'object' &&
    (body as { method?: unknown }).method === 'server/discover' &&
    request.headers['mcp-session-id'] === undefined
  );
}

function wholeOption(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ToolDefinitionError(
      'invalid_option',
      `${name} is ${String(value)}; give a whole number from ${min} to ${max}.`,
    );
  }
  return value;
}

// Refusals are JSON-RPC errors like every other answer of the endpoint; `data` carries the code and
// what came, for a client to act on without reading the sentence.
function refuse(response: ServerResponse, refusal: OriginRefusal): void {
  rpcError(response, refusal.status, -32000, refusal.message, {
    reason: refusal.reason,
    received: refusal.received,
  });
}

function refuseBody(request: IncomingMessage, response: ServerResponse, failure: JsonBodyFailure): void {
  const { status, code, ...data } = failure;
  if (failure.reason === 'too_large') {
    // The rest of the body is not read: close the connection once the answer is out, and let the
    // bytes still arriving drain into nothing rather than reset the socket before the client reads it.
    response.setHeader('Connection', 'close');
    request.resume();
  }
  rpcError(response, status, code, jsonBodyMessage(failure), data);
}

function rpcError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  data?: object,
): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  const error = data ? { code, message, data } : { code, message };
  response.end(JSON.stringify({ jsonrpc: '2.0', error, id: null }));
}

function plain(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  response.end(`${message}\n`);
}
