import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { readGatewayConfig } from '../../src/gateway/config/index.js';
import { type Gateway, startGateway } from '../../src/gateway/gateway.js';
import type { CallRecord } from '../../src/index.js';
import { elicitationApprover, type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';
import { RequestStateSealer } from '../../src/mcp/request-state.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';
import { modernRequest, ROOT } from '../mcp/support/wire.js';
import { fixtureArgs } from '../support/cli-build.js';

// Revision 2026-07-28 clients through the gateway, whose upstreams ask them questions in the middle
// of a call: a legacy server pushing requests (the v1 SDK), and a 2026-07-28 server answering with
// input-required results (the conformance fixture registry). The gateway asks the client in rounds
// of its own, under the server's keys, while the call itself runs once on the server.

const ALL = { elicitation: { form: {} }, sampling: {}, roots: {} };
const MODERN = join(ROOT, 'test', 'fixtures', 'mcp', 'conformance', 'serve-stdio.ts');
const ASKING = join(ROOT, 'test', 'fixtures', 'gateway', 'asking-server.mjs');
const IN_TURN = join(ROOT, 'test', 'fixtures', 'gateway', 'asking-in-turn.ts');
const WINDOW_MS = 1_500;

let dir: string;
let askingLog: string;
let gateway: Gateway;
let running: RunningHttpServer;
const audit: CallRecord[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-gateway-rounds-'));
  askingLog = join(dir, 'asking.log');
  writeFileSync(askingLog, '');
  const file = join(dir, 'mcp.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        modern: { command: process.execPath, args: fixtureArgs(MODERN) },
        asking: { command: process.execPath, args: [ASKING], env: { ASKING_LOG: askingLog } },
        careful: { command: process.execPath, args: [ASKING] },
        inturn: { command: process.execPath, args: fixtureArgs(IN_TURN) },
      },
      toolpact: {
        servers: { modern: { roots: 'client' }, asking: { roots: 'client' }, careful: { prefix: 'always' } },
      },
    }),
  );
  const gate = createPolicyGate(
    definePolicy({
      rules: [
        {
          id: 'all',
          action: 'allow',
          source: ['mcp:modern', 'mcp:asking', 'mcp:inturn'],
          target: ['tool', 'resource', 'prompt', 'sampling'],
        },
        // careful's tools are allowed; its sampling is not named, so it asks.
        { id: 'careful-tools', action: 'allow', source: 'mcp:careful' },
      ],
    }),
  );
  gateway = await startGateway({
    config: readGatewayConfig(file),
    watch: false,
    registry: {
      ...gate.registryOptions,
      approver: elicitationApprover(),
      observe: (record) => void audit.push(record),
    },
  });
  await gateway.firstListing();
  running = await serveHttp(gateway.registry, {
    listing: gateway.listing,
    dialect: true,
    requestState: new RequestStateSealer({ ttlMs: WINDOW_MS }),
  });
}, 60_000);

afterAll(async () => {
  await running?.close();
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  readonly result?: Record<string, unknown> & {
    readonly resultType?: string;
    readonly requestState?: string;
    readonly inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
    readonly content?: { type: string; text?: string }[];
    readonly messages?: unknown[];
  };
  readonly error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** One revision 2026-07-28 request to `url` (the gateway's, unless another is named). */
function sendTo(
  url: string,
  method: 'tools/call' | 'prompts/get' | 'resources/read',
  params: Record<string, unknown>,
  capabilities: object = ALL,
): Promise<Answer> {
  return modernRequest(url, method, params, capabilities) as Promise<Answer>;
}

const send = (
  method: 'tools/call' | 'prompts/get' | 'resources/read',
  params: Record<string, unknown>,
  capabilities?: object,
) => sendTo(running.url, method, params, capabilities);

const call = (name: string, extra: Record<string, unknown> = {}, capabilities?: object) =>
  send('tools/call', { name, arguments: {}, ...extra }, capabilities);
const textOf = (answer: Answer) => answer.result?.content?.map((block) => block.text ?? '').join('') ?? '';
const asking = () => readFileSync(askingLog, 'utf8');

describe('a legacy server that pushes its questions in the middle of its one run', () => {
  test('the question reaches the client as an input request, and the answer finishes the same run', async () => {
    const first = await call('confirm_then_note');
    expect(first.result?.resultType).toBe('input_required');
    const [[key, request]] = Object.entries(first.result?.inputRequests ?? {}) as [
      [string, { method: string; params: { message: string } }],
    ];
    expect(request.method).toBe('elicitation/create');
    expect(request.params.message).toBe('The MCP server "asking" asks: Note it?');
    const done = await call('confirm_then_note', {
      requestState: first.result?.requestState,
      inputResponses: { [key]: { action: 'accept', content: { ok: true } } },
    });
    expect(textOf(done)).toBe('noted accept');
    // One run on the server: never sent twice to collect the answer.
    expect(asking().match(/started confirm_then_note/g)).toHaveLength(1);
    expect(asking()).toContain('noted accept {"ok":true}');
    // Audited once, as the call it was, not as a failed round.
    expect(audit.filter((record) => record.tool === 'confirm_then_note').map((r) => r.outcome)).toEqual([
      'ok',
    ]);
  });

  test('sampling from the server is asked of the client in a round, and its answer reaches the server', async () => {
    const first = await call('ask_model');
    const entries = Object.entries(first.result?.inputRequests ?? {});
    expect(entries.map(([, request]) => request.method)).toEqual(['sampling/createMessage']);
    const done = await call('ask_model', {
      requestState: first.result?.requestState,
      inputResponses: {
        [entries[0]![0]]: {
          role: 'assistant',
          content: { type: 'text', text: 'Paris' },
          model: 'test',
          stopReason: 'endTurn',
        },
      },
    });
    expect(textOf(done)).toBe('model said Paris');
  });

  test('a client that declared no sampling is refused with -32021, and the run is given up', async () => {
    const refused = await call('ask_model', {}, { elicitation: { form: {} } });
    expect(refused.error?.code).toBe(-32021);
    expect(refused.error?.message).toContain('sampling');
  });

  test('a client that never comes back: the run is given up after the window, and the server hears of it', async () => {
    const before = asking().match(/started confirm_then_note/g)?.length ?? 0;
    const first = await call('confirm_then_note');
    expect(first.result?.resultType).toBe('input_required');
    await vi.waitFor(() => expect(asking()).toContain('noted cancel'), { timeout: 15_000, interval: 100 });
    expect(asking().match(/started confirm_then_note/g)).toHaveLength(before + 1);
    // Its state names a call that is no longer held: the retry is told to start again.
    const late = await call('confirm_then_note', {
      requestState: first.result?.requestState,
      inputResponses: {
        [Object.keys(first.result?.inputRequests ?? {})[0]!]: { action: 'accept', content: { ok: true } },
      },
    });
    expect(late.result?.isError).toBe(true);
    expect(textOf(late)).toMatch(/no longer running|expired/);
  });
});

describe('sampling the policy asks about, for a 2026-07-28 client', () => {
  const sampled = {
    role: 'assistant',
    content: { type: 'text', text: 'Oslo' },
    model: 'test',
    stopReason: 'endTurn',
  };

  test('the approval form is asked in a round of the held call, then the sampling itself', async () => {
    const first = await call('careful_ask_model');
    const [approvalKey, approval] = Object.entries(first.result?.inputRequests ?? {})[0]!;
    expect(approval?.method).toBe('elicitation/create');
    expect(String(approval?.params.message)).toMatch(
      /^Allow the MCP server "careful" to ask your model for a completion .*"maxTokens":5/,
    );
    // Revision 2026-07-28 has no session to approve for: once or deny.
    expect(JSON.stringify(approval?.params.requestedSchema)).not.toContain('session');
    const second = await call('careful_ask_model', {
      requestState: first.result?.requestState,
      inputResponses: { [approvalKey]: { action: 'accept', content: { decision: 'once' } } },
    });
    const [samplingKey, sampling] = Object.entries(second.result?.inputRequests ?? {})[0]!;
    expect(sampling?.method).toBe('sampling/createMessage');
    const done = await call('careful_ask_model', {
      requestState: second.result?.requestState,
      inputResponses: { [samplingKey]: sampled },
    });
    expect(textOf(done)).toBe('model said Oslo');
  });

  test('denied in the form, the model is never asked and the server is told', async () => {
    const first = await call('careful_ask_model');
    const [approvalKey] = Object.keys(first.result?.inputRequests ?? {});
    const done = await call('careful_ask_model', {
      requestState: first.result?.requestState,
      inputResponses: { [approvalKey!]: { action: 'accept', content: { decision: 'deny' } } },
    });
    // No further round: the model is not asked; the server heard why, and its tool failed on it.
    expect(done.result?.inputRequests).toBeUndefined();
    expect(done.result?.isError).toBe(true);
    expect(textOf(done)).toMatch(
      /policy refused "sampling\/createMessage" from "careful": .*the user denied/,
    );
  });
});

describe('a 2026-07-28 server that answers with input-required results', () => {
  test("the server's key and message pass on, and the retry's answer reaches it", async () => {
    const first = await call('test_input_required_result_elicitation');
    expect(Object.keys(first.result?.inputRequests ?? {})).toEqual(['user_name']);
    const done = await call('test_input_required_result_elicitation', {
      requestState: first.result?.requestState,
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
    });
    expect(textOf(done)).toContain('Hello, Alice!');
  });

  test('two rounds one after the other, each under its own key', async () => {
    const first = await call('test_input_required_result_multi_round');
    expect(Object.keys(first.result?.inputRequests ?? {})).toEqual(['step1']);
    const second = await call('test_input_required_result_multi_round', {
      requestState: first.result?.requestState,
      inputResponses: { step1: { action: 'accept', content: { name: 'Ann' } } },
    });
    expect(Object.keys(second.result?.inputRequests ?? {})).toEqual(['step2']);
    const done = await call('test_input_required_result_multi_round', {
      requestState: second.result?.requestState,
      inputResponses: { step2: { action: 'accept', content: { color: 'teal' } } },
    });
    expect(textOf(done)).toContain('Ann likes teal.');
  });

  test('the server is told what this client can answer, and asks only that', async () => {
    const first = await call('test_input_required_result_capabilities', {}, { sampling: {} });
    const methods = Object.values(first.result?.inputRequests ?? {}).map((request) => request.method);
    expect(methods).toEqual(['sampling/createMessage']);
  });

  test("the server's -32021 for a capability the client did not declare reaches the client as -32021", async () => {
    const refused = await call('test_missing_capability', {}, {});
    expect(refused.error?.code).toBe(-32021);
  });

  test("a -32021 the server answers in a later round (the client declared the form, not the model) is the client's -32021", async () => {
    const formOnly = { elicitation: { form: {} } };
    const first = await call('confirm_then_sample', {}, formOnly);
    expect(Object.keys(first.result?.inputRequests ?? {})).toEqual(['go_on']);
    const refused = await call(
      'confirm_then_sample',
      {
        requestState: first.result?.requestState,
        inputResponses: { go_on: { action: 'accept', content: { ok: true } } },
      },
      formOnly,
    );
    expect(refused.error?.code).toBe(-32021);
    expect(JSON.stringify(refused.error?.data)).toContain('sampling');
  });

  test('a resource whose read asks: resources/read answers input-required, then the contents', async () => {
    const first = await send('resources/read', { uri: 'inturn://chosen-note' });
    expect(Object.keys(first.result?.inputRequests ?? {})).toEqual(['which']);
    const done = await send('resources/read', {
      uri: 'inturn://chosen-note',
      requestState: first.result?.requestState,
      inputResponses: { which: { action: 'accept', content: { name: 'todo' } } },
    });
    expect(done.result?.contents).toEqual([{ uri: 'inturn://chosen-note', text: 'note todo' }]);
  });

  test('a read is sent with what the reader can answer: to a reader without elicitation, the server refuses rather than asks', async () => {
    const refused = await send('resources/read', { uri: 'inturn://chosen-note' }, { sampling: {} });
    expect(refused.result?.inputRequests).toBeUndefined();
    expect(refused.error?.message).toMatch(/elicitation/);
  });

  test('a prompt that asks: prompts/get answers input-required, then the prompt', async () => {
    const first = await send('prompts/get', { name: 'test_input_required_result_prompt' });
    expect(Object.keys(first.result?.inputRequests ?? {})).toEqual(['user_context']);
    const done = await send('prompts/get', {
      name: 'test_input_required_result_prompt',
      requestState: first.result?.requestState,
      inputResponses: { user_context: { action: 'accept', content: { context: 'tests' } } },
    });
    expect(JSON.stringify(done.result?.messages)).toContain('tests');
  });
});

describe('hostile retries', () => {
  test('a retry that reaches another instance (same key, no such run there) is told to call again', async () => {
    const key = 'ab'.repeat(32);
    const here = await serveHttp(gateway.registry, {
      listing: gateway.listing,
      requestState: new RequestStateSealer({ key }),
    });
    const there = await serveHttp(gateway.registry, {
      listing: gateway.listing,
      requestState: new RequestStateSealer({ key }),
    });
    try {
      const first = await sendTo(here.url, 'tools/call', { name: 'confirm_then_note', arguments: {} });
      const answerKey = Object.keys(first.result?.inputRequests ?? {})[0]!;
      const elsewhere = await sendTo(there.url, 'tools/call', {
        name: 'confirm_then_note',
        arguments: {},
        requestState: first.result?.requestState,
        inputResponses: { [answerKey]: { action: 'accept', content: { ok: true } } },
      });
      expect(elsewhere.result?.isError).toBe(true);
      expect(textOf(elsewhere)).toContain('no longer running on this server');
      expect(textOf(elsewhere)).toContain('without requestState');
    } finally {
      await here.close();
      await there.close();
    }
  });

  test('an altered state is a -32602 error, and the held run it named is untouched by it', async () => {
    const first = await call('test_input_required_result_elicitation');
    const state = String(first.result?.requestState);
    const altered = `${state.slice(0, -4)}${state.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    const refused = await call('test_input_required_result_elicitation', {
      requestState: altered,
      inputResponses: { user_name: { action: 'accept', content: { name: 'Mallory' } } },
    });
    expect(refused.error?.code).toBe(-32602);
    const done = await call('test_input_required_result_elicitation', {
      requestState: state,
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
    });
    expect(textOf(done)).toContain('Hello, Alice!');
  });

  test('a state used twice is refused the second time: one answer per round', async () => {
    const first = await call('confirm_then_note');
    const key = Object.keys(first.result?.inputRequests ?? {})[0]!;
    const retry = {
      requestState: first.result?.requestState,
      inputResponses: { [key]: { action: 'accept', content: { ok: true } } },
    };
    expect(textOf(await call('confirm_then_note', retry))).toBe('noted accept');
    const again = await call('confirm_then_note', retry);
    expect(again.result?.content ?? again.error).toBeDefined();
    expect(JSON.stringify(again)).not.toContain('noted accept');
  });

  test("a state of another tool's call does not continue it", async () => {
    const first = await call('confirm_then_note');
    const key = Object.keys(first.result?.inputRequests ?? {})[0]!;
    const other = await call('ask_model', {
      requestState: first.result?.requestState,
      inputResponses: { [key]: { action: 'accept', content: { ok: true } } },
    });
    expect(JSON.stringify(other)).not.toContain('noted');
    // Refused as a state that does not answer this call, and the model was never asked.
    expect(other.result?.isError).toBe(true);
    expect(other.result?.inputRequests).toBeUndefined();
    expect(textOf(other)).toMatch(/requestState/);
  });

  test('an answer of the wrong kind is a -32602 error naming the key', async () => {
    const first = await call('test_input_required_result_elicitation');
    const refused = await call('test_input_required_result_elicitation', {
      requestState: first.result?.requestState,
      inputResponses: {
        user_name: {
          role: 'assistant',
          content: { type: 'text', text: 'x' },
          model: 'm',
          stopReason: 'endTurn',
        },
      },
    });
    expect(refused.error?.code).toBe(-32602);
    expect(refused.error?.message).toContain('user_name');
  });
});
