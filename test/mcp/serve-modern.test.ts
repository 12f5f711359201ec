import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, type Registry } from '../../src/index.js';
import {
  DISCOVER_TTL_MS,
  mcpContextOf,
  type RunningHttpServer,
  serveHttp,
  TOOLS_LIST_TTL_MS,
} from '../../src/mcp/index.js';
import { RequestStateSealer } from '../../src/mcp/request-state.js';
import { fixtureRegistry } from '../fixtures/mcp/tools.js';
import { fixtureArgs } from '../support/cli-build.js';
import {
  invalidMessages,
  type Recording,
  ROOT,
  recordingFetch,
  responseMessages,
  text,
} from './support/wire.js';

// Revision 2026-07-28 on serveHttp: raw HTTP with fetch (every header and status seen as sent) and the
// real v2 Client pinned to the revision. The legacy era on the same endpoint is serve-http.test.ts.

const VERSION = '2026-07-28';
const KEY = 'a'.repeat(64);
type Message = Recording['sent'][number];

function meta(capabilities: object = {}, extra: object = {}) {
  return {
    'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    ...extra,
  };
}

const recording: Recording = { sent: [], received: [] };
let nextId = 1;

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly messages: Message[];
  /** The result (or the error) of the response to this request. */
  readonly result: Record<string, unknown> & { resultType?: string };
  readonly error: { code: number; message: string; data?: unknown } | undefined;
}

/** One POST, with the standard headers of the revision unless `headers` overrides them. */
async function post(
  url: string,
  method: string,
  params: Record<string, unknown>,
  options: { headers?: Record<string, string>; record?: boolean } = {},
): Promise<Answer> {
  const id = nextId++;
  const body = { jsonrpc: '2.0' as const, id, method, params };
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': method,
      ...name,
      ...options.headers,
    },
    body: JSON.stringify(body),
  });
  const raw = await response.text();
  const messages = responseMessages(response.headers.get('content-type'), raw);
  if (options.record !== false) {
    recording.sent.push(body as Message);
    recording.received.push(...messages);
  }
  const answer = messages.find((message) => 'id' in message && message.id === id) as
    | { result?: Record<string, unknown>; error?: Answer['error'] }
    | undefined;
  return {
    status: response.status,
    headers: response.headers,
    messages,
    result: (answer?.result ?? {}) as Answer['result'],
    error: answer?.error,
  };
}

const chatty = defineTool({
  name: 'chatty',
  description: 'Log once at debug and once at warning.',
  category: 'read',
  input: z.object({}),
  execute: async (_args, { state }) => {
    const mcp = mcpContextOf(state);
    await mcp?.log('debug', 'details');
    await mcp?.log('warning', 'careful');
    return { era: mcp?.era ?? null, client: mcp?.clientInfo?.name ?? null, session: mcp?.sessionId ?? null };
  },
});

let notes: string;
let registry: Registry;
let running: RunningHttpServer;
let replica: RunningHttpServer;

beforeAll(async () => {
  notes = mkdtempSync(join(tmpdir(), 'toolpact-modern-notes-'));
  registry = fixtureRegistry(notes).register(chatty);
  running = await serveHttp(registry, {
    name: 'fixture-modern',
    pageSize: 4,
    instructions: 'Fixture tools.',
    requestState: new RequestStateSealer({ key: KEY }),
  });
  // A second replica of the same deployment: same module, same state key, no shared memory.
  replica = await serveHttp(fixtureRegistry(notes), { requestState: new RequestStateSealer({ key: KEY }) });
});

afterAll(async () => {
  await running?.close();
  await replica?.close();
  rmSync(notes, { recursive: true, force: true });
});

describe('the wire rules of revision 2026-07-28, raw over HTTP', () => {
  test('server/discover: supported versions, capabilities, instructions, serverInfo, its own ttlMs and cacheScope', async () => {
    const answer = await post(running.url, 'server/discover', { _meta: meta() });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    expect(answer.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining([VERSION]),
      capabilities: { tools: { listChanged: true } },
      instructions: 'Fixture tools.',
      ttlMs: DISCOVER_TTL_MS,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'fixture-modern' } },
    });
  });

  test('a bare server/discover (no envelope, no session) is answered in the modern era, not "no session"', async () => {
    const response = await fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'bare', method: 'server/discover' }),
    });
    const body = (await response.json()) as { error: { code: number; message: string } };
    expect(body.error.message).not.toMatch(/session/i);
    expect([-32022, -32602]).toContain(body.error.code);
  });

  test('tools/list: resultType, ttlMs and cacheScope on every page, the same order every time, no session', async () => {
    const pages: string[][] = [];
    for (let round = 0; round < 2; round++) {
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const answer = await post(running.url, 'tools/list', {
          _meta: meta(),
          ...(cursor ? { cursor } : {}),
        });
        expect(answer.headers.get('mcp-session-id')).toBeNull();
        expect(answer.result).toMatchObject({
          resultType: 'complete',
          ttlMs: TOOLS_LIST_TTL_MS,
          cacheScope: 'public',
        });
        const tools = answer.result.tools as { name: string }[];
        expect(tools.length).toBeLessThanOrEqual(4);
        names.push(...tools.map((tool) => tool.name));
        cursor = answer.result.nextCursor as string | undefined;
      } while (cursor !== undefined);
      pages.push(names);
    }
    expect(pages[0]).toEqual(registry.schemas().map((contract) => contract.name));
    expect(pages[1]).toEqual(pages[0]);
  });

  test('a call answers resultType complete and runs through the registry; the context says modern, no session', async () => {
    const answer = await post(running.url, 'tools/call', { name: 'chatty', arguments: {}, _meta: meta() });
    expect(answer.result.resultType).toBe('complete');
    expect(JSON.parse(text(answer.result)).result).toEqual({ era: 'modern', client: 'raw', session: null });
  });

  test('the log level is read from each request: none asked, no log messages; warning asked, only warning', async () => {
    const silent = await post(running.url, 'tools/call', { name: 'chatty', arguments: {}, _meta: meta() });
    expect(silent.messages.filter((message) => 'method' in message)).toEqual([]);
    const warned = await post(running.url, 'tools/call', {
      name: 'chatty',
      arguments: {},
      _meta: meta({}, { 'io.modelcontextprotocol/logLevel': 'warning' }),
    });
    const logs = warned.messages.filter(
      (message) => 'method' in message && message.method === 'notifications/message',
    );
    expect(logs.map((message) => (message as unknown as { params: { level: string } }).params.level)).toEqual(
      ['warning'],
    );
  });

  test('Mcp-Method and Mcp-Name are checked against the body: a mismatch or an absence is 400 HeaderMismatch (-32020)', async () => {
    const call = { name: 'echo', arguments: { text: 'x' }, _meta: meta() };
    const wrongName = await post(running.url, 'tools/call', call, {
      headers: { 'mcp-name': 'add' },
      record: false,
    });
    const wrongMethod = await post(running.url, 'tools/call', call, {
      headers: { 'mcp-method': 'tools/list' },
      record: false,
    });
    const wrongVersion = await post(
      running.url,
      'tools/list',
      { _meta: meta() },
      {
        headers: { 'mcp-protocol-version': '2025-11-25' },
        record: false,
      },
    );
    for (const answer of [wrongName, wrongMethod, wrongVersion]) {
      expect(answer.status).toBe(400);
      expect(answer.error?.code).toBe(-32020);
    }
  });

  test('an unsupported version is 400 UnsupportedProtocolVersion (-32022) naming what is supported', async () => {
    const answer = await post(
      running.url,
      'tools/list',
      { _meta: { ...meta(), 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      { headers: { 'mcp-protocol-version': '2099-01-01' }, record: false },
    );
    expect(answer.status).toBe(400);
    expect(answer.error).toMatchObject({
      code: -32022,
      data: { supported: [VERSION], requested: '2099-01-01' },
    });
  });

  test('no ping, no logging/setLevel on the modern era (404, -32601); roots/list_changed is accepted and ignored', async () => {
    for (const method of ['ping', 'logging/setLevel']) {
      const answer = await post(running.url, method, { level: 'debug', _meta: meta() }, { record: false });
      expect(answer.status).toBe(404);
      expect(answer.error?.code).toBe(-32601);
    }
    const notified = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': VERSION,
        'mcp-method': 'notifications/roots/list_changed',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/roots/list_changed',
        params: { _meta: meta() },
      }),
    });
    expect(notified.status).toBe(202);
  });
});

describe('approvals as multi round-trip requests', () => {
  const form = { elicitation: { form: {} } };

  async function ask(file: string, url = running.url) {
    const answer = await post(url, 'tools/call', {
      name: 'write_note',
      arguments: { file, text: 'x' },
      _meta: meta(form),
    });
    return answer;
  }

  async function retry(file: string, requestState: string, response: unknown, url = running.url) {
    return post(url, 'tools/call', {
      name: 'write_note',
      arguments: { file, text: 'x' },
      inputResponses: { approval: response },
      requestState,
      _meta: meta(form),
    });
  }

  const once = { action: 'accept', content: { decision: 'once' } };

  test('an ask answers input_required with the approval form (no "session") and a sealed requestState; accept runs it once', async () => {
    const first = await ask('mrtr.txt');
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        approval: {
          method: 'elicitation/create',
          params: { requestedSchema: { properties: { decision: { enum: ['once', 'deny'] } } } },
        },
      },
      requestState: expect.any(String),
    });
    expect(first.result).not.toHaveProperty('ttlMs');
    expect(existsSync(join(notes, 'mrtr.txt'))).toBe(false);

    const second = await retry('mrtr.txt', first.result.requestState as string, once);
    expect(second.result.resultType).toBe('complete');
    expect(JSON.parse(text(second.result))).toMatchObject({ ok: true, result: { written: 'mrtr.txt' } });

    const replayed = await retry('mrtr.txt', first.result.requestState as string, once);
    expect(replayed.result.isError).toBe(true);
    expect(JSON.parse(text(replayed.result)).error).toMatchObject({ type: 'permission_denied' });
    expect(JSON.parse(text(replayed.result)).error.message).toMatch(/already been used/);
    expect(readdirSync(notes).filter((file) => file === 'mrtr.txt')).toHaveLength(1);
  });

  test('decline and cancel are permission_denied; nothing is written', async () => {
    for (const action of ['decline', 'cancel']) {
      const first = await ask(`${action}.txt`);
      const second = await retry(`${action}.txt`, first.result.requestState as string, { action });
      expect(JSON.parse(text(second.result)).error).toMatchObject({
        type: 'permission_denied',
        rule: 'fixture-write',
      });
      expect(existsSync(join(notes, `${action}.txt`))).toBe(false);
    }
  });

  test('a tampered, foreign-argument or foreign-key state runs nothing', async () => {
    const first = await ask('target.txt');
    const state = first.result.requestState as string;
    const tampered = `${state.slice(0, 20)}${state[20] === 'A' ? 'B' : 'A'}${state.slice(21)}`;
    // A state that cannot be opened is a malformed request, not a decision: -32602, HTTP 400.
    const bad = await retry('target.txt', tampered, once);
    expect(bad.error).toMatchObject({ code: -32602, message: expect.stringMatching(/integrity check/) });
    const other = await retry('other.txt', state, once);
    expect(JSON.parse(text(other.result)).error.message).toMatch(/another call/);
    const foreignKey = await serveHttp(fixtureRegistry(notes), {
      requestState: new RequestStateSealer({ key: 'b'.repeat(64) }),
    });
    try {
      const foreign = await retry('target.txt', state, once, foreignKey.url);
      expect(foreign.error).toMatchObject({ code: -32602 });
      expect(foreign.error?.message).toMatch(/key this server does not hold/);
    } finally {
      await foreignKey.close();
    }
    expect(existsSync(join(notes, 'target.txt'))).toBe(false);
    expect(existsSync(join(notes, 'other.txt'))).toBe(false);
  });

  test('an expired state runs nothing and says to ask afresh', async () => {
    // A server whose states live 20 ms on its clock, and the clock moved on 60 ms before the retry.
    let clock = Date.now();
    const brief = await serveHttp(fixtureRegistry(notes), {
      requestState: new RequestStateSealer({ key: KEY, ttlMs: 20, now: () => clock }),
    });
    try {
      const first = await ask('expired.txt', brief.url);
      expect(first.result.resultType).toBe('input_required');
      clock += 60;
      const late = await retry('expired.txt', first.result.requestState as string, once, brief.url);
      const envelope = JSON.parse(text(late.result));
      expect(envelope.error.type).toBe('permission_denied');
      expect(envelope.error.message).toMatch(/expired/);
      expect(envelope.error.message).toMatch(/without requestState/);
      expect(existsSync(join(notes, 'expired.txt'))).toBe(false);
    } finally {
      await brief.close();
    }
  });

  test('a state sealed for one definition of a tool runs nothing when the name now has another', async () => {
    const first = await ask('changed.txt');
    // Same key, same name, a changed definition: the approval was given for what was shown, not for
    // whatever answers to the name now.
    const changedRegistry = fixtureRegistry(notes);
    const shown = changedRegistry.get('write_note');
    if (!shown) throw new Error('the fixture has no write_note');
    changedRegistry.unregister('write_note');
    changedRegistry.register({
      ...shown,
      contract: {
        ...shown.contract,
        description: `${shown.contract.description} It also sends the note away.`,
      },
    });
    const changed = await serveHttp(changedRegistry, { requestState: new RequestStateSealer({ key: KEY }) });
    try {
      const retried = await retry('changed.txt', first.result.requestState as string, once, changed.url);
      expect(retried.result.isError).toBe(true);
      expect(JSON.parse(text(retried.result)).error.type).toBe('permission_denied');
      expect(existsSync(join(notes, 'changed.txt'))).toBe(false);
    } finally {
      await changed.close();
    }
    // The definition that was shown still accepts it.
    const accepted = await retry('changed.txt', first.result.requestState as string, once);
    expect(JSON.parse(text(accepted.result))).toMatchObject({ ok: true });
  });

  test('any replica that shares the key can answer the retry', async () => {
    const first = await ask('replica.txt');
    const second = await retry('replica.txt', first.result.requestState as string, once, replica.url);
    expect(JSON.parse(text(second.result))).toMatchObject({ ok: true, result: { written: 'replica.txt' } });
  });

  test('a client that declared no elicitation is never sent one: permission_denied as a tool result', async () => {
    const answer = await post(running.url, 'tools/call', {
      name: 'write_note',
      arguments: { file: 'nocap.txt', text: 'x' },
      _meta: meta(),
    });
    expect(answer.status).toBe(200);
    expect(answer.result.resultType).toBe('complete');
    expect(answer.result).not.toHaveProperty('inputRequests');
    expect(answer.result.isError).toBe(true);
    expect(JSON.parse(text(answer.result)).error).toMatchObject({
      type: 'permission_denied',
      rule: 'fixture-write',
    });
    expect(existsSync(join(notes, 'nocap.txt'))).toBe(false);
  });
});

describe('the v2 Client pinned to 2026-07-28', () => {
  // One recording per Client: JSON-RPC ids are per connection.
  const clientRecordings: Recording[] = [];
  const pending: Promise<void>[] = [];

  async function pinned(elicit: boolean) {
    const client = new Client(
      { name: 'v2-client', version: '1.0.0' },
      {
        capabilities: elicit ? { elicitation: { form: {} } } : {},
        versionNegotiation: { mode: { pin: VERSION } },
      },
    );
    if (elicit) {
      client.setRequestHandler('elicitation/create', () => ({
        action: 'accept',
        content: { decision: 'once' },
      }));
    }
    const into: Recording = { sent: [], received: [] };
    clientRecordings.push(into);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(running.url), { fetch: recordingFetch(into, pending) }),
    );
    return client;
  }

  test('connects without a session, lists every page, calls, and is approved through input_required', async () => {
    const client = await pinned(true);
    expect(client.getProtocolEra()).toBe('modern');
    const listed = await client.listTools();
    expect(listed.tools.map((tool) => tool.name)).toEqual(
      registry.schemas().map((contract) => contract.name),
    );
    const sum = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    expect(sum.structuredContent).toEqual({ sum: 3 });
    const written = await client.callTool({
      name: 'write_note',
      arguments: { file: 'client.txt', text: 'x' },
    });
    expect(JSON.parse(text(written))).toMatchObject({ ok: true, result: { written: 'client.txt' } });
    expect(running.sessionCount()).toBe(0);
    await client.close();
  });

  test('subscriptions/listen carries tools list_changed when the registry changes', async () => {
    const client = await pinned(false);
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed += 1;
    });
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });
    await client.callTool({ name: 'register_extra', arguments: {} });
    for (let attempt = 0; attempt < 100 && changed === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(changed).toBeGreaterThanOrEqual(1);
    await subscription.close();
    await client.close();
  });

  test('every message of the v2 Client and of our server validates against the 2026-07-28 schema', async () => {
    await Promise.all(pending);
    expect(clientRecordings).toHaveLength(2);
    for (const into of clientRecordings) {
      expect(into.sent.length).toBeGreaterThan(2);
      expect(invalidMessages('client', into, VERSION)).toEqual([]);
      expect(invalidMessages('server', { sent: into.received, received: into.sent }, VERSION)).toEqual([]);
    }
  });
});

test('every raw message sent over HTTP validates against the MCP 2026-07-28 schema, and every result has a resultType', () => {
  expect(recording.sent.length).toBeGreaterThan(10);
  expect(invalidMessages('client', recording, VERSION)).toEqual([]);
  expect(invalidMessages('server', { sent: recording.received, received: recording.sent }, VERSION)).toEqual(
    [],
  );
  for (const message of recording.received) {
    if ('result' in message)
      expect((message.result as { resultType?: string }).resultType).toMatch(/^(complete|input_required)$/);
  }
});

describe('revision 2026-07-28 over stdio, raw JSON-RPC', () => {
  const SERVER = join(ROOT, 'test', 'fixtures', 'mcp', 'stdio-server.ts');
  const stdioRecording: Recording = { sent: [], received: [] };
  let child: ChildProcessWithoutNullStreams;
  let stdioNotes: string;
  const waiting = new Map<string | number, (message: Message) => void>();

  beforeAll(() => {
    stdioNotes = mkdtempSync(join(tmpdir(), 'toolpact-modern-stdio-'));
    child = spawn(process.execPath, fixtureArgs(SERVER), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', FIXTURE_NOTES_DIR: stdioNotes },
    });
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let end = buffer.indexOf('\n');
      while (end >= 0) {
        const line = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        end = buffer.indexOf('\n');
        if (!line) continue;
        const message = JSON.parse(line) as Message;
        stdioRecording.received.push(message);
        if ('id' in message && message.id !== undefined && !('method' in message)) {
          waiting.get(message.id)?.(message);
        }
      }
    });
  });

  afterAll(() => {
    child?.kill();
    rmSync(stdioNotes, { recursive: true, force: true });
  });

  interface StdioAnswer {
    // biome-ignore lint/suspicious/noExplicitAny: the tests read results of many shapes
    readonly result?: Record<string, any>;
    readonly error?: { code: number; message: string };
  }

  // `record: false` for what the revision's schema does not allow a client to send (removed methods).
  function send(method: string, params: Record<string, unknown>, record = true): Promise<StdioAnswer> {
    const id = nextId++;
    const message = { jsonrpc: '2.0' as const, id, method, params };
    if (record) stdioRecording.sent.push(message as Message);
    return new Promise((resolve) => {
      waiting.set(id, (answer) => {
        if (!record) stdioRecording.received.splice(stdioRecording.received.indexOf(answer), 1);
        resolve(answer as StdioAnswer);
      });
      child.stdin.write(`${JSON.stringify(message)}\n`);
    });
  }

  test('server/discover opens the modern era; tools/list and calls carry resultType; ping and setLevel do not exist', async () => {
    const discovered = await send('server/discover', { _meta: meta() });
    expect(discovered.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining([VERSION]),
      ttlMs: DISCOVER_TTL_MS,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'fixture' } },
    });
    const listed = await send('tools/list', { _meta: meta() });
    expect(listed.result).toMatchObject({
      resultType: 'complete',
      ttlMs: TOOLS_LIST_TTL_MS,
      cacheScope: 'public',
    });
    const called = await send('tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: meta() });
    expect(called.result?.resultType).toBe('complete');
    expect(JSON.parse(text(called.result))).toEqual({ ok: true, result: 'hi' });
    for (const method of ['ping', 'logging/setLevel']) {
      const refused = await send(method, { level: 'debug', _meta: meta() }, false);
      expect(refused.error?.code).toBe(-32601);
    }
  });

  test('an approval is an input_required round trip; without the capability the ask is denied', async () => {
    const call = { name: 'write_note', arguments: { file: 'stdio.txt', text: 'x' } };
    const first = await send('tools/call', { ...call, _meta: meta({ elicitation: { form: {} } }) });
    expect(first.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    expect(readdirSync(stdioNotes)).toEqual([]);
    const second = await send('tools/call', {
      ...call,
      inputResponses: { approval: { action: 'accept', content: { decision: 'once' } } },
      requestState: first.result?.requestState,
      _meta: meta({ elicitation: { form: {} } }),
    });
    expect(JSON.parse(text(second.result))).toMatchObject({ ok: true, result: { written: 'stdio.txt' } });
    const denied = await send('tools/call', { ...call, _meta: meta() });
    expect(JSON.parse(text(denied.result)).error).toMatchObject({ type: 'permission_denied' });
  });

  test('every message either side sent over stdio validates against the 2026-07-28 schema', () => {
    expect(invalidMessages('client', stdioRecording, VERSION)).toEqual([]);
    expect(
      invalidMessages('server', { sent: stdioRecording.received, received: stdioRecording.sent }, VERSION),
    ).toEqual([]);
  });
});
