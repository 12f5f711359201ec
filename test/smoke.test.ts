import { expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, Registry } from '../src/index.js';

test('a defined tool dispatches', async () => {
  const add = defineTool({
    name: 'add',
    description: 'Add two numbers and return the sum.',
    category: 'read',
    input: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => a + b,
  });
  const registry = new Registry().register(add);
  expect(await registry.dispatch('add', '{"a":1,"b":2}')).toBe('{"ok":true,"result":3}');
});
