import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type CallRecord, Registry } from '../../src/index.js';
import {
  elicitationApprover,
  type RunningHttpServer,
  serveHttp,
  TOOLS_LIST_TTL_MS,
} from '../../src/mcp/index.js';
import { RequestStateSealer } from '../../src/mcp/request-state.js';
import { CALL_TOOL_NAME, type ToolSearch, withToolSearch } from '../../src/search/index.js';
import { fixtureGate, fixtureTools } from '../fixtures/mcp/tools.js';
import { invalidMessages, type Recording, ROOT, recordingFetch, text } from '../mcp/support/wire.js';
import { toolpactArgs } from '../support/cli-build.js';

// `serve --search` on revision 2026-07-28: a list that cannot vary per client, so a fixed list with
// `call_tool`, which runs a found tool as that tool (gate, approvals, audit). The legacy era's
// per-session loading is test/search/serve.test.ts.

const VERSION = '2026-07-28';
const WORST_CASE = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

let notes: string;
let registry: Registry;
let search: ToolSearch;
let running: RunningHttpServer;
const records: CallRecord[] = [];

function searchRegistry(into: CallRecord[], dir: string | undefined): Registry {
  const built: Registry = new Registry({
    beforeCall: (request) => (request.tool.name === 'register_extra' ? undefined : fixtureGate(request)),
    approver: elicitationApprover(),
    observe: (record) => into.push(record),
  });
  return built.register(
    fixtureTools(dir, (extra) => {
      if (!built.has(extra.contract.name)) built.register(extra);
    }),
  );
}

beforeAll(async () => {
  notes = mkdtempSync(join(tmpdir(), 'toolpact-search-modern-'));
  registry = searchRegistry(records, notes);
  search = withToolSearch(registry, { alwaysLoaded: ['echo'] });
  running = await serveHttp(registry, {
    listing: search,
    requestState: new RequestStateSealer({ key: 'b'.repeat(64) }),
  });
});

afterAll(async () => {
  await running?.close();
  search?.close();
  rmSync(notes, { recursive: true, force: true });
});

const recordings: Recording[] = [];
const pending: Promise<void>[] = [];

async function modernClient(elicit: boolean, answers: unknown[] = []): Promise<Client> {
  const client = new Client(
    { name: 'search-modern', version: '1.0.0' },
    {
      capabilities: elicit ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: { pin: VERSION } },
    },
  );
  if (elicit) {
    client.setRequestHandler('elicitation/create', (request) => {
      answers.push(request.params);
      return { action: 'accept', content: { decision: 'once' } };
    });
  }
  const into: Recording = { sent: [], received: [] };
  recordings.push(into);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(running.url), { fetch: recordingFetch(into, pending) }),
  );
  return client;
}

function envelopeOf(result: unknown): { ok: boolean; result?: unknown; error?: Record<string, unknown> } {
  return JSON.parse(text(result));
}

describe('serve --search, revision 2026-07-28 (v2 Client over HTTP)', () => {
  test('lists the always-loaded tools, search_tools and call_tool, call_tool annotated worst case', async () => {
    const client = await modernClient(false);
    expect(client.getProtocolEra()).toBe('modern');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'search_tools', CALL_TOOL_NAME]);
    const callTool = tools.find((tool) => tool.name === CALL_TOOL_NAME)!;
    expect(callTool.annotations).toEqual(WORST_CASE);
    expect(callTool.inputSchema).toMatchObject({
      required: ['name'],
      properties: { name: { type: 'string' } },
    });
    expect(tools.find((tool) => tool.name === 'search_tools')!.description).toContain(CALL_TOOL_NAME);
    await client.close();
  });

  test('search results carry each tool’s full input schema, and nothing is loaded into any list', async () => {
    const client = await modernClient(false);
    const before = search.activeTools();
    const found = envelopeOf(
      await client.callTool({
        name: 'search_tools',
        arguments: { query: 'add two numbers and return the sum', k: 1 },
      }),
    );
    expect(found.ok).toBe(true);
    const add = registry.get('add')!.contract;
    expect(found.result).toEqual({
      tools: [{ name: 'add', description: add.description, inputSchema: add.parameters }],
      message: expect.stringContaining(CALL_TOOL_NAME),
    });
    expect(search.activeTools()).toEqual(before);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'echo',
      'search_tools',
      CALL_TOOL_NAME,
    ]);
    await client.close();
  });

  test('call_tool of a read tool runs it, observed as that tool', async () => {
    const client = await modernClient(false);
    records.length = 0;
    const sum = envelopeOf(
      await client.callTool({ name: CALL_TOOL_NAME, arguments: { name: 'add', arguments: { a: 2, b: 3 } } }),
    );
    expect(sum).toEqual({ ok: true, result: { sum: 5 } });
    expect(records.map((record) => [record.tool, record.outcome])).toEqual([['add', 'ok']]);
    await client.close();
  });

  test('call_tool with bad arguments is invalid_arguments of the named tool; malformed call_tool, of call_tool', async () => {
    const client = await modernClient(false);
    const bad = await client.callTool({
      name: CALL_TOOL_NAME,
      arguments: { name: 'add', arguments: { a: 'x' } },
    });
    expect(bad.isError).toBe(true);
    expect(envelopeOf(bad).error).toMatchObject({ type: 'invalid_arguments', tool: 'add' });
    const malformed = await client.callTool({ name: CALL_TOOL_NAME, arguments: { arguments: {} } });
    expect(malformed.isError).toBe(true);
    expect(envelopeOf(malformed).error).toMatchObject({ type: 'invalid_arguments', tool: CALL_TOOL_NAME });
    await client.close();
  });

  test('call_tool of an unknown tool is unknown_tool with suggestions, as a tool result', async () => {
    const client = await modernClient(false);
    const unknown = await client.callTool({ name: CALL_TOOL_NAME, arguments: { name: 'ad', arguments: {} } });
    expect(unknown.isError).toBe(true);
    const error = envelopeOf(unknown).error!;
    expect(error).toMatchObject({ type: 'unknown_tool', tool: 'ad' });
    expect(error.suggestions).toContain('add');
    await client.close();
  });

  test('call_tool of a tool the gate asks for is approved through input_required, asked and observed as that tool', async () => {
    const asked: unknown[] = [];
    const client = await modernClient(true, asked);
    records.length = 0;
    const written = await client.callTool({
      name: CALL_TOOL_NAME,
      arguments: { name: 'write_note', arguments: { file: 'via-call-tool.txt', text: 'hello' } },
    });
    expect(envelopeOf(written)).toMatchObject({ ok: true, result: { written: 'via-call-tool.txt' } });
    expect(readFileSync(join(notes, 'via-call-tool.txt'), 'utf8')).toBe('hello');
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0])).toContain('write_note');
    // The paused call and the approved one, both as write_note (never as call_tool).
    expect(records.map((record) => record.tool)).toEqual(['write_note', 'write_note']);
    expect(records.at(-1)).toMatchObject({
      outcome: 'ok',
      decision: { action: 'ask', rule: 'fixture-write' },
    });
    await client.close();
  });

  test('every message of the v2 Client and of our server validates against the 2026-07-28 schema', async () => {
    await Promise.all(pending);
    expect(recordings.length).toBeGreaterThanOrEqual(6);
    for (const into of recordings) {
      expect(invalidMessages('client', into, VERSION)).toEqual([]);
      expect(invalidMessages('server', { sent: into.received, received: into.sent }, VERSION)).toEqual([]);
    }
  });
});

describe('the sealed approval names the real tool and its arguments', () => {
  let id = 1000;
  async function post(params: Record<string, unknown>, method = 'tools/call') {
    const response = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': VERSION,
        'mcp-method': method,
        ...(method === 'tools/call' ? { 'mcp-name': CALL_TOOL_NAME } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
    });
    const raw = await response.text();
    const line = raw.startsWith('{')
      ? raw
      : (raw.split('\n').find((each) => each.startsWith('data: ')) ?? '').slice(6);
    return (JSON.parse(line) as { result: Record<string, unknown> }).result;
  }
  const meta = {
    'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };

  test('the fixed list is cached like any other (it no longer changes with searches)', async () => {
    const listed = await post({ _meta: meta }, 'tools/list');
    expect(listed).toMatchObject({ resultType: 'complete', ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'public' });
  });

  test('a retry whose call_tool names other arguments is refused; the same ones run', async () => {
    const call = { name: 'write_note', arguments: { file: 'raw.txt', text: 'x' } };
    const first = await post({ name: CALL_TOOL_NAME, arguments: call, _meta: meta });
    expect(first).toMatchObject({ resultType: 'input_required' });
    const question = JSON.stringify(first.inputRequests);
    expect(question).toContain('write_note');
    const once = { approval: { action: 'accept', content: { decision: 'once' } } };
    const other = await post({
      name: CALL_TOOL_NAME,
      arguments: { ...call, arguments: { file: 'other.txt', text: 'x' } },
      inputResponses: once,
      requestState: first.requestState,
      _meta: meta,
    });
    expect(JSON.parse(text(other))).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
    const again = await post({ name: CALL_TOOL_NAME, arguments: call, _meta: meta });
    const done = await post({
      name: CALL_TOOL_NAME,
      arguments: call,
      inputResponses: once,
      requestState: again.requestState,
      _meta: meta,
    });
    expect(JSON.parse(text(done))).toMatchObject({ ok: true, result: { written: 'raw.txt' } });
  });
});

describe('serve --search with stateless HTTP: every client gets call_tool', () => {
  let stateless: RunningHttpServer;
  let statelessSearch: ToolSearch;
  const seen: CallRecord[] = [];
  beforeAll(async () => {
    const own = searchRegistry(seen, undefined);
    statelessSearch = withToolSearch(own, { alwaysLoaded: ['echo'], stateless: true });
    stateless = await serveHttp(own, { listing: statelessSearch.stateless, stateless: true });
  });
  afterAll(async () => {
    await stateless?.close();
    statelessSearch?.close();
  });

  test('a 2025 client is listed call_tool, searches get schemas, and call_tool runs the named tool', async () => {
    const client = new LegacyClient({ name: 'legacy-stateless', version: '1.0.0' });
    await client.connect(new LegacyHttpTransport(new URL(stateless.url)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['echo', 'search_tools', CALL_TOOL_NAME]);
      expect(tools.at(-1)!.annotations).toEqual(WORST_CASE);
      const found = envelopeOf(
        await client.callTool({
          name: 'search_tools',
          arguments: { query: 'count the words of a text', k: 1 },
        }),
      );
      expect(found.result).toMatchObject({
        tools: [{ name: 'count_words', inputSchema: { type: 'object' } }],
      });
      expect(statelessSearch.activeTools()).toEqual(['echo', 'search_tools']);
      seen.length = 0;
      const counted = envelopeOf(
        await client.callTool({
          name: CALL_TOOL_NAME,
          arguments: { name: 'count_words', arguments: { text: 'one two three' } },
        }),
      );
      expect(counted).toEqual({ ok: true, result: 3 });
      expect(seen.map((record) => record.tool)).toEqual(['count_words']);
    } finally {
      await client.close();
    }
  });
});

describe('toolpact serve --search over stdio, revision 2026-07-28 (the CLI)', () => {
  test('lists read_file, search_tools and call_tool; call_tool reads a file as read_file', async () => {
    const client = new Client(
      { name: 'search-cli-modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: VERSION } } },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: toolpactArgs(
          'serve',
          join('examples', 'workspace', 'index.ts'),
          '--search',
          '--always-loaded',
          'read_file',
        ),
        cwd: ROOT,
        stderr: 'pipe',
      }),
    );
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['read_file', 'search_tools', CALL_TOOL_NAME]);
      const found = envelopeOf(
        await client.callTool({
          name: 'search_tools',
          arguments: { query: 'list the files of a folder', k: 1 },
        }),
      );
      const [first] = (found.result as { tools: { name: string; inputSchema: unknown }[] }).tools;
      expect(first?.inputSchema).toMatchObject({ type: 'object' });
      const listed = envelopeOf(
        await client.callTool({ name: CALL_TOOL_NAME, arguments: { name: first!.name, arguments: {} } }),
      );
      expect(listed.ok).toBe(true);
    } finally {
      await client.close();
    }
  });
});
