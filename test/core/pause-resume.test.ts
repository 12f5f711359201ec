import { describe, expect, test } from 'vitest';
import {
  type CallRecord,
  defineTool,
  isErrorType,
  type PendingApproval,
  Registry,
  type RegistryOptions,
} from '../../src/index.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';

/** A tool that counts its runs, so a test can tell whether a call really ran. */
function counted() {
  const runs: unknown[] = [];
  const tool = defineTool({
    name: 'write_note',
    description: 'Write a note.',
    category: 'write',
    input: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    } as const,
    execute: (args) => {
      runs.push(args);
      return { written: args.text.length };
    },
  });
  return { tool, runs };
}

const ASK = { action: 'ask', rule: 'writes-ask', reason: 'writes need a person' } as const;

function setup(options: RegistryOptions = {}) {
  const { tool, runs } = counted();
  const records: CallRecord[] = [];
  const registry = new Registry({
    beforeCall: () => ASK,
    observe: (record) => records.push(record),
    ...options,
  }).register(tool);
  return { registry, runs, records };
}

describe('pausing at the gate', () => {
  test('onAsk can pause: the call ends at once with approval_pending and the tool does not run', async () => {
    const { registry, runs, records } = setup({ approver: () => ({ action: 'allow' }) });
    const seen: PendingApproval[] = [];
    const envelope = await registry.call(
      'write_note',
      { text: 'hi' },
      {
        callId: 'c1',
        onAsk: (pending) => {
          seen.push(pending);
          return { action: 'pause', approval: 'appr-1' };
        },
      },
    );
    expect(runs).toEqual([]);
    expect(isErrorType(envelope, 'approval_pending')).toBe(true);
    if (!isErrorType(envelope, 'approval_pending')) return;
    expect(envelope.error).toMatchObject({
      type: 'approval_pending',
      tool: 'write_note',
      approval: 'appr-1',
      rule: 'writes-ask',
    });
    expect(envelope.error.message).toContain('same arguments');
    expect(envelope.error.message).toContain('writes need a person');
    // What the handler was given is all a later decision needs: the tool, the validated arguments, the rule.
    expect(seen).toHaveLength(1);
    expect(seen[0]!.tool.name).toBe('write_note');
    expect(seen[0]!.arguments).toEqual({ text: 'hi' });
    expect(seen[0]!.decision).toEqual(ASK);
    expect(seen[0]!.callId).toBe('c1');
    expect(records.map((record) => [record.outcome, record.decision?.action])).toEqual([
      ['approval_pending', 'ask'],
    ]);
  });

  test('a pause with its own message replaces the default words (sanitized)', async () => {
    const { registry } = setup();
    const text = await registry.dispatch('write_note', '{"text":"hi"}', {
      onAsk: () => ({ action: 'pause', message: 'Queued for review in /root/secret/queue.' }),
    });
    const envelope = JSON.parse(text);
    expect(envelope.error.type).toBe('approval_pending');
    expect(envelope.error.message).not.toContain('/root/secret');
  });

  test('a decision brought back with resume runs the call once, or refuses it', async () => {
    const { registry, runs } = setup();
    const first = await registry.call('write_note', { text: 'a' }, { onAsk: () => ({ action: 'pause' }) });
    expect(isErrorType(first, 'approval_pending')).toBe(true);
    const rule = isErrorType(first, 'approval_pending') ? first.error.rule : undefined;

    const allowed = await registry.call(
      'write_note',
      { text: 'a' },
      { resume: { rule, answer: { action: 'allow' } } },
    );
    expect(allowed).toEqual({ ok: true, result: { written: 1 } });
    expect(runs).toEqual([{ text: 'a' }]);

    const denied = await registry.call(
      'write_note',
      { text: 'b' },
      { resume: { rule, answer: { action: 'deny', reason: 'not today' } } },
    );
    expect(isErrorType(denied, 'permission_denied')).toBe(true);
    expect(denied.ok ? '' : denied.error.message).toContain('not today');
    expect(runs).toHaveLength(1);
  });

  test('resume answers only an ask by the same rule: another rule asks anew', async () => {
    const { registry, runs } = setup();
    const asked: string[] = [];
    const envelope = await registry.call(
      'write_note',
      { text: 'a' },
      {
        resume: { rule: 'some-other-rule', answer: { action: 'allow' } },
        onAsk: (pending) => {
          asked.push(pending.decision.rule ?? '');
          return { action: 'pause' };
        },
      },
    );
    expect(asked).toEqual(['writes-ask']);
    expect(isErrorType(envelope, 'approval_pending')).toBe(true);
    expect(runs).toEqual([]);
  });

  test('resume never overrides the gate: a call the gate now denies stays denied', async () => {
    let decision: { action: 'ask' | 'deny'; rule: string; reason: string } = { ...ASK };
    const { registry, runs } = setup({ beforeCall: () => decision });
    const first = await registry.call('write_note', { text: 'a' }, { onAsk: () => ({ action: 'pause' }) });
    expect(isErrorType(first, 'approval_pending')).toBe(true);
    decision = { action: 'deny', rule: 'writes-off', reason: 'writes are off now' };
    const resumed = await registry.call(
      'write_note',
      { text: 'a' },
      { resume: { rule: 'writes-ask', answer: { action: 'allow' } } },
    );
    expect(isErrorType(resumed, 'permission_denied')).toBe(true);
    expect(runs).toEqual([]);
  });

  test('the registry approver is the inline answer; onAsk takes its place for one call', async () => {
    const approved: string[] = [];
    const { registry, runs } = setup({
      approver: (pending) => {
        approved.push(pending.tool.name);
        return { action: 'allow' };
      },
    });
    expect((await registry.call('write_note', { text: 'inline' })).ok).toBe(true);
    expect(approved).toEqual(['write_note']);
    const paused = await registry.call(
      'write_note',
      { text: 'queued' },
      { onAsk: () => ({ action: 'pause' }) },
    );
    expect(isErrorType(paused, 'approval_pending')).toBe(true);
    expect(approved).toEqual(['write_note']);
    expect(runs).toEqual([{ text: 'inline' }]);
  });

  test('an async onAsk answer is awaited; one that throws or answers nonsense denies', async () => {
    const { registry, runs } = setup();
    const later = await registry.call(
      'write_note',
      { text: 'a' },
      { onAsk: async () => ({ action: 'allow' }) },
    );
    expect(later.ok).toBe(true);
    const threw = await registry.call(
      'write_note',
      { text: 'b' },
      {
        onAsk: () => {
          throw new Error('queue is down at /srv/queue');
        },
      },
    );
    expect(isErrorType(threw, 'permission_denied')).toBe(true);
    expect(JSON.stringify(threw)).not.toContain('/srv/queue');
    const rejected = await registry.call(
      'write_note',
      { text: 'c' },
      { onAsk: () => Promise.reject(new Error('x')) },
    );
    expect(isErrorType(rejected, 'permission_denied')).toBe(true);
    const nonsense = await registry.call(
      'write_note',
      { text: 'd' },
      {
        onAsk: () => ({ action: 'maybe' }) as never,
      },
    );
    expect(isErrorType(nonsense, 'permission_denied')).toBe(true);
    expect(runs).toEqual([{ text: 'a' }]);
  });

  test('an answer given as a thenable (not a native promise) is awaited, as before', async () => {
    const { registry, runs } = setup({
      approver: () =>
        // biome-ignore lint/suspicious/noThenProperty: the test is about an answer that is a thenable.
        ({ then: (resolve: (answer: unknown) => void) => resolve({ action: 'allow' }) }) as never,
    });
    expect(await registry.call('write_note', { text: 'a' })).toEqual({ ok: true, result: { written: 1 } });
    expect(runs).toEqual([{ text: 'a' }]);
  });

  test('"allow for the session" from a resumed decision holds for later calls under that rule', async () => {
    const { registry, runs } = setup();
    const resumed = await registry.call(
      'write_note',
      { text: 'a' },
      { resume: { rule: 'writes-ask', answer: { action: 'allow', scope: 'session' } } },
    );
    expect(resumed.ok).toBe(true);
    const again = await registry.call('write_note', { text: 'b' }, { onAsk: () => ({ action: 'pause' }) });
    expect(again.ok).toBe(true);
    expect(runs).toHaveLength(2);
  });

  test('a policy gate without an approver of its own passes its ask to onAsk, with the rule that asked', async () => {
    const { tool, runs } = counted();
    const gate = createPolicyGate(
      definePolicy({ rules: [{ id: 'ask-writes', category: 'write', action: 'ask' }] }),
    );
    const registry = new Registry({ ...gate.registryOptions }).register(tool);
    const paused = await registry.call('write_note', { text: 'a' }, { onAsk: () => ({ action: 'pause' }) });
    expect(isErrorType(paused, 'approval_pending')).toBe(true);
    const rule = isErrorType(paused, 'approval_pending') ? paused.error.rule : undefined;
    expect(rule).toBe('ask-writes');
    const resumed = await registry.call(
      'write_note',
      { text: 'a' },
      { resume: { rule, answer: { action: 'allow' } } },
    );
    expect(resumed.ok).toBe(true);
    expect(runs).toEqual([{ text: 'a' }]);
  });

  test('a synchronous gate and onAsk keep the call synchronous up to the tool', async () => {
    const { registry } = setup();
    let settled = false;
    void registry.call('write_note', { text: 'a' }, { onAsk: () => ({ action: 'allow' }) }).then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(true);
  });
});
