import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { jsonErrorPosition } from '../../src/dispatch/json-error-position.js';
import { defineTool, type Envelope, Registry, ToolError } from '../../src/index.js';

const registry = new Registry({ limits: { maxDepth: 16 } }).register(
  defineTool({
    name: 'typed',
    description: 'A zod tool.',
    category: 'read',
    input: z.object({ a: z.string(), b: z.array(z.number()).optional() }),
    execute: ({ a }) => a.length,
  }),
  defineTool({
    name: 'json',
    description: 'A JSON Schema tool.',
    category: 'read',
    input: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
    execute: ({ n }) => {
      if ((n as number) % 3 === 0) throw new ToolError('multiple of three', { type: 'bad_n' });
      if ((n as number) % 3 === 1) throw 'a string';
      return { n, at: new Date(0), big: BigInt(n as number) };
    },
  }),
  defineTool({
    name: 'any',
    description: 'Takes anything.',
    category: 'read',
    input: { type: 'object' },
    execute: (args) => args,
  }),
);
const names = ['typed', 'json', 'any', '__proto__', 'missing', ''];

function wellFormed(text: string): boolean {
  const envelope = JSON.parse(text) as Envelope;
  if (envelope.ok === true) return Object.hasOwn(envelope, 'result');
  return (
    envelope.ok === false &&
    typeof envelope.error.type === 'string' &&
    typeof envelope.error.message === 'string'
  );
}

describe('dispatch never throws and always answers a well-formed envelope', () => {
  test('for arbitrary JSON values as arguments', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names), fc.jsonValue(), async (name, value) => {
        const text = await registry.dispatch(name, value);
        expect(wellFormed(text)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  test('for arbitrary strings as raw arguments', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.oneof(fc.string(), fc.json(), fc.string({ unit: 'binary' })),
        async (name, raw) => {
          const text = await registry.dispatch(name, raw);
          expect(wellFormed(text)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('for arbitrary tool names', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary' }), async (name) => {
        expect(wellFormed(await registry.dispatch(name, {}))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the JSON error locator agrees with JSON.parse', () => {
  test('it finds an error exactly where JSON.parse fails, and none where it succeeds', () => {
    const damaged = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom('', ',', '}', ']', '"', ':', 'x', '\n', '{', '['))
      .map(([text, at, insert]) => {
        const cut = at % (text.length + 1);
        return text.slice(0, cut) + insert + text.slice(cut + (insert === '' ? 1 : 0));
      });
    fc.assert(
      fc.property(fc.oneof(damaged, fc.json(), fc.string()), (text) => {
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        const located = jsonErrorPosition(text);
        expect(located.detail === 'no error found').toBe(parses);
        expect(located.position).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 2_000 },
    );
  });
});
