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
import { ToolDefinitionError } from '../errors/index.js';
import type { Registry } from '../registry/registry.js';
import {
  buildMcpServer,
  createMcpServer,
  followChanges,
  type McpServerOptions,
  pageSizeOf,
} from './create-mcp-server.js';
import { checkRequestOrigin, isLoopbackHost } from './origin-check.js';
import { RequestStateSealer } from './request-state.js';

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
  /** Host header values allowed besides loopback names, for a loopback server behind a local proxy. */
  readonly allowedHosts?: readonly string[];
  /** Largest request body, in bytes (default 4 MiB). */
  readonly maxBodyBytes?: number;
  /** Most legacy sessions open at once (default 1,000); an initialize beyond it is answered 503. */
  readonly maxSessions?: number;
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
}

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

interface Session {
  readonly server: Server;
  readonly transport: NodeStreamableHTTPServerTransport;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

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
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const maxSessions = options.maxSessions ?? 1_000;
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ToolDefinitionError('invalid_option', `port is ${String(options.port)}; give 0 to 65535.`);
  }
  if (!path.startsWith('/')) {
    throw new ToolDefinitionError(
      'invalid_option',
      `path is ${JSON.stringify(path)}; it must start with "/".`,
    );
  }
  const loopback = isLoopbackHost(host);
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
  const stopFollowing = followChanges(options.listing?.stateless ?? options.listing ?? registry, () =>
    modern.notify.toolsChanged(),
  );

  const serveLegacy = async (
    request: IncomingMessage,
    response: ServerResponse,
    method: string,
    body: unknown,
  ): Promise<void> => {
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
      if (!session) {
        return rpcError(response, 404, -32001, 'Unknown or ended session. Initialize a new session.');
      }
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
    if (sessions.size >= maxSessions) {
      return rpcError(response, 503, -32000, `Too many open sessions (${maxSessions}); try again later.`);
    }
    const server = createMcpServer(registry, options, { listChanged: true, serverRequests: true });
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport });
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

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return plain(response, 404, `Not found. The MCP endpoint is ${path}.`);
    const refusal = checkRequestOrigin(
      { host: request.headers.host, origin: firstHeader(request.headers.origin) },
      policy,
    );
    if (refusal) return plain(response, refusal.status, refusal.message);

    const method = request.method ?? 'GET';
    if (method !== 'POST') return serveLegacy(request, response, method, undefined);
    if (!isJsonContentType(firstHeader(request.headers['content-type']))) {
      return rpcError(response, 415, -32000, 'Send the request as Content-Type: application/json.');
    }
    const body = await readJson(request, response, maxBody);
    if (body === NO_BODY) return;
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
    if (legacy) return serveLegacy(request, response, method, body);
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
      stopFollowing();
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled([modern.close(), ...open.map((session) => session.transport.close())]);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
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

const NO_BODY = Symbol('no body');

async function readJson(
  request: IncomingMessage,
  response: ServerResponse,
  maxBytes: number,
): Promise<unknown | typeof NO_BODY> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      rpcError(response, 413, -32600, `The request body is larger than ${maxBytes} bytes.`);
      request.destroy();
      return NO_BODY;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    rpcError(response, 400, -32700, 'Parse error: the request body is not valid JSON.');
    return NO_BODY;
  }
}

function rpcError(response: ServerResponse, status: number, code: number, message: string): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function plain(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  response.end(`${message}\n`);
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
