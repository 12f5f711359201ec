import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ToolDefinitionError } from '../errors/index.js';
import type { Registry } from '../registry/registry.js';
import { createMcpServer, type McpServerOptions } from './create-mcp-server.js';
import { checkRequestOrigin, isLoopbackHost } from './origin-check.js';

/** Options of {@link serveHttp}. */
export interface HttpServeOptions extends McpServerOptions {
  /** The address to listen on (default `127.0.0.1`). A non-loopback address exposes the tools to the network. */
  readonly host?: string;
  /** The port (default 0: any free port; read it from the result). */
  readonly port?: number;
  /** The endpoint path (default `/mcp`). */
  readonly path?: string;
  /**
   * No sessions: every POST is served by a fresh server, so any replica behind a load balancer can
   * answer any request. Costs: no `list_changed` (no stream to carry it) and no elicitation.
   */
  readonly stateless?: boolean;
  /** Browser origins allowed besides loopback ones (the DNS-rebinding defence refuses all others). */
  readonly allowedOrigins?: readonly string[];
  /** Host header values allowed besides loopback names, for a loopback server behind a local proxy. */
  readonly allowedHosts?: readonly string[];
  /** Largest request body, in bytes (default 4 MiB). */
  readonly maxBodyBytes?: number;
  /** Most sessions open at once (default 1,000); an initialize beyond it is answered 503. */
  readonly maxSessions?: number;
}

/** A listening MCP HTTP server. */
export interface RunningHttpServer {
  /** The endpoint URL, e.g. `http://127.0.0.1:43121/mcp`. */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** Open sessions (always 0 when stateless). */
  readonly sessionCount: () => number;
  /** Ends every session and stops listening. */
  close(): Promise<void>;
}

interface Session {
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

/**
 * Serves a registry over MCP Streamable HTTP, on loopback unless told otherwise, with the Origin and
 * Host checks the spec requires against DNS rebinding. With `stateless: true` there are no sessions.
 * Every call goes through `registry.call`, with its gate.
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
  // Loaded only when HTTP is served: it brings the Web-standard request adapter with it.
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return plain(response, 404, `Not found. The MCP endpoint is ${path}.`);
    const refusal = checkRequestOrigin(
      { host: request.headers.host, origin: firstHeader(request.headers.origin) },
      policy,
    );
    if (refusal) return plain(response, refusal.status, refusal.message);

    const method = request.method ?? 'GET';
    if (options.stateless) {
      if (method !== 'POST') {
        response.setHeader('Allow', 'POST');
        return rpcError(response, 405, -32000, 'This server is stateless: send every request as a POST.');
      }
      const body = await readJson(request, response, maxBody);
      if (body === NO_BODY) return;
      const server = createMcpServer(registry, options, { listChanged: false, serverRequests: false });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
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
      const body = method === 'POST' ? await readJson(request, response, maxBody) : undefined;
      if (body === NO_BODY) return;
      await session.transport.handleRequest(request, response, body);
      return;
    }
    if (method !== 'POST') {
      return rpcError(response, 400, -32000, 'Send an initialize request (POST) first; it opens a session.');
    }
    const body = await readJson(request, response, maxBody);
    if (body === NO_BODY) return;
    if (!isInitializeRequest(body)) {
      return rpcError(
        response,
        400,
        -32000,
        'No Mcp-Session-Id header: only an initialize request may come without a session.',
      );
    }
    if (sessions.size >= maxSessions) {
      return rpcError(response, 503, -32000, `Too many open sessions (${maxSessions}); try again later.`);
    }
    const server = createMcpServer(registry, options, { listChanged: true, serverRequests: true });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
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

  const http = createServer((request, response) => {
    handle(request, response).catch(() => {
      // A defect of ours must not take the process down or leak a stack trace to the client.
      if (!response.headersSent) rpcError(response, 500, -32603, 'Internal server error.');
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' || host.includes(':') ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}${path}`,
    port: address.port,
    host: address.address,
    sessionCount: () => sessions.size,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((session) => session.transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
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
