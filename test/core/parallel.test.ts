import { expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, Registry } from '../../src/index.js';

test('1,000 parallel dispatches get their own answers, with no cross-talk', async () => {
  const tool = defineTool({
    name: 'delayed_echo',
    description: 'Wait a random moment, then echo the id and the call state.',
    category: 'read',
    input: z.object({ id: z.number().int(), payload: z.string() }),
    execute: async ({ id, payload }, { callId, state }) => {
      await new Promise((resolve) => setTimeout(resolve, (id * 7919) % 13));
      return { id, payload, callId, state };
    },
  });
  const registry = new Registry().register(tool);
  const calls = Array.from({ length: 1_000 }, (_, id) => {
    const valid = id % 10 !== 0;
    const args = valid ? JSON.stringify({ id, payload: `p${id}` }) : JSON.stringify({ id, payload: id });
    return registry
      .dispatch('delayed_echo', args, { callId: `call-${id}`, state: { user: id } })
      .then((text) => ({ id, valid, text }));
  });
  const results = await Promise.all(calls);
  expect(results).toHaveLength(1_000);
  for (const { id, valid, text } of results) {
    const envelope = JSON.parse(text);
    if (valid) {
      expect(envelope).toEqual({
        ok: true,
        result: { id, payload: `p${id}`, callId: `call-${id}`, state: { user: id } },
      });
    } else {
      expect(envelope.error.type).toBe('invalid_arguments');
      expect(envelope.error.issues[0].received).toBe(`the integer ${id}`);
    }
  }
});
