import { rmSync } from 'node:fs';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterEach, describe, expect, onTestFinished, test } from 'vitest';
import {
  AGENT_STATE_VERSION,
  type AgentEvent,
  type AgentPauseState,
  AgentResumeError,
  type GeminiContent,
  geminiGenerate,
  type OpenAIChatMessage,
  openaiChat,
  openaiResponses,
  type RunAgentOptions,
  runAgent,
} from '../../src/agent/index.js';
import type { GateDecision, RegistryOptions } from '../../src/index.js';
import { pauseDirectory, runPhase } from '../fixtures/agent-pause/phases.js';

// Two Node processes start, each compiling the fixture with tsx: more than the default 30 s on a busy machine.
const TWO_PROCESSES = { timeout: 120_000 };

import { chatCompletion, envelopeOf, fakeFetch, fakeServer, type Script, testRegistry } from './support.js';

function chat(script: Script) {
  const fake = fakeFetch(script);
  const client = new OpenAI({ apiKey: 'sk-test', fetch: fake.fetch, maxRetries: 0 });
  return { model: openaiChat(client, { model: 'gpt-5-mini' }), client, requests: fake.requests };
}

/** The gate of the tests: reads are allowed, `save_note` is asked about under the rule `notes`. */
function askingRegistry(options: RegistryOptions = {}) {
  return testRegistry({
    beforeCall: (request): GateDecision | undefined =>
      request.tool.name === 'save_note'
        ? { action: 'ask', rule: 'notes', reason: 'a note is kept for good' }
        : undefined,
    ...options,
  });
}

const weatherAndNote = chatCompletion({
  calls: [
    { id: 'call_w', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'call_n', name: 'save_note', arguments: '{"text":"umbrella"}' },
  ],
  usage: [100, 20],
});

const ask = (content: string): OpenAIChatMessage[] => [{ role: 'user', content }];

/** A run paused at `save_note`, in this process. */
async function paused(options: { maxSteps?: number; registry?: ReturnType<typeof askingRegistry> } = {}) {
  const setup = options.registry ?? askingRegistry();
  const { model } = chat([{ json: weatherAndNote }]);
  const events: AgentEvent<OpenAIChatMessage>[] = [];
  const steps: number[] = [];
  const result = await runAgent({
    model,
    registry: setup.registry,
    messages: ask('Weather in Paris, and note to take an umbrella?'),
    approvals: 'interrupt',
    onEvent: (event) => events.push(event),
    onStep: (step) => steps.push(step.index),
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
  });
  return { ...setup, result, events, steps, state: result.state! };
}

describe('runAgent with approvals: "interrupt", across two processes', () => {
  for (const decision of ['allow', 'deny'] as const) {
    test(
      `paused in one process, resumed with "${decision}" in another: every call runs at most once`,
      TWO_PROCESSES,
      async () => {
        const dir = pauseDirectory();
        onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
        const first = await runPhase<{
          stopReason: string;
          pending: unknown[];
          calls: { ok: boolean; error?: { type: string } }[][];
          ran: { runs: string[]; pids: number[] };
          pid: number;
        }>('run-agent', 'pause', dir);
        expect(first.stopReason).toBe('approval');
        expect(first.pending).toEqual([
          {
            callId: 'call_write',
            tool: 'write_note',
            arguments: { name: 'todo.md', text: 'buy bread' },
            rule: 'default:write',
            reason: 'the default for write tools is ask',
          },
        ]);
        // The read of the same turn ran in the first process; the write waits.
        expect(first.calls[0]!.map((envelope) => envelope.ok)).toEqual([true, false]);
        expect(first.calls[0]![1]!.error!.type).toBe('approval_pending');
        expect(first.ran).toEqual({ runs: ['read_note todo.md'], pids: [first.pid] });

        const second = await runPhase<{
          stopReason: string;
          text: string;
          steps: number[];
          usage: { inputTokens: number; outputTokens: number };
          sent: { role: string; tool_call_id?: string; content: string | null }[][];
          requests: number;
          again: string;
          note: string;
          ran: { runs: string[]; pids: number[] };
          pid: number;
        }>('run-agent', 'resume', dir, decision);
        expect(second.pid).not.toBe(first.pid);
        expect(second.stopReason).toBe('text');
        expect(second.text).toBe('Done: the todo says buy bread.');
        // The step that paused, settled, then the answer; the totals count the request before the pause.
        expect(second.steps).toEqual([0, 1]);
        expect(second.usage).toEqual({ inputTokens: 200, outputTokens: 40 });
        expect(second.requests).toBe(1);
        const sent = second.sent[0]!;
        expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
        expect(sent[2]).toMatchObject({ tool_call_id: 'call_read' });
        expect(envelopeOf(sent[2]!.content)).toEqual({ ok: true, result: 'buy milk' });
        expect(sent[3]).toMatchObject({ tool_call_id: 'call_write' });
        const written = envelopeOf(sent[3]!.content);
        // The same state a second time, in the resuming process: refused before anything runs.
        expect(second.again).toBe('state_used');
        if (decision === 'allow') {
          expect(written).toEqual({ ok: true, result: { written: 'todo.md', chars: 9 } });
          expect(second.note).toBe('buy bread');
          expect(second.ran).toEqual({
            runs: ['read_note todo.md', 'write_note todo.md'],
            pids: [first.pid, second.pid],
          });
        } else {
          expect(written).toMatchObject({
            ok: false,
            error: { type: 'permission_denied', rule: 'default:write', reason: 'the todo stays as it is' },
          });
          expect(second.note).toBe('buy milk');
          expect(second.ran).toEqual({ runs: ['read_note todo.md'], pids: [first.pid] });
        }
      },
    );
  }
});

describe('the pause, in one process', () => {
  test('the state is plain JSON; the step that paused is in steps, its results are not in messages yet', async () => {
    const { result, ran, events, steps, state } = await paused();
    expect(result.stopReason).toBe('approval');
    expect(ran).toEqual(['get_weather:Paris']);
    expect(result.pending).toEqual([
      {
        callId: 'call_n',
        tool: 'save_note',
        arguments: { text: 'umbrella' },
        rule: 'notes',
        reason: 'a note is kept for good',
      },
    ]);
    expect(JSON.parse(JSON.stringify(state))).toStrictEqual(state);
    expect(state).toMatchObject({
      kind: 'toolpact.agent.pause',
      version: AGENT_STATE_VERSION,
      format: 'openai',
      maxSteps: 20,
      usage: { inputTokens: 100, outputTokens: 20 },
      step: { index: 0, finishReason: 'tool_calls' },
      pending: result.pending,
    });
    expect(typeof state.id).toBe('string');
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(state.messages).toEqual(result.messages);
    expect(result.steps).toHaveLength(1);
    expect(result.steps[0]!.calls.map((call) => call.envelope.ok)).toEqual([true, false]);
    expect(result.steps[0]!.calls[1]!.envelope).toMatchObject({
      ok: false,
      error: { type: 'approval_pending', rule: 'notes' },
    });
    // A call that waits has no result yet, and the step is not finished: no tool_result, no step event.
    expect(events.map((event) => event.type)).toEqual([
      'model_request',
      'model_response',
      'tool_call',
      'tool_call',
      'tool_result',
      'done',
    ]);
    expect(steps).toEqual([]);
  });

  test('resumed: the waiting call gets its tool_result, the step is finished, the loop goes on', async () => {
    const { registry, ran, state } = await paused();
    const { model, requests } = chat([{ json: chatCompletion({ text: 'Noted.', usage: [50, 5] }) }]);
    const events: string[] = [];
    const result = await runAgent({
      model,
      registry,
      approvals: 'interrupt',
      resume: state,
      decisions: { call_n: { action: 'allow' } },
      onEvent: (event) =>
        events.push(event.type === 'tool_result' ? `tool_result ${event.outcome.tool}` : event.type),
    });
    expect(result.stopReason).toBe('text');
    expect(ran).toEqual(['get_weather:Paris', 'save_note:umbrella']);
    expect(events).toEqual([
      'tool_result save_note',
      'step',
      'model_request',
      'model_response',
      'step',
      'done',
    ]);
    expect(result.steps.map((step) => step.index)).toEqual([0, 1]);
    expect(result.steps[0]!.calls.map((call) => call.envelope.ok)).toEqual([true, true]);
    expect(result.usage).toEqual({ inputTokens: 150, outputTokens: 25 });
    expect(result.pending).toBeUndefined();
    expect(result.state).toBeUndefined();
    const roles = (requests[0]!.body.messages as { role: string }[]).map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'tool']);
  });

  test('several waiting calls: mixed decisions, results in call order', async () => {
    const { registry, ran } = askingRegistry();
    const { model } = chat([
      {
        json: chatCompletion({
          calls: [
            { id: 'n1', name: 'save_note', arguments: '{"text":"one"}' },
            { id: 'w1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
            { id: 'n2', name: 'save_note', arguments: '{"text":"two"}' },
          ],
        }),
      },
    ]);
    const first = await runAgent({ model, registry, messages: ask('notes'), approvals: 'interrupt' });
    expect(first.pending!.map((entry) => entry.callId)).toEqual(['n1', 'n2']);
    const next = chat([{ json: chatCompletion({ text: 'ok' }) }]);
    const result = await runAgent({
      model: next.model,
      registry,
      approvals: 'interrupt',
      resume: JSON.parse(JSON.stringify(first.state)),
      decisions: { n1: { action: 'deny' }, n2: { action: 'allow' } },
    });
    expect(ran).toEqual(['get_weather:Oslo', 'save_note:two']);
    const tools = (
      next.requests[0]!.body.messages as { role: string; tool_call_id?: string; content: string }[]
    )
      .filter((message) => message.role === 'tool')
      .map((message) => [message.tool_call_id, envelopeOf(message.content).ok]);
    expect(tools).toEqual([
      ['n1', false],
      ['w1', true],
      ['n2', true],
    ]);
    expect(result.steps[0]!.calls[0]!.envelope).toMatchObject({
      error: { type: 'permission_denied', reason: 'a person declined this call', rule: 'notes' },
    });
  });

  test('a resumed call the gate asks about under another rule pauses again, with a new state', async () => {
    const rules = ['notes', 'notes-again'];
    const setup = testRegistry({
      beforeCall: (request): GateDecision | undefined =>
        request.tool.name === 'save_note'
          ? { action: 'ask', rule: rules.shift() ?? 'notes-again' }
          : undefined,
    });
    const { state } = await paused({ registry: setup });
    const { model } = chat([{ json: chatCompletion({ text: 'Noted.' }) }]);
    const again = await runAgent({
      model,
      registry: setup.registry,
      approvals: 'interrupt',
      resume: state,
      decisions: { call_n: { action: 'allow' } },
    });
    expect(again.stopReason).toBe('approval');
    expect(again.pending).toEqual([
      { callId: 'call_n', tool: 'save_note', arguments: { text: 'umbrella' }, rule: 'notes-again' },
    ]);
    expect(again.state!.id).not.toBe(state.id);
    expect(setup.ran).toEqual(['get_weather:Paris']);
    const done = await runAgent({
      model,
      registry: setup.registry,
      approvals: 'interrupt',
      resume: again.state!,
      decisions: { call_n: { action: 'allow' } },
    });
    expect(done.stopReason).toBe('text');
    expect(setup.ran).toEqual(['get_weather:Paris', 'save_note:umbrella']);
  });

  test('the bounds go on from the state: a run paused at its last step stops at max_steps once settled', async () => {
    const { registry, ran, state } = await paused({ maxSteps: 1 });
    expect(state.maxSteps).toBe(1);
    const { model, requests } = chat([{ json: chatCompletion({ text: 'never asked' }) }]);
    const result = await runAgent({
      model,
      registry,
      resume: state,
      decisions: { call_n: { action: 'allow' } },
    });
    expect(result.stopReason).toBe('max_steps');
    expect(requests).toHaveLength(0);
    expect(ran).toEqual(['get_weather:Paris', 'save_note:umbrella']);
    // The transcript is complete: both results follow the assistant's calls.
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
  });

  test('without "interrupt" nothing changes: the ask goes to the registry approver', async () => {
    const { registry, ran } = askingRegistry({ approver: () => ({ action: 'allow' }) });
    const { model } = chat([{ json: weatherAndNote }, { json: chatCompletion({ text: 'ok' }) }]);
    const result = await runAgent({ model, registry, messages: ask('x') });
    expect(result.stopReason).toBe('text');
    expect(ran).toEqual(['get_weather:Paris', 'save_note:umbrella']);
  });
});

describe('Gemini calls without an id', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  test('a call without an id is pending as step<n>.call<i>, and its functionResponse goes back by name', async () => {
    const generated = (parts: unknown[]) => ({
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
      modelVersion: 'gemini-2.5-flash',
    });
    const server = await fakeServer([
      { json: generated([{ functionCall: { name: 'save_note', args: { text: 'no id' } } }]) },
      { json: generated([{ text: 'Saved.' }]) },
    ]);
    close = server.close;
    const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: server.url } });
    const model = geminiGenerate(ai, { model: 'gemini-2.5-flash' });
    const { registry, ran } = askingRegistry();
    const messages: GeminiContent[] = [{ role: 'user', parts: [{ text: 'note it' }] }];
    const first = await runAgent({ model, registry, messages, approvals: 'interrupt' });
    expect(first.pending!.map((entry) => entry.callId)).toEqual(['step0.call0']);
    const second = await runAgent({
      model,
      registry,
      resume: JSON.parse(JSON.stringify(first.state)),
      decisions: { 'step0.call0': { action: 'allow' } },
    });
    expect(second.text).toBe('Saved.');
    expect(ran).toEqual(['save_note:no id']);
    const contents = server.requests[1]!.body.contents as { parts: { functionResponse?: unknown }[] }[];
    expect(contents.at(-1)!.parts[0]!.functionResponse).toMatchObject({ name: 'save_note' });
  });
});

describe('a resume that cannot go on throws AgentResumeError, and nothing runs', () => {
  async function refusal(
    change: (state: AgentPauseState<OpenAIChatMessage>) => RunAgentOptions<OpenAIChatMessage>,
  ) {
    const setup = await paused();
    const error = await Promise.resolve()
      .then(() => runAgent(change(setup.state)))
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(error).toBeInstanceOf(AgentResumeError);
    expect(setup.ran).toEqual(['get_weather:Paris']);
    return { error: error as AgentResumeError, setup };
  }
  const base = () => {
    const { model } = chat([{ json: chatCompletion({ text: 'ok' }) }]);
    return { model };
  };

  test('a decision missing for a pending call names it; the state is still usable afterwards', async () => {
    const { error, setup } = await refusal((state) => ({
      ...base(),
      registry: askingRegistry().registry,
      resume: state,
      decisions: {},
    }));
    expect(error.code).toBe('missing_decision');
    expect(error.message).toContain('"call_n"');
    expect(error.message).toContain('{ action: "allow" } or { action: "deny", reason? }');
    const result = await runAgent({
      ...base(),
      registry: setup.registry,
      resume: setup.state,
      decisions: { call_n: { action: 'allow' } },
    });
    expect(result.stopReason).toBe('text');
    expect(setup.ran).toEqual(['get_weather:Paris', 'save_note:umbrella']);
  });

  test('decisions for calls that are not pending', async () => {
    const { error } = await refusal((state) => ({
      ...base(),
      registry: askingRegistry().registry,
      resume: state,
      decisions: { call_n: { action: 'allow' }, call_w: { action: 'allow' } },
    }));
    expect(error.code).toBe('unknown_decision');
    expect(error.message).toContain('"call_w"');
    expect(error.message).toContain('it waits for "call_n"');
  });

  test('a decision that is not allow or deny', async () => {
    const { error } = await refusal((state) => ({
      ...base(),
      registry: askingRegistry().registry,
      resume: state,
      decisions: { call_n: { action: 'maybe' } as never },
    }));
    expect(error.code).toBe('invalid_decision');
    expect(error.message).toContain('the decision for "call_n" is an object with keys action');
  });

  test('a state of another version', async () => {
    const { error } = await refusal((state) => ({
      ...base(),
      registry: askingRegistry().registry,
      resume: { ...state, version: 2 } as never,
      decisions: { call_n: { action: 'allow' } },
    }));
    expect(error.code).toBe('state_version');
    expect(error.message).toContain('of version 2, and this toolpact reads version 1');
  });

  test('something that is not a state, and a damaged state', async () => {
    const { error } = await refusal(() => ({
      ...base(),
      registry: askingRegistry().registry,
      resume: '{"kind":"toolpact.agent.pause"}' as never,
      decisions: { call_n: { action: 'allow' } },
    }));
    expect(error.code).toBe('invalid_state');
    expect(error.message).toContain('received the string');
    expect(error.message).toContain('after JSON.parse');
    const damaged = await refusal((state) => ({
      ...base(),
      registry: askingRegistry().registry,
      resume: { ...state, pending: [], step: { ...state.step, calls: 'none' } } as never,
      decisions: {},
    }));
    expect(damaged.error.code).toBe('invalid_state');
    expect(damaged.error.message).toContain('step.calls is not a list');
    expect(damaged.error.message).toContain('pending is not a non-empty list');
  });

  test('a model of another format', async () => {
    const { error } = await refusal((state) => {
      const { client } = chat([]);
      return {
        model: openaiResponses(client, { model: 'gpt-5-mini' }) as never,
        registry: askingRegistry().registry,
        resume: state,
        decisions: { call_n: { action: 'allow' } },
      };
    });
    expect(error.code).toBe('format_mismatch');
    expect(error.message).toContain('format "openai"');
    expect(error.message).toContain('format "openai-responses"');
  });

  test('decisions without resume', async () => {
    const { error } = await refusal(
      () =>
        ({
          ...base(),
          registry: askingRegistry().registry,
          messages: ask('x'),
          decisions: { call_n: { action: 'allow' } },
        }) as never,
    );
    expect(error.code).toBe('invalid_option');
  });

  test('the same state twice in one process, even at the same moment: one resume runs, the other nothing', async () => {
    const setup = await paused();
    const decisions = { call_n: { action: 'allow' as const } };
    const racing = await Promise.allSettled([
      runAgent({ ...base(), registry: setup.registry, resume: setup.state, decisions }),
      runAgent({ ...base(), registry: setup.registry, resume: setup.state, decisions }),
    ]);
    expect(racing.map((settled) => settled.status)).toEqual(['fulfilled', 'rejected']);
    const copy = JSON.parse(JSON.stringify(setup.state));
    const [first, second] = await Promise.allSettled([
      runAgent({ ...base(), registry: setup.registry, resume: copy, decisions }),
      runAgent({ ...base(), registry: setup.registry, resume: copy, decisions }),
    ]);
    for (const settled of [first, second]) {
      expect(settled.status).toBe('rejected');
      const reason = (settled as PromiseRejectedResult).reason as AgentResumeError;
      expect(reason.code).toBe('state_used');
      expect(reason.message).toContain(setup.state.id);
    }
    expect(setup.ran).toEqual(['get_weather:Paris', 'save_note:umbrella']);
  });

  test('approvals must be "approver" or "interrupt"', async () => {
    const { model } = chat([]);
    await expect(
      runAgent({
        model,
        registry: askingRegistry().registry,
        messages: ask('x'),
        approvals: 'later' as never,
      }),
    ).rejects.toThrow('runAgent: approvals must be "approver" or "interrupt", received "later".');
  });
});
