/**
 * serveHttp against a hostile client, over real HTTP on loopback: legacy sessions that would pile up
 * or never end, Host headers the loopback check must not misread, JSON too deep or too large.
 */
import { type ClientRequest, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';
import { fixtureRegistry } from '../fixtures/mcp/tools.js';

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

interface Sending {
  readonly method?: string;
  /** Sent as they are; `host` replaces the one Node would write (an absent `host` sends none). */
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** The source address, to be another client (127.0.0.2, 127.0.0.3, …). */
  readonly from?: string;
  /** Send the body in chunks without a Content-Length. */
  readonly chunked?: boolean;
}

function send(url: string, sending: Sending = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: sending.method ?? 'POST',
        agent: false,
        setHost: false,
        ...(sending.from ? { localAddress: sending.from } : {}),
        headers: {
          host: `${target.hostname}:${target.port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...sending.headers,
        },
      },
      (response) => {
        let data = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          data += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: data }),
        );
      },
    );
    request.on('error', reject);
    if (sending.chunked && sending.body !== undefined) {
      const body = Buffer.from(sending.body);
      for (let start = 0; start < body.length; start += 64 * 1024) {
        request.write(body.subarray(start, start + 64 * 1024));
      }
      request.end();
    } else {
      request.end(sending.body);
    }
  });
}

/** The JSON-RPC error of an answer (an SSE-framed one too). */
function rpcErrorOf(answer: Answer): { code: number; message: string; data?: Record<string, unknown> } {
  expect(answer.body).not.toMatch(/\n\s+at /);
  return JSON.parse(answer.body).error;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });

/** Opens a legacy session from `from`; its id. */
async function initialize(url: string, from?: string): Promise<string> {
  const answer = await send(url, { body: INITIALIZE, ...(from ? { from } : {}) });
  expect(answer.status).toBe(200);
  const id = answer.headers['mcp-session-id'];
  expect(typeof id).toBe('string');
  return id as string;
}

/** The status a `tools/list` on session `id` gets: 200 while it lives, 404 once it is closed. */
async function listStatus(url: string, id: string, from?: string): Promise<number> {
  const answer = await send(url, {
    body: LIST,
    headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    ...(from ? { from } : {}),
  });
  return answer.status;
}

/** Opens the session's GET stream and resolves once the server answered it; `close` ends it. */
function openStream(url: string, id: string): Promise<{ status: number; close: () => void }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request: ClientRequest = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'GET',
        agent: false,
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': id,
          'mcp-protocol-version': '2025-11-25',
        },
      },
      (response) => {
        response.resume();
        resolve({ status: response.statusCode ?? 0, close: () => request.destroy() });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** Polls `condition` every 20 ms, up to 500 times; fails the test if it never holds. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Never happened: ${what}`);
}

describe('legacy sessions: one client cannot lock out another', () => {
  let running: RunningHttpServer;
  beforeAll(async () => {
    running = await serveHttp(fixtureRegistry(undefined), { maxSessions: 12, maxSessionsPerClient: 3 });
  });
  afterAll(async () => {
    await running?.close();
  });

  test('20 sessions from 127.0.0.2 leave it its 3 newest, and 127.0.0.3 still opens one', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 20; index++) ids.push(await initialize(running.url, '127.0.0.2'));
    expect(running.sessionCount()).toBe(3);
    expect(await listStatus(running.url, ids[0] as string, '127.0.0.2')).toBe(404);
    for (const id of ids.slice(-3)) expect(await listStatus(running.url, id, '127.0.0.2')).toBe(200);

    const other = await initialize(running.url, '127.0.0.3');
    expect(await listStatus(running.url, other, '127.0.0.3')).toBe(200);
    // The newest sessions of 127.0.0.2 were not the price of 127.0.0.3's.
    for (const id of ids.slice(-3)) expect(await listStatus(running.url, id, '127.0.0.2')).toBe(200);
  });

  test('past its cap a client loses its oldest idle session, not one with a stream open', async () => {
    const from = '127.0.0.4';
    const streamed = await initialize(running.url, from);
    const stream = await openStream(running.url, streamed);
    expect(stream.status).toBe(200);
    const idle = [await initialize(running.url, from), await initialize(running.url, from)];
    const newest = await initialize(running.url, from);
    expect(await listStatus(running.url, idle[0] as string, from)).toBe(404);
    expect(await listStatus(running.url, streamed, from)).toBe(200);
    expect(await listStatus(running.url, idle[1] as string, from)).toBe(200);
    expect(await listStatus(running.url, newest, from)).toBe(200);
    stream.close();
  });

  test('the global cap stays a last resort, reached only by several clients together', async () => {
    // 127.0.0.2, .3 and .4 hold 3 + 1 + 3 of the 12; .5 and .6 fill the rest.
    for (const from of ['127.0.0.5', '127.0.0.5', '127.0.0.5', '127.0.0.6', '127.0.0.6']) {
      await initialize(running.url, from);
    }
    expect(running.sessionCount()).toBe(12);
    const refused = await send(running.url, { body: INITIALIZE, from: '127.0.0.7' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('60');
    expect(rpcErrorOf(refused).code).toBe(-32000);
    // A client at its own cap is not refused: it makes room among its own sessions.
    expect(await initialize(running.url, '127.0.0.5')).toEqual(expect.any(String));
    expect(running.sessionCount()).toBe(12);
  });
});

test('20 initializes of one client at once still leave it 3 sessions', async () => {
  const running = await serveHttp(fixtureRegistry(undefined), { maxSessionsPerClient: 3 });
  try {
    const ids = await Promise.all(Array.from({ length: 20 }, () => initialize(running.url, '127.0.0.10')));
    expect(new Set(ids).size).toBe(20);
    expect(running.sessionCount()).toBe(3);
    let live = 0;
    for (const id of ids) if ((await listStatus(running.url, id, '127.0.0.10')) === 200) live++;
    expect(live).toBe(3);
  } finally {
    await running.close();
  }
});

test('by default one client holds at most half of a small maxSessions', async () => {
  const running = await serveHttp(fixtureRegistry(undefined), { maxSessions: 4 });
  try {
    for (let index = 0; index < 6; index++) await initialize(running.url, '127.0.0.8');
    expect(running.sessionCount()).toBe(2);
    await initialize(running.url, '127.0.0.9');
    await initialize(running.url, '127.0.0.9');
    expect(running.sessionCount()).toBe(4);
  } finally {
    await running.close();
  }
});

test.each([
  [{ maxSessions: 4, maxSessionsPerClient: 5 }, /maxSessionsPerClient is 5, more than maxSessions \(4\)/],
  [{ sessionIdleMs: 0 }, /sessionIdleMs is 0; give a whole number from 1/],
  [{ maxJsonDepth: 1.5 }, /maxJsonDepth is 1.5; give a whole number from 1/],
  [{ maxBodyBytes: -1 }, /maxBodyBytes is -1; give a whole number from 1/],
])('%j is refused at start', async (options, message) => {
  await expect(serveHttp(fixtureRegistry(undefined), options)).rejects.toThrow(message);
});

test('an idle session is closed after sessionIdleMs; one with its GET stream open is kept', async () => {
  const running = await serveHttp(fixtureRegistry(undefined), { sessionIdleMs: 200 });
  try {
    // The kept session is the older one: only its open stream can explain that it outlives the other.
    const kept = await initialize(running.url);
    const stream = await openStream(running.url, kept);
    expect(stream.status).toBe(200);
    const idle = await initialize(running.url);
    expect(running.sessionCount()).toBe(2);
    await until(() => running.sessionCount() === 1, 'the idle session closed');
    expect(await listStatus(running.url, idle)).toBe(404);
    expect(await listStatus(running.url, kept)).toBe(200);
    stream.close();
    await until(() => running.sessionCount() === 0, 'the session closed once its stream ended');
    const gone = await send(running.url, {
      body: LIST,
      headers: { 'mcp-session-id': kept, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(gone.status).toBe(404);
    expect(rpcErrorOf(gone).message).toMatch(/Initialize a new session/);
  } finally {
    await running.close();
  }
});

describe('Host is read strictly', () => {
  let loopback: RunningHttpServer;
  let open: RunningHttpServer;
  beforeAll(async () => {
    loopback = await serveHttp(fixtureRegistry(undefined), { allowedHosts: ['proxy.local:8080'] });
    open = await serveHttp(fixtureRegistry(undefined), { host: '0.0.0.0', insecureNoAuth: true });
  });
  afterAll(async () => {
    await loopback?.close();
    await open?.close();
  });

  test.each([
    ['localhost:1@evil', 421, 'host_malformed'],
    ['localhost:abc', 421, 'host_malformed'],
    ['localhost:', 421, 'host_malformed'],
    ['localhost:65536', 421, 'host_malformed'],
    ['localhost/evil', 421, 'host_malformed'],
    ['localhost:80/x', 421, 'host_malformed'],
    ['127.0.0.1:80:80', 421, 'host_malformed'],
    ['::1', 421, 'host_malformed'],
    ['[::1', 421, 'host_malformed'],
    ['[::1]x', 421, 'host_malformed'],
    ['[evil.com]', 421, 'host_malformed'],
    ['local host', 421, 'host_malformed'],
    ['', 421, 'host_malformed'],
    ['evil.com', 421, 'host_not_allowed'],
    ['localhost.evil.com:80', 421, 'host_not_allowed'],
    ['proxy.local', 421, 'host_not_allowed'],
    ['proxy.local:8081', 421, 'host_not_allowed'],
    ['[::1]:80', 200, undefined],
    ['[0:0::1]', 200, undefined],
    ['127.0.0.1:80', 200, undefined],
    ['127.9.9.9', 200, undefined],
    ['LOCALHOST:3000', 200, undefined],
    ['2130706433', 200, undefined],
    ['Proxy.Local:8080', 200, undefined],
  ])('Host %j on a loopback server → %i %s', async (host, status, reason) => {
    const answer = await send(loopback.url, { headers: { host }, body: INITIALIZE });
    expect(answer.status).toBe(status);
    if (reason) {
      const error = rpcErrorOf(answer);
      expect(error.data).toEqual({ reason, received: host });
      expect(error.message).toContain(JSON.stringify(host));
      expect(error.message).toMatch(/localhost, 127\.0\.0\.1 or \[::1\]/);
    }
  });

  test('a server on every address takes any well-formed Host, and refuses a malformed one', async () => {
    const url = `http://127.0.0.1:${open.port}/mcp`;
    expect((await send(url, { headers: { host: 'tools.internal:8080' }, body: INITIALIZE })).status).toBe(
      200,
    );
    const malformed = await send(url, { headers: { host: 'localhost:1@evil' }, body: INITIALIZE });
    expect(malformed.status).toBe(421);
    expect(rpcErrorOf(malformed).data).toEqual({ reason: 'host_malformed', received: 'localhost:1@evil' });
  });

  test('an allowedHosts entry that is not host[:port] is refused at start', async () => {
    await expect(
      serveHttp(fixtureRegistry(undefined), { allowedHosts: ['http://proxy.local'] }),
    ).rejects.toThrow(/allowedHosts has "http:\/\/proxy\.local"; give host or host:port/);
  });
});

describe('JSON too deep or too large', () => {
  let running: RunningHttpServer;
  let small: RunningHttpServer;
  beforeAll(async () => {
    running = await serveHttp(fixtureRegistry(undefined));
    small = await serveHttp(fixtureRegistry(undefined), { maxBodyBytes: 1024, maxJsonDepth: 8 });
  });
  afterAll(async () => {
    await running?.close();
    await small?.close();
  });

  const deep = 100_000;
  test.each([
    ['arrays', `${'['.repeat(deep)}${']'.repeat(deep)}`],
    ['objects', `${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}`],
    ['arrays never closed', '['.repeat(deep)],
    [
      'a request whose params nest deep',
      `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":${'['.repeat(deep)}${']'.repeat(deep)}}}`,
    ],
    // A string that ends in an escaped backslash ends there: the brackets after it are counted.
    ['arrays after an escaped backslash', `["\\\\",${'['.repeat(deep)}${']'.repeat(deep)}]`],
    [
      'a revision 2026-07-28 tools/call whose arguments nest deep',
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":${'['.repeat(deep)}${']'.repeat(deep)}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    ],
  ])(
    '%s 100,000 deep → 400, -32600, before parsing',
    async (_name, body, headers?: Record<string, string>) => {
      const answer = await send(running.url, { body, ...(headers ? { headers } : {}) });
      expect(answer.status).toBe(400);
      const error = rpcErrorOf(answer);
      expect(error.code).toBe(-32600);
      expect(error.data).toEqual({ reason: 'too_deep', limit: 64 });
    },
  );

  test('brackets inside strings do not count, escaped quotes do not end them', async () => {
    const id = await initialize(running.url);
    const text = `\\"${'['.repeat(deep)}`;
    const answer = await send(running.url, {
      headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${text}"}}}`,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('[[[[');
    expect(answer.body).not.toContain('too_deep');
  });

  test('nesting up to maxJsonDepth is read; one more level is refused', async () => {
    // The envelope, params, capabilities, experimental and four more objects: 8 levels.
    const nested = (levels: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {
            experimental:
              levels === 8 ? { a: { b: { c: { d: {} } } } } : { a: { b: { c: { d: { e: {} } } } } },
          },
          clientInfo: { name: 'raw', version: '1' },
        },
      });
    expect((await send(small.url, { body: nested(8) })).status).toBe(200);
    const over = await send(small.url, { body: nested(9) });
    expect(over.status).toBe(400);
    expect(rpcErrorOf(over).data).toEqual({ reason: 'too_deep', limit: 8 });
  });

  test.each([
    ['with a Content-Length', false],
    ['chunked', true],
  ])('a body over maxBodyBytes, %s → 413, -32600, and the answer arrives', async (_name, chunked) => {
    const body = Buffer.alloc(64 * 1024, 0x20);
    const answer = await send(small.url, { body, chunked });
    expect(answer.status).toBe(413);
    const error = rpcErrorOf(answer);
    expect(error.code).toBe(-32600);
    expect(error.data).toMatchObject({ reason: 'too_large', limit: 1024 });
  });

  test('a body over the default 4 MiB → 413', async () => {
    const answer = await send(running.url, { body: Buffer.alloc(5 * 1024 * 1024, 0x20) });
    expect(answer.status).toBe(413);
    expect(rpcErrorOf(answer).data).toMatchObject({ reason: 'too_large', limit: 4 * 1024 * 1024 });
  });

  test('the server still answers afterwards', async () => {
    expect(await initialize(running.url)).toEqual(expect.any(String));
  });
});
