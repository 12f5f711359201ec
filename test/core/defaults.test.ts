import { describe, expect, test } from 'vitest';
import {
  createTool,
  defineTool,
  dropBrokenDefaults,
  findBrokenDefaults,
  type JsonSchema,
  Registry,
} from '../../src/index.js';
import { definitionError } from '../support/definition-error.js';

const base = {
  name: 'find_package',
  description: 'Find a package by name in the registry and return its latest version.',
  category: 'read' as const,
  execute: (args: unknown) => args,
};

const object = (properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  properties,
  ...extra,
});

describe('a default, const or example that breaks its own schema is refused at definition time', () => {
  test.each<[string, JsonSchema, string, unknown, string]>([
    [
      'an empty default beside an enum',
      object({ kind: { type: 'string', enum: ['runtime', 'package_manager'], default: '' } }),
      '$.parameters.properties.kind.default',
      '',
      'one of "runtime", "package_manager"',
    ],
    [
      'a boolean default written as a string',
      object({ exact: { type: 'boolean', default: 'false' } }),
      '$.parameters.properties.exact.default',
      'false',
      'boolean',
    ],
    [
      'a default below the minimum, in a nested object',
      object({ page: object({ size: { type: 'integer', minimum: 1, default: 0 } }) }),
      '$.parameters.properties.page.properties.size.default',
      0,
      'a number >= 1',
    ],
    [
      'a default of array items',
      object({ tags: { type: 'array', items: { type: 'string', maxLength: 3, default: 'toolong' } } }),
      '$.parameters.properties.tags.items.default',
      'toolong',
      'a string of at most 3 characters',
    ],
    [
      'an array default whose item breaks the item schema',
      object({ tags: { type: 'array', items: { type: 'string' }, default: ['a', 2] } }),
      '$.parameters.properties.tags.default',
      ['a', 2],
      'string at $[1] of the value',
    ],
    [
      'a default through a $ref into $defs',
      object(
        { level: { $ref: '#/$defs/level', default: 'loud' } },
        { $defs: { level: { enum: ['debug', 'info'] } } },
      ),
      '$.parameters.properties.level.default',
      'loud',
      'one of "debug", "info"',
    ],
    [
      'a default inside a $defs entry',
      object(
        { level: { $ref: '#/$defs/level' } },
        { $defs: { level: { enum: ['debug', 'info'], default: 'x' } } },
      ),
      '$.parameters.$defs.level.default',
      'x',
      'one of "debug", "info"',
    ],
    [
      'a default of an anyOf branch',
      object({
        when: { anyOf: [{ type: 'string', format: 'date', default: 'tomorrow' }, { type: 'integer' }] },
      }),
      '$.parameters.properties.when.anyOf[0].default',
      'tomorrow',
      'a string in date format',
    ],
    [
      'an object default that misses a required field',
      object({ range: object({ from: { type: 'integer' } }, { required: ['from'], default: {} }) }),
      '$.parameters.properties.range.default',
      {},
      'integer',
    ],
    [
      'a const its sibling type refuses',
      object({ version: { type: 'integer', const: '2' } }),
      '$.parameters.properties.version.const',
      '2',
      'integer',
    ],
    [
      'an example the schema refuses',
      object({ limit: { type: 'integer', maximum: 10, examples: [5, 50] } }),
      '$.parameters.properties.limit.examples[1]',
      50,
      'a number <= 10',
    ],
  ])('%s', (_, input, path, value, expected) => {
    for (const define of [
      () => defineTool({ ...base, input }),
      () => createTool({ ...base, parameters: input }, { execute: base.execute }),
    ]) {
      const error = definitionError(define);
      expect(error.code).toBe('invalid_default');
      expect(error.tool).toBe('find_package');
      expect(error.details).toEqual([{ path, value, expected: expect.stringContaining(expected) }]);
      // The message names the place, what came and what is expected, and what to do.
      expect(error.message).toContain(path);
      expect(error.message).toContain(expected);
      expect(error.message).toMatch(/Change it|Fix it|Make the const/);
    }
  });

  test('every broken value is listed in details, not only the first', () => {
    const error = definitionError(() =>
      defineTool({
        ...base,
        input: object({ a: { type: 'boolean', default: 'no' }, b: { enum: [1, 2], default: 3 } }),
      }),
    );
    expect(error.details?.map((detail) => detail.path)).toEqual([
      '$.parameters.properties.a.default',
      '$.parameters.properties.b.default',
    ]);
    expect(error.message).toContain('and 1 more: $.parameters.properties.b.default');
  });

  test('the output schema is checked too, at $.returns.schema', () => {
    const error = definitionError(() =>
      defineTool({ ...base, output: object({ version: { type: 'string', default: 1 } }) }),
    );
    expect(error.details?.[0]?.path).toBe('$.returns.schema.properties.version.default');
    const created = definitionError(() =>
      createTool(
        {
          ...base,
          parameters: { type: 'object' },
          returns: { schema: object({ version: { type: 'string', default: 1 } }) },
        },
        { execute: base.execute },
      ),
    );
    expect(created.code).toBe('invalid_default');
  });

  test('defaults that fit are accepted, including one that fits only after nested defaults are filled', () => {
    const input = object({
      kind: { type: 'string', enum: ['runtime', 'package_manager'], default: 'runtime' },
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 10, examples: [1, 50] },
      when: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }], default: null },
      // `{}` becomes `{ from: 0 }` once the nested default is applied, as dispatch applies it.
      range: object({ from: { type: 'integer', default: 0 } }, { required: ['from'], default: {} }),
      version: { type: 'integer', const: 2, default: 2 },
    });
    expect(() => defineTool({ ...base, input })).not.toThrow();
    expect(() => createTool({ ...base, parameters: input }, { execute: base.execute })).not.toThrow();
    expect(findBrokenDefaults(input)).toEqual([]);
  });

  test('checking a default changes neither the schema nor the default', () => {
    const input = object({ range: object({ from: { type: 'integer', default: 0 } }, { default: {} }) });
    const before = structuredClone(input);
    defineTool({ ...base, input });
    expect(input).toEqual(before);
  });
});

describe('tools from outside: dropBrokenDefaults', () => {
  const foreign = object(
    {
      kind: { type: 'string', enum: ['runtime', 'package_manager'], default: '' },
      exact: { type: 'boolean', default: false },
      limit: { type: 'integer', maximum: 10, examples: [5, 50] },
      version: { type: 'integer', const: '2' },
    },
    { required: ['exact'] },
  );

  test('takes the broken defaults and examples out, keeps the rest, and says what it took', () => {
    const before = structuredClone(foreign);
    const { schema, dropped, kept } = dropBrokenDefaults(foreign);
    expect(foreign).toEqual(before);
    expect(dropped.map((entry) => [entry.keyword, entry.path, entry.value])).toEqual([
      ['default', '$.parameters.properties.kind.default', ''],
      ['examples', '$.parameters.properties.limit.examples[1]', 50],
    ]);
    expect(schema.properties).toEqual({
      kind: { type: 'string', enum: ['runtime', 'package_manager'] },
      exact: { type: 'boolean', default: false },
      limit: { type: 'integer', maximum: 10, examples: [5] },
      version: { type: 'integer', const: '2' },
    });
    // A const is an assertion, not an annotation: it stays, and is reported.
    expect(kept.map((entry) => entry.path)).toEqual(['$.parameters.properties.version.const']);
  });

  test('a model that leaves the field out is not refused for a default it never sent', async () => {
    const { schema } = dropBrokenDefaults(
      object({ kind: { enum: ['runtime', 'package_manager'], default: '' } }),
    );
    const tool = createTool({ ...base, parameters: schema }, { execute: base.execute });
    const envelope = await new Registry().register(tool).call('find_package', {});
    expect(envelope).toEqual({ ok: true, result: {} });
  });

  test('a schema with nothing broken comes back as it was', () => {
    const clean = object({ exact: { type: 'boolean', default: false } });
    expect(dropBrokenDefaults(clean)).toEqual({ schema: clean, dropped: [], kept: [] });
  });
});

describe('required and default together: dispatch fills the default before it checks required', () => {
  test('a call that leaves the field out gets the default, not a missing_property error', async () => {
    const tool = defineTool({
      ...base,
      input: object({ limit: { type: 'integer', default: 10 } }, { required: ['limit'] }),
    });
    const envelope = await new Registry().register(tool).call('find_package', {});
    expect(envelope).toEqual({ ok: true, result: { limit: 10 } });
  });
});
