import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, test } from 'vitest';
import * as z from 'zod';
import {
  CATEGORY_DEFAULTS,
  createTool,
  defineTool,
  isErrorType,
  Registry,
  ToolDefinitionError,
} from '../../src/index.js';
import { definitionError } from '../support/definition-error.js';

const base = {
  description: 'Add two numbers and return the sum.',
  category: 'read' as const,
  execute: () => 0,
};

describe('defineTool refuses what cannot work, saying what to fix', () => {
  test.each([
    ['read.file', 'contains "."'],
    ['read file', 'contains " "'],
    ['', 'empty'],
    ['x'.repeat(65), '65 characters'],
    ['café', 'contains "é"'],
  ])('name %j', (name, fragment) => {
    const error = definitionError(() => defineTool({ ...base, name }));
    expect(error.code).toBe('invalid_name');
    expect(error.message).toContain(fragment);
  });

  test('a 64-character name is accepted', () => {
    expect(defineTool({ ...base, name: 'a'.repeat(64) }).contract.name).toHaveLength(64);
  });

  test.each([undefined, '', '   \n'])('description %j', (description) => {
    const error = definitionError(() =>
      defineTool({ ...base, name: 'add', description: description as string }),
    );
    expect(error.code).toBe('missing_description');
    expect(error.message).toMatch(/what it does, when to use it/);
  });

  test('unknown category', () => {
    const error = definitionError(() => defineTool({ ...base, name: 'add', category: 'admin' as 'read' }));
    expect(error.code).toBe('invalid_category');
    expect(error.message).toContain('"admin"');
  });

  test('a root schema that is not an object', () => {
    const error = definitionError(() => defineTool({ ...base, name: 'add', input: z.string() }));
    expect(error.code).toBe('invalid_schema');
    expect(error.message).toContain('"string"');
  });

  test('an invalid JSON Schema and a dangling $ref', () => {
    expect(
      definitionError(() => defineTool({ ...base, name: 'a', input: { type: 'object', properties: 3 } }))
        .code,
    ).toBe('invalid_schema');
    const dangling = definitionError(() =>
      defineTool({
        ...base,
        name: 'a',
        input: { type: 'object', properties: { x: { $ref: '#/$defs/missing' } } },
      }),
    );
    expect(dangling.message).toContain('#/$defs/missing');
  });

  test('a Standard Schema without JSON Schema support', () => {
    const error = definitionError(() =>
      defineTool({ ...base, name: 'a', input: v.object({ a: v.string() }) as never }),
    );
    expect(error.code).toBe('unsupported_schema');
    expect(error.message).toContain('toStandardJsonSchema');
  });

  test('a zod schema that JSON Schema cannot express', () => {
    const error = definitionError(() =>
      defineTool({ ...base, name: 'a', input: z.object({ when: z.date() }) }),
    );
    expect(error.code).toBe('unsupported_schema');
  });

  test('a bad timeout', () => {
    expect(definitionError(() => defineTool({ ...base, name: 'a', timeoutMs: -1 })).code).toBe(
      'invalid_option',
    );
  });

  test('registering a duplicate name, or something that is not a tool', () => {
    const tool = defineTool({ ...base, name: 'add' });
    const registry = new Registry().register(tool);
    expect(definitionError(() => registry.register(defineTool({ ...base, name: 'add' }))).code).toBe(
      'duplicate_name',
    );
    expect(definitionError(() => new Registry().register(tool, tool)).code).toBe('duplicate_name');
    expect(definitionError(() => registry.register({ name: 'x' } as never)).code).toBe('not_a_tool');
  });
});

describe('the contract', () => {
  test('is plain, frozen, serializable data, with the category defaults', () => {
    const tool = defineTool({
      name: 'write_note',
      title: 'Write note',
      description: 'Write a note.',
      category: 'write',
      input: z.object({ text: z.string().describe('The note'), tags: z.array(z.string()).default([]) }),
      output: z.object({ id: z.string() }),
      returns: 'The new note id.',
      execute: () => ({ id: 'n1' }),
    });
    const contract = tool.contract;
    expect(JSON.parse(JSON.stringify(contract))).toEqual(contract);
    expect(Object.isFrozen(contract.parameters)).toBe(true);
    expect(contract.effects).toEqual(CATEGORY_DEFAULTS.write.effects);
    expect(contract.parameters).toEqual({
      type: 'object',
      properties: {
        text: { type: 'string', description: 'The note' },
        tags: { default: [], type: 'array', items: { type: 'string' } },
      },
      required: ['text'],
    });
    expect(contract.returns).toEqual({
      description: 'The new note id.',
      schema: {
        type: 'object',
        properties: { id: { type: 'string' } },
        required: ['id'],
        additionalProperties: false,
      },
    });
  });

  test('is lean: no $schema and no safe-integer noise', () => {
    const { parameters } = defineTool({
      ...base,
      name: 'a',
      input: z.object({ n: z.number().int() }),
    }).contract;
    expect(JSON.stringify(parameters)).not.toMatch(/\$schema|9007199254740991/);
  });

  test('a tool may override its category effects', () => {
    const tool = defineTool({
      ...base,
      name: 'save',
      category: 'write',
      effects: { idempotent: true, destructive: true },
    });
    expect(tool.contract.effects).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: true,
      openWorld: false,
    });
  });

  test('a tool without input takes no parameters', async () => {
    const tool = defineTool({ ...base, name: 'now' });
    expect(tool.contract.parameters).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    const registry = new Registry().register(tool);
    expect((await registry.call('now', '')).ok).toBe(true);
    expect((await registry.call('now', { x: 1 })).ok).toBe(false);
  });

  test('createTool accepts the wider MCP name profile that defineTool refuses', () => {
    const tool = createTool(
      { name: 'math.factorial', description: 'n!', category: 'read', parameters: { type: 'object' } },
      { execute: () => 1 },
    );
    expect(tool.contract.name).toBe('math.factorial');
    expect(() => defineTool({ ...base, name: 'math.factorial' })).toThrow(ToolDefinitionError);
  });
});

describe('schema libraries through Standard Schema', () => {
  test('zod: defaults are applied, not required, and the argument type is inferred', async () => {
    const tool = defineTool({
      ...base,
      name: 'page',
      input: z.object({ query: z.string(), limit: z.number().int().default(10) }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ query: string; limit: number }>();
        return args;
      },
    });
    expect(tool.contract.parameters.required).toEqual(['query']);
    const envelope = await new Registry().register(tool).call('page', '{"query":"x"}');
    expect(envelope).toEqual({ ok: true, result: { query: 'x', limit: 10 } });
  });

  test('valibot wrapped with toStandardJsonSchema', async () => {
    const tool = defineTool({
      ...base,
      name: 'greet',
      input: toStandardJsonSchema(v.object({ name: v.pipe(v.string(), v.minLength(2)) })),
      execute: ({ name }) => `hello ${name}`,
    });
    const registry = new Registry().register(tool);
    expect(await registry.call('greet', { name: 'Ada' })).toEqual({ ok: true, result: 'hello Ada' });
    const bad = await registry.call('greet', { name: 'A' });
    expect(bad.ok || bad.error.type).toBe('invalid_arguments');
  });

  test('arktype', async () => {
    const tool = defineTool({
      ...base,
      name: 'double',
      input: type({ n: 'number' }),
      execute: ({ n }) => n * 2,
    });
    const registry = new Registry().register(tool);
    expect(await registry.call('double', { n: 2 })).toEqual({ ok: true, result: 4 });
    const bad = await registry.call('double', { n: 'two' });
    expect(isErrorType(bad, 'invalid_arguments') && bad.error.issues[0]?.path).toBe('$.n');
  });

  test('a plain JSON Schema written as const types the arguments', () => {
    defineTool({
      ...base,
      name: 'search',
      input: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          mode: { enum: ['fast', 'full'] },
          limit: { type: 'integer', default: 5 },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['query'],
      },
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{
          query: string;
          limit: number;
          mode?: 'fast' | 'full';
          tags?: string[];
        }>();
        return null;
      },
    });
  });
});
