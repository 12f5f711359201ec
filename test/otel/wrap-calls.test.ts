import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { type CallEnd, defineTool, Registry } from '../../src/index.js';

function counted() {
  let runs = 0;
  const tool = defineTool({
    name: 'count',
    category: 'read',
    description: 'Counts how often it ran (a wrapper test tool).',
    input: z.object({}),
    execute: () => ++runs,
  });
  return { registry: new Registry({ observe: () => {} }).register(tool), runs: () => runs };
}

describe('Registry.wrapCalls', () => {
  test('a wrapper sees the call as it starts and how it ended, and the outcome is what run answered', async () => {
    const { registry } = counted();
    const seen: unknown[] = [];
    registry.wrapCalls(async (call, run) => {
      seen.push(['start', call.tool, call.contract?.category, call.callId]);
      const end = await run();
      seen.push(['end', end.record.outcome, end.envelope]);
      return 'ignored';
    });
    expect(await registry.dispatch('count', '{}', { callId: 'c1' })).toBe('{"ok":true,"result":1}');
    expect(seen).toEqual([
      ['start', 'count', 'read', 'c1'],
      ['end', 'ok', { ok: true, result: 1 }],
    ]);
  });

  test.each([
    ['throws before run', () => Promise.reject(new Error('boom'))],
    [
      'throws synchronously',
      () => {
        throw new Error('boom');
      },
    ],
    ['never calls run', () => Promise.resolve()],
    [
      'calls run twice',
      async (_call: unknown, run: () => Promise<CallEnd>) => {
        await run();
        await run();
      },
    ],
    [
      'throws after run',
      async (_call: unknown, run: () => Promise<CallEnd>) => {
        await run();
        throw new Error('boom');
      },
    ],
  ] as const)(
    'a wrapper that %s changes nothing: the tool runs once and the envelope is unchanged',
    async (_label, wrapper) => {
      const { registry, runs } = counted();
      registry.wrapCalls(wrapper as never);
      expect(await registry.call('count', {})).toEqual({ ok: true, result: 1 });
      expect(runs()).toBe(1);
    },
  );

  test('wrappers nest, the first added outermost, and each runs once', async () => {
    const { registry, runs } = counted();
    const order: string[] = [];
    for (const name of ['outer', 'inner']) {
      registry.wrapCalls(async (_call, run) => {
        order.push(`${name} in`);
        await run();
        await run();
        order.push(`${name} out`);
      });
    }
    await registry.call('count', {});
    expect(order).toEqual(['outer in', 'inner in', 'inner out', 'outer out']);
    expect(runs()).toBe(1);
  });

  test('an unknown tool reaches the wrapper with no contract', async () => {
    const { registry } = counted();
    let contract: unknown = 'unset';
    registry.wrapCalls(async (call, run) => {
      contract = call.contract;
      return run();
    });
    const envelope = await registry.call('cuont', {});
    expect(envelope.ok || envelope.error.type).toBe('unknown_tool');
    expect(contract).toBeUndefined();
  });

  test('a wrapper whose active() answers false is skipped, and called again once it answers true', async () => {
    const { registry, runs } = counted();
    let on = false;
    const seen: string[] = [];
    registry.wrapCalls(
      async (call, run) => {
        seen.push(call.tool);
        return run();
      },
      { active: () => on },
    );
    expect(await registry.call('count', {})).toEqual({ ok: true, result: 1 });
    expect(seen).toEqual([]);
    on = true;
    expect(await registry.call('count', {})).toEqual({ ok: true, result: 2 });
    expect(seen).toEqual(['count']);
    expect(runs()).toBe(2);
  });
});
