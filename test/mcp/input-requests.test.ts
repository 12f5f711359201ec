import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { definePrompt, defineResource, defineTool, Registry } from '../../src/index.js';
import { mcpContextOf, type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';
import { RequestStateSealer } from '../../src/mcp/request-state.js';
import { invalidMessages, type Recording, recordingFetch, text } from './support/wire.js';

// A tool's own questions (mcp.elicit, mcp.sample, mcp.listRoots) over serveHttp: on revision
// 2026-07-28 as input-required rounds, answered by the real v2 Client (which retries by itself) and
// by raw HTTP for the hostile retries; on the legacy era as requests pushed in the middle of the call.

const VERSION = '2026-07-28';
const ALL = { elicitation: { form: {} }, sampling: {}, roots: {} };
const nameForm = {
  type: 'object' as const,
  properties: { name: { type: 'string' as const } },
  required: ['name'],
};

function mcp(state: unknown) {
  const context = mcpContextOf(state);
  if (!context) throw new Error('MCP only');
  return context;
}

/** How often each tool ran, and what each write tool wrote. */
const runs = new Map<string, number>();
const written: string[] = [];
const ran = (name: string) => runs.set(name, (runs.get(name) ?? 0) + 1);

const tools = [
  defineTool({
    name: 'greet',
    description: 'Ask the user for a name and greet them.',
    category: 'read',
    input: z.object({ greeting: z.string().default('Hello') }),
    execute: async ({ greeting }, { state }) => {
      ran('greet');
      const answer = await mcp(state).elicit(
        { message: 'What is your name?', requestedSchema: nameForm },
        { key: 'user_name' },
      );
      return `${greeting}, ${String(answer.content?.name)}!`;
    },
  }),
  defineTool({
    name: 'survey',
    description: 'Ask the user, the model and the roots at once.',
    category: 'read',
    input: z.object({}),
    execute: async (_args, { state }) => {
      ran('survey');
      const context = mcp(state);
      const [name, sampled, roots] = await Promise.all([
        context.elicit({ message: 'Name?', requestedSchema: nameForm }),
        context.sample({
          messages: [{ role: 'user', content: { type: 'text', text: 'A colour?' } }],
          maxTokens: 10,
        }),
        context.listRoots(),
      ]);
      const colour = (sampled.content as { text?: string }).text;
      return { name: name.content?.name, colour, roots: roots.roots.map((root) => root.uri) };
    },
  }),
  defineTool({
    name: 'two_steps',
    description: 'Ask one question, then a second.',
    category: 'read',
    input: z.object({}),
    execute: async (_args, { state }) => {
      ran('two_steps');
      const context = mcp(state);
      const first = await context.elicit({ message: 'Name?', requestedSchema: nameForm }, { key: 'step1' });
      const second = await context.elicit(
        { message: 'Colour?', requestedSchema: nameForm },
        { key: 'step2' },
      );
      return `${String(first.content?.name)}/${String(second.content?.name)}`;
    },
  }),
  defineTool({
    name: 'fickle',
    description: 'Ask a different question each run (a defect the server reports).',
    category: 'read',
    input: z.object({ key: z.string().optional() }),
    execute: async ({ key }, { state }) => {
      ran('fickle');
      const answer = await mcp(state).elicit(
        { message: 'Name?', requestedSchema: nameForm },
        { key: key ?? `ask_${runs.get('fickle')}` },
      );
      return answer.action;
    },
  }),
  defineTool({
    name: 'label_file',
    description: 'Ask the user for a label, then write it (the gate asks first).',
    category: 'write',
    input: z.object({ file: z.string() }),
    execute: async ({ file }, { state }) => {
      ran('label_file');
      // Ask first, act after: every round runs the tool again from the top.
      const answer = await mcp(state).elicit(
        { message: `Label for ${file}?`, requestedSchema: nameForm },
        { key: 'label' },
      );
      written.push(`${file}=${String(answer.content?.name)}`);
      return { written: file };
    },
  }),
];

let clock = Date.now();
let running: RunningHttpServer;

beforeAll(async () => {
  const registry = new Registry({
    beforeCall: (request) =>
      request.tool.category === 'write'
        ? { action: 'ask', reason: 'it writes', rule: 'label-write' }
        : undefined,
  })
    .register(tools)
    .registerPrompt(
      definePrompt({
        name: 'review',
        description: 'Ask the user what to focus on, then ask for a review of it.',
        get: async (_args, { state }) => {
          const answer = await mcp(state).elicit({ message: 'Focus?', requestedSchema: nameForm });
          return `Review the ${String(answer.content?.name)} code.`;
        },
      }),
    )
    .registerResource(
      defineResource({
        name: 'greeting',
        template: 'greeting://{lang}',
        description: 'A greeting for the user, in a language, asking the user for a name.',
        read: async (_uri, { lang }, { state }) => {
          const answer = await mcp(state).elicit({ message: 'Your name?', requestedSchema: nameForm });
          return `${lang === 'fr' ? 'Bonjour' : 'Hello'}, ${String(answer.content?.name)}!`;
        },
      }),
    );
  running = await serveHttp(registry, {
    name: 'input-requests',
    requestState: new RequestStateSealer({ key: 'd'.repeat(64), ttlMs: 60_000, now: () => clock }),
  });
});

afterAll(async () => {
  await running?.close();
});

// Raw JSON-RPC over HTTP, for what no SDK client would send.
let nextId = 1;
async function post(
  name: string,
  extra: { arguments?: object; inputResponses?: unknown; requestState?: unknown; capabilities?: object } = {},
) {
  const { capabilities = ALL, arguments: args = {}, ...rest } = extra;
  const response = await fetch(running.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        ...rest,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  const body = (await response.json()) as {
    result?: Record<string, unknown> & { requestState?: string; inputRequests?: Record<string, unknown> };
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
  return { status: response.status, result: body.result, error: body.error };
}

const accept = (content: object) => ({ action: 'accept', content });
const sampled = (text: string) => ({
  role: 'assistant',
  content: { type: 'text', text },
  model: 'test',
  stopReason: 'endTurn',
});

/** A v2 Client that answers every question: the approval form with "once", any other form with a name. */
async function client(mode: 'modern' | 'legacy', recording?: Recording, pending?: Promise<void>[]) {
  const created = new Client(
    { name: 'input-client', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
      versionNegotiation: { mode: mode === 'modern' ? { pin: VERSION } : 'legacy' },
    },
  );
  const asked: string[] = [];
  created.setRequestHandler('elicitation/create', (request) => {
    const params = request.params as { message: string; requestedSchema?: { properties?: object } };
    asked.push(params.message);
    const approval = params.requestedSchema?.properties && 'decision' in params.requestedSchema.properties;
    const content: Record<string, string> = approval ? { decision: 'once' } : { name: 'Alice' };
    return { action: 'accept', content };
  });
  created.setRequestHandler('sampling/createMessage', () => ({
    role: 'assistant',
    content: { type: 'text', text: 'teal' },
    model: 'test',
    stopReason: 'endTurn',
  }));
  created.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
  const fetcher = recording && pending ? { fetch: recordingFetch(recording, pending) } : {};
  await created.connect(new StreamableHTTPClientTransport(new URL(running.url), fetcher));
  return { client: created, asked };
}

describe('the v2 Client on revision 2026-07-28 answers the rounds itself', () => {
  const recording: Recording = { sent: [], received: [] };
  const pending: Promise<void>[] = [];

  test('one question: the tool runs twice, the second time with the answer', async () => {
    const { client: modern, asked } = await client('modern', recording, pending);
    expect(modern.getProtocolEra()).toBe('modern');
    runs.clear();
    const result = await modern.callTool({ name: 'greet', arguments: { greeting: 'Hi' } });
    expect(JSON.parse(text(result))).toEqual({ ok: true, result: 'Hi, Alice!' });
    expect(asked).toEqual(['What is your name?']);
    expect(runs.get('greet')).toBe(2);
    await modern.close();
  });

  test('a form, a sample and the roots asked together travel in one round', async () => {
    const { client: modern } = await client('modern', recording, pending);
    runs.clear();
    const result = await modern.callTool({ name: 'survey', arguments: {} });
    expect(JSON.parse(text(result))).toEqual({
      ok: true,
      result: { name: 'Alice', colour: 'teal', roots: ['file:///work'] },
    });
    expect(runs.get('survey')).toBe(2);
    await modern.close();
  });

  test('a question after an answered one makes another round', async () => {
    const { client: modern, asked } = await client('modern', recording, pending);
    runs.clear();
    const result = await modern.callTool({ name: 'two_steps', arguments: {} });
    expect(JSON.parse(text(result))).toEqual({ ok: true, result: 'Alice/Alice' });
    expect(asked).toEqual(['Name?', 'Colour?']);
    expect(runs.get('two_steps')).toBe(3);
    await modern.close();
  });

  test("the gate's approval first, then the tool's own question, in one call: it writes once", async () => {
    const { client: modern, asked } = await client('modern', recording, pending);
    runs.clear();
    written.length = 0;
    const result = await modern.callTool({ name: 'label_file', arguments: { file: 'a.txt' } });
    expect(JSON.parse(text(result))).toEqual({ ok: true, result: { written: 'a.txt' } });
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatch(/Allow the tool "label_file"/);
    expect(asked[1]).toBe('Label for a.txt?');
    // The gate paused the first request before the tool ran; the tool ran for the question and the answer.
    expect(runs.get('label_file')).toBe(2);
    expect(written).toEqual(['a.txt=Alice']);
    await modern.close();
  });

  test('a prompt asks as a tool does: prompts/get comes back with the answer in it', async () => {
    const { client: modern, asked } = await client('modern', recording, pending);
    const prompt = await modern.getPrompt({ name: 'review' });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Review the Alice code.' } },
    ]);
    expect(asked).toEqual(['Focus?']);
    await modern.close();
  });

  test('a resource asks as a prompt does: resources/read comes back with the answer in it', async () => {
    const { client: modern, asked } = await client('modern', recording, pending);
    const read = await modern.readResource({ uri: 'greeting://fr' });
    expect(read.contents).toEqual([{ uri: 'greeting://fr', text: 'Bonjour, Alice!' }]);
    expect(asked).toEqual(['Your name?']);
    await modern.close();
  });

  test('every message either side sent validates against the 2026-07-28 schema', async () => {
    await Promise.all(pending);
    expect(recording.sent.length).toBeGreaterThan(8);
    expect(
      invalidMessages('client', { sent: recording.sent, received: recording.received }, VERSION),
    ).toEqual([]);
    expect(
      invalidMessages('server', { sent: recording.received, received: recording.sent }, VERSION),
    ).toEqual([]);
  });
});

describe('the legacy era: the same tools, asked in the middle of the call', () => {
  test('elicit, sample and listRoots are pushed to the client and the tool runs once', async () => {
    const { client: legacy, asked } = await client('legacy');
    expect(legacy.getProtocolEra()).toBe('legacy');
    runs.clear();
    const survey = await legacy.callTool({ name: 'survey', arguments: {} });
    expect(JSON.parse(text(survey))).toEqual({
      ok: true,
      result: { name: 'Alice', colour: 'teal', roots: ['file:///work'] },
    });
    expect(runs.get('survey')).toBe(1);
    expect(asked).toEqual(['Name?']);
    await legacy.close();
  });
});

describe('the rounds on the wire, and the retries no client should send', () => {
  test('the first answer is input_required with the keyed question and a sealed state; the retry completes', async () => {
    const first = await post('greet');
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        user_name: { method: 'elicitation/create', params: { message: 'What is your name?' } },
      },
      requestState: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
    });
    const second = await post('greet', {
      inputResponses: { user_name: accept({ name: 'Bob' }) },
      requestState: first.result?.requestState,
    });
    expect(second.result?.resultType).toBe('complete');
    expect(JSON.parse(text(second.result))).toEqual({ ok: true, result: 'Hello, Bob!' });
  });

  test('several questions get their own keys, in the order asked', async () => {
    const first = await post('survey');
    expect(Object.keys(first.result?.inputRequests ?? {})).toEqual([
      'elicitation-1',
      'sampling-2',
      'roots-3',
    ]);
    expect(first.result?.inputRequests).toMatchObject({
      'sampling-2': { method: 'sampling/createMessage', params: { maxTokens: 10 } },
      'roots-3': { method: 'roots/list' },
    });
    // Only two of three answered: the third is asked again, and the two answers are kept.
    const second = await post('survey', {
      inputResponses: { 'elicitation-1': accept({ name: 'Cy' }), 'sampling-2': sampled('red') },
      requestState: first.result?.requestState,
    });
    expect(Object.keys(second.result?.inputRequests ?? {})).toEqual(['roots-3']);
    const third = await post('survey', {
      inputResponses: { 'roots-3': { roots: [{ uri: 'file:///r' }] } },
      requestState: second.result?.requestState,
    });
    expect(JSON.parse(text(third.result))).toEqual({
      ok: true,
      result: { name: 'Cy', colour: 'red', roots: ['file:///r'] },
    });
  });

  test('answers to questions never asked are not used: without a state, or for a later question', async () => {
    const unasked = await post('greet', { inputResponses: { user_name: accept({ name: 'Mallory' }) } });
    expect(unasked.result?.resultType).toBe('input_required');
    const first = await post('two_steps');
    const second = await post('two_steps', {
      inputResponses: { step1: accept({ name: 'Ann' }), step2: accept({ name: 'early' }) },
      requestState: first.result?.requestState,
    });
    expect(Object.keys(second.result?.inputRequests ?? {})).toEqual(['step2']);
    const third = await post('two_steps', {
      inputResponses: { step2: accept({ name: 'green' }) },
      requestState: second.result?.requestState,
    });
    expect(JSON.parse(text(third.result)).result).toBe('Ann/green');
  });

  test('an answer of another kind than its question is -32602, naming the key; the tool never sees it', async () => {
    const first = await post('greet');
    const wrong = await post('greet', {
      inputResponses: { user_name: sampled('I am a model') },
      requestState: first.result?.requestState,
    });
    expect(wrong.result).toBeUndefined();
    expect(wrong.error).toMatchObject({
      code: -32602,
      data: { key: 'user_name', expected: 'elicitation/create', received: 'sampling/createMessage' },
    });
    expect(wrong.error?.message).toMatch(/inputResponses\.user_name answers sampling\/createMessage/);
    // A form's answer the form does not allow (name is a required string) is refused the same way.
    const again = await post('greet');
    const unfit = await post('greet', {
      inputResponses: { user_name: accept({ name: 42 }) },
      requestState: again.result?.requestState,
    });
    expect(unfit.error).toMatchObject({ code: -32602, data: { key: 'user_name' } });
    expect(unfit.error?.message).toMatch(/does not match its requestedSchema \(\$\.name/);
  });

  test('a forged, tampered or truncated state is -32602 and nothing runs', async () => {
    const first = await post('label_file', { arguments: { file: 'forged.txt' } });
    const state = first.result?.requestState as string;
    written.length = 0;
    const forged = Buffer.alloc(80, 7).toString('base64url');
    const tampered = `${state.slice(0, 30)}${state[30] === 'A' ? 'B' : 'A'}${state.slice(31)}`;
    for (const requestState of [forged, tampered, `${state}-TAMPERED`, state.slice(0, -4), 42]) {
      const answer = await post('label_file', {
        arguments: { file: 'forged.txt' },
        inputResponses: { approval: accept({ decision: 'once' }) },
        requestState,
      });
      expect(answer.error?.code, String(requestState)).toBe(-32602);
      expect(answer.error?.message).toMatch(/requestState/);
    }
    expect(written).toEqual([]);
  });

  test('a replayed, expired or other-call state is refused as a result the model reads; nothing runs', async () => {
    const first = await post('greet');
    const state = first.result?.requestState;
    const answers = { user_name: accept({ name: 'Eve' }) };
    const otherArguments = await post('greet', {
      arguments: { greeting: 'Bye' },
      inputResponses: answers,
      requestState: state,
    });
    expect(JSON.parse(text(otherArguments.result)).error).toMatchObject({ type: 'permission_denied' });
    expect(JSON.parse(text(otherArguments.result)).error.message).toMatch(/another call/);
    const otherTool = await post('two_steps', { inputResponses: answers, requestState: state });
    expect(JSON.parse(text(otherTool.result)).error.message).toMatch(/another call/);
    const used = await post('greet', { inputResponses: answers, requestState: state });
    expect(JSON.parse(text(used.result))).toEqual({ ok: true, result: 'Hello, Eve!' });
    const replayed = await post('greet', { inputResponses: answers, requestState: state });
    expect(JSON.parse(text(replayed.result)).error.message).toMatch(/already been used/);

    const late = await post('greet');
    clock += 120_000;
    try {
      const expired = await post('greet', {
        inputResponses: answers,
        requestState: late.result?.requestState,
      });
      expect(JSON.parse(text(expired.result)).error).toMatchObject({ type: 'permission_denied' });
      expect(JSON.parse(text(expired.result)).error.message).toMatch(/expired/);
    } finally {
      clock -= 120_000;
    }
  });

  test('a question the request declares no capability for is -32021 (HTTP 400), naming the capability', async () => {
    runs.clear();
    const none = await post('greet', { capabilities: {} });
    expect(none.status).toBe(400);
    expect(none.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    expect(none.error?.message).toMatch(/does not declare elicitation/);
    // A URL-only elicitation capability cannot answer a form.
    const urlOnly = await post('greet', { capabilities: { elicitation: { url: {} } } });
    expect(urlOnly.error?.code).toBe(-32021);
    const formOnly = await post('survey', { capabilities: { elicitation: {} } });
    expect(formOnly.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: {}, roots: {} } },
    });
  });

  test('a tool that asks differently on its next run, or under a key it may not use, fails saying so', async () => {
    runs.clear();
    const first = await post('fickle');
    expect(Object.keys(first.result?.inputRequests ?? {})).toEqual(['ask_1']);
    const second = await post('fickle', {
      inputResponses: { ask_1: accept({ name: 'Ann' }) },
      requestState: first.result?.requestState,
    });
    expect(JSON.parse(text(second.result)).error.message).toMatch(
      /asked "ask_2" .* where its earlier run asked "ask_1" .*same questions in the same order/,
    );
    for (const key of ['approval', 'has space', 'x'.repeat(65)]) {
      const refused = await post('fickle', { arguments: { key } });
      expect(JSON.parse(text(refused.result)).error.message, key).toMatch(/cannot be used/);
    }
  });

  test('answers too long to carry to the next question fail the call with what to do', async () => {
    const first = await post('two_steps');
    const second = await post('two_steps', {
      inputResponses: { step1: accept({ name: 'n'.repeat(20_000) }) },
      requestState: first.result?.requestState,
    });
    expect(second.result?.resultType).toBe('complete');
    expect(JSON.parse(text(second.result)).error.message).toMatch(
      /too long to carry .* ask for shorter answers/,
    );
  });

  test('the approval is asked once: the rounds of the tool question after it carry the grant', async () => {
    written.length = 0;
    const asked = await post('label_file', { arguments: { file: 'b.txt' } });
    expect(Object.keys(asked.result?.inputRequests ?? {})).toEqual(['approval']);
    const approved = await post('label_file', {
      arguments: { file: 'b.txt' },
      inputResponses: { approval: accept({ decision: 'once' }) },
      requestState: asked.result?.requestState,
    });
    expect(Object.keys(approved.result?.inputRequests ?? {})).toEqual(['label']);
    const labelled = await post('label_file', {
      arguments: { file: 'b.txt' },
      inputResponses: { label: accept({ name: 'blue' }) },
      requestState: approved.result?.requestState,
    });
    expect(JSON.parse(text(labelled.result))).toEqual({ ok: true, result: { written: 'b.txt' } });
    expect(written).toEqual(['b.txt=blue']);
    // A declined approval ends the call before the tool asks anything.
    const again = await post('label_file', { arguments: { file: 'c.txt' } });
    const declined = await post('label_file', {
      arguments: { file: 'c.txt' },
      inputResponses: { approval: { action: 'decline' } },
      requestState: again.result?.requestState,
    });
    expect(JSON.parse(text(declined.result)).error).toMatchObject({ type: 'permission_denied' });
    expect(written).toEqual(['b.txt=blue']);
  });
});
