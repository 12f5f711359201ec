import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  type McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTool } from '../../src/index.js';
import { type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';
import { fixtureRegistry } from '../fixtures/mcp/tools.js';
import { invalidMessages, type Recording, recordingTransport, text } from './support/wire.js';

const elicited: unknown[] = [];

async function connect(url: string, elicit = false) {
  const { transport, recording } = recordingTransport(new StreamableHTTPClientTransport(new URL(url)));
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicited.push(request.params);
      return { action: 'accept', content: { decision: 'once' } };
    });
  }
  await client.connect(transport);
  return { client, recording };
}

function rawRequest(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        let data = '';
        response.on('data', (chunk) => {
          data += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: data }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

const recordings: Recording[] = [];

describe('serveHttp with sessions', () => {
  let running: RunningHttpServer;
  const registry = fixtureRegistry(undefined);
  beforeAll(async () => {
    running = await serveHttp(registry, { name: 'fixture-http', pageSize: 5 });
  });
  afterAll(async () => {
    await running?.close();
  });

  test('listens on 127.0.0.1 with a free port by default', () => {
    expect(running.host).toBe('127.0.0.1');
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  test('list (two pages), call, error result, structured content, unknown tool', async () => {
    const { client, recording } = await connect(running.url);
    recordings.push(recording);
    const first = await client.listTools();
    expect(first.tools).toHaveLength(5);
    const second = await client.listTools({ cursor: first.nextCursor! });
    expect(second.nextCursor).toBeUndefined();
    expect(second.tools.map((tool) => tool.name)).toEqual(['last_cancel', 'write_note', 'register_extra']);

    const sum = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    expect(sum.structuredContent).toEqual({ sum: 3 });
    const bad = await client.callTool({ name: 'echo', arguments: { text: '' } });
    expect(bad.isError).toBe(true);
    expect(JSON.parse(text(bad)).error.issues[0]).toMatchObject({ path: '$.text', code: 'too_small' });
    const unknown = await client.callTool({ name: 'nope', arguments: {} }).catch((error: unknown) => error);
    expect((unknown as McpError).code).toBe(-32602);
    expect(running.sessionCount()).toBeGreaterThanOrEqual(1);
    await client.close();
  });

  test('list_changed reaches a session when the registry changes', async () => {
    const { client, recording } = await connect(running.url);
    recordings.push(recording);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    // The notification travels on the session's standalone GET stream, which the client opens after
    // initializing; until it is open a notification has nowhere to go, so change the registry until one arrives.
    const probe = createTool(
      {
        name: 'probe',
        description: 'A tool added and removed by the test.',
        category: 'read',
        parameters: { type: 'object' },
      },
      { execute: () => null },
    );
    for (let attempt = 0; attempt < 100 && changed === 0; attempt++) {
      if (registry.has('probe')) registry.unregister('probe');
      else registry.register(probe);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(changed).toBeGreaterThanOrEqual(1);
    const names = (await client.listTools({ cursor: (await client.listTools()).nextCursor! })).tools.map(
      (tool) => tool.name,
    );
    expect(names.includes('probe')).toBe(registry.has('probe'));
    await client.close();
  });

  test('a write is approved through elicitation over HTTP', async () => {
    const { client, recording } = await connect(running.url, true);
    recordings.push(recording);
    const result = await client.callTool({ name: 'write_note', arguments: { file: 'a.txt', text: 'x' } });
    // No notes folder is configured here, so the approved call reaches the tool and fails there.
    expect(JSON.parse(text(result)).error.type).toBe('not_configured');
    expect(recording.received.some((m) => 'method' in m && m.method === 'elicitation/create')).toBe(true);
    // Clients of one HTTP server share its registry, so "allow for the session" is not offered there.
    expect(elicited.at(-1)).toMatchObject({
      requestedSchema: { properties: { decision: { enum: ['once', 'deny'] } } },
    });
    await client.close();
  });

  test('a foreign Origin is refused with 403 and a rebinding Host with 421; loopback ones pass', async () => {
    const port = new URL(running.url).port;
    const evilOrigin = await rawRequest(running.url, { origin: 'http://evil.example.com' }, INITIALIZE);
    expect(evilOrigin.status).toBe(403);
    const evilHost = await rawRequest(running.url, { host: `evil.example.com:${port}` }, INITIALIZE);
    expect(evilHost.status).toBe(421);
    const good = await rawRequest(
      running.url,
      { host: `localhost:${port}`, origin: `http://localhost:${port}` },
      INITIALIZE,
    );
    expect(good.status).toBe(200);
  });

  test('bad requests get JSON-RPC errors with the right status, never a stack trace', async () => {
    const notJson = await rawRequest(running.url, {}, '{"jsonrpc":');
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.body).error.code).toBe(-32700);
    const noSession = await rawRequest(
      running.url,
      {},
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    expect(noSession.status).toBe(400);
    const goneSession = await rawRequest(
      running.url,
      { 'mcp-session-id': 'no-such-session' },
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    );
    expect(goneSession.status).toBe(404);
    for (const answer of [notJson, noSession, goneSession]) expect(answer.body).not.toMatch(/\n\s+at /);
  });
});

describe('serveHttp stateless', () => {
  let running: RunningHttpServer;
  beforeAll(async () => {
    running = await serveHttp(fixtureRegistry(undefined), { stateless: true });
  });
  afterAll(async () => {
    await running?.close();
  });

  test('every request stands alone: no session id, no listChanged promised, calls work', async () => {
    const { client, recording } = await connect(running.url);
    recordings.push(recording);
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(JSON.parse(text(result))).toEqual({ ok: true, result: 'hi' });
    expect(running.sessionCount()).toBe(0);
    await client.close();
  });

  test('approval cannot be elicited without a session, so the write is denied', async () => {
    const { client } = await connect(running.url, true);
    const result = await client.callTool({ name: 'write_note', arguments: { file: 'a.txt', text: 'x' } });
    expect(JSON.parse(text(result)).error.type).toBe('permission_denied');
    await client.close();
  });
});

test('every message sent over HTTP validates against the MCP 2025-11-25 schema', () => {
  expect(recordings.length).toBeGreaterThanOrEqual(4);
  for (const recording of recordings) {
    expect(invalidMessages('client', recording)).toEqual([]);
    expect(invalidMessages('server', { sent: recording.received, received: recording.sent })).toEqual([]);
  }
});

test('a non-loopback host is used only when asked, and then Host is not pinned to loopback', async () => {
  const running = await serveHttp(fixtureRegistry(undefined), { host: '0.0.0.0', insecureNoAuth: true });
  try {
    expect(running.host).toBe('0.0.0.0');
    const port = new URL(running.url).port;
    const answer = await rawRequest(
      `http://127.0.0.1:${port}/mcp`,
      { host: `tools.internal:${port}` },
      INITIALIZE,
    );
    expect(answer.status).toBe(200);
  } finally {
    await running.close();
  }
});
