import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { Principal, Registry } from '../../src/index.js';
import { buildMcpServer } from '../../src/mcp/create-mcp-server.js';
import { createMcpServer, type McpServerOptions } from '../../src/mcp/index.js';
import type { RequestStateSealer } from '../../src/mcp/request-state.js';

/** Who a test's caller is: a bare client id (an authenticator of the user's own), or a whole principal. */
export type TestCaller = string | (Partial<Principal> & { readonly subject: string });

/**
 * An MCP client connected in memory to a server over `registry`, reporting itself as `name`. With a
 * caller, every message carries the `authInfo` a transport that authenticated the caller attaches:
 * a bare client id, or a whole principal in `extra.toolpactPrincipal` (as toolpact's authentication
 * puts it there).
 */
export async function connectAs(
  registry: Registry,
  name: string,
  caller?: TestCaller,
  options: McpServerOptions & {
    /** Declares form elicitation and answers each `elicitation/create` with this (given its message). */
    readonly onElicit?: (message: string) => ElicitResult;
  } = {},
): Promise<Client> {
  const { onElicit, ...serverOptions } = options;
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(registry, serverOptions).connect(serverSide);
  if (caller !== undefined) {
    const authInfo = authInfoOf(caller);
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message: Parameters<Transport['send']>[0]) => send(message, { authInfo });
  }
  const client = new Client(
    { name, version: '1.0.0' },
    onElicit ? { capabilities: { elicitation: {} } } : {},
  );
  if (onElicit) client.setRequestHandler(ElicitRequestSchema, (request) => onElicit(request.params.message));
  await client.connect(clientSide);
  return client;
}

/** The `authInfo` a transport that authenticated `caller` attaches to each request. */
export function authInfoOf(caller: TestCaller) {
  return typeof caller === 'string'
    ? { token: 'opaque', clientId: caller, scopes: [] as string[] }
    : {
        token: 'opaque',
        clientId: caller.clientId ?? 'test-client',
        scopes: [...(caller.scopes ?? [])],
        extra: {
          toolpactPrincipal: { issuer: 'https://id.test', groups: [], roles: [], scopes: [], ...caller },
        },
      };
}

/** A revision 2026-07-28 request's answer: the JSON-RPC `result`, or its `error`. */
export interface ModernAnswer {
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly message: string };
}

/**
 * Revision 2026-07-28 requests to the SDK's own per-request handler over `registry` (as `serveHttp`
 * builds it), in process: each `post` is a real web `Request`, and with a caller it carries the
 * `authInfo` an authenticating front puts there (`handler.fetch(request, { authInfo })`).
 */
export function modernCaller(
  registry: Registry,
  options: McpServerOptions & { readonly requestState?: RequestStateSealer } = {},
) {
  const { requestState, ...serverOptions } = options;
  const handler = createMcpHandler(
    () => buildMcpServer(registry, serverOptions, { listChanged: true, serverRequests: false }, requestState),
    { legacy: 'reject' },
  );
  let id = 1;
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    'io.modelcontextprotocol/clientInfo': { name: 'modern-test', version: '1.0.0' },
  };
  return async function post(
    caller: TestCaller | undefined,
    method: string,
    params: Record<string, unknown> = {},
  ): Promise<ModernAnswer> {
    const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
    const request = new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': method,
        ...name,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: id++,
        method,
        params: { ...params, _meta: { ...envelope, ...((params._meta as object) ?? {}) } },
      }),
    });
    const response = await handler.fetch(
      request,
      caller === undefined ? {} : { authInfo: authInfoOf(caller) as never },
    );
    const raw = await response.text();
    const line = raw.startsWith('{')
      ? raw
      : (raw.split('\n').find((each) => each.startsWith('data: ')) ?? '').slice(6);
    return JSON.parse(line) as ModernAnswer;
  };
}

const MODERN_VERSION = '2026-07-28';
