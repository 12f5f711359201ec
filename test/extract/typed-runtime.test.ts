import { describe, expect, test } from 'vitest';
import { Registry, ToolDefinitionError, tool, toolsOf } from '../../src/index.js';
import { type GeneratedContracts, parameterNames } from '../../src/typed/index.js';
import contracts from '../fixtures/extract/contracts.generated.js';
import { set_counter, setCounter } from '../fixtures/extract/primitives.js';

function definitionError(run: () => unknown): ToolDefinitionError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolDefinitionError) return error;
    throw error;
  }
  throw new Error('expected a ToolDefinitionError');
}

describe('binding a generated contract at registration', () => {
  test('a tool without a generated contract fails at registration, saying to run toolpact gen', () => {
    /** Not in the generated module. */
    function brand_new(value: string) {
      return value;
    }
    const pending = tool(brand_new, { category: 'read', contracts });
    const error = definitionError(() => new Registry().register(pending));
    expect(error.code).toBe('missing_contract');
    expect(error.tool).toBe('brand_new');
    expect(error.message).toContain('toolpact gen');
    expect(error.message).toContain('primitives.ts');
  });

  test('a function whose parameters changed since generation is stale', () => {
    function changed(name: string, total: number) {
      return `${name}${total}`;
    }
    const error = definitionError(() =>
      new Registry().register(tool(changed, { name: 'set_counter', contracts })),
    );
    expect(error.code).toBe('stale_contract');
    expect(error.message).toContain('now takes (name, total)');
    expect(error.message).toContain('(name, count, ratio, enabled, note)');
    expect(error.message).toContain('toolpact gen');
  });

  test('a module of another format is stale, and no module at all is missing', () => {
    const old = tool(set_counter, { contracts: { ...contracts, format: 0 } });
    expect(definitionError(() => new Registry().register(old)).code).toBe('stale_contract');
    const none = tool(set_counter, { contracts: undefined as never });
    expect(definitionError(() => new Registry().register(none)).code).toBe('missing_contract');
  });

  test('the run-time category overrides @category, and effects follow it', () => {
    const reader = tool(set_counter, { contracts, category: 'read', name: 'set_counter' });
    expect(reader.contract.category).toBe('read');
    expect(reader.contract.effects.readOnly).toBe(true);
    expect(setCounter.contract.category).toBe('write');
    expect(setCounter.contract.effects.readOnly).toBe(false);
  });

  test('options are checked when the tool is made', () => {
    expect(definitionError(() => tool(set_counter, { contracts, category: 'run' as never })).code).toBe(
      'invalid_category',
    );
    expect(definitionError(() => tool(set_counter, { contracts, name: 'set.counter' })).code).toBe(
      'invalid_name',
    );
    expect(definitionError(() => tool(() => 1, { contracts })).code).toBe('invalid_name');
    expect(definitionError(() => tool(set_counter, { contracts, timeoutMs: -1 })).code).toBe(
      'invalid_option',
    );
    expect(definitionError(() => toolsOf({})).code).toBe('not_a_tool');
  });

  test('a type-first tool is the same kind of Tool as defineTool makes, validated by its contract', async () => {
    const registry = new Registry().register(setCounter);
    expect(registry.schemas()[0]).toEqual({
      ...contracts.tools.set_counter!.contract,
      effects: setCounter.contract.effects,
    });
    const text = await registry.dispatch(
      'set_counter',
      '{"name":"a","count":"1","ratio":1,"enabled":true,"note":null}',
    );
    expect(JSON.parse(text)).toMatchObject({
      ok: false,
      error: { type: 'invalid_arguments', issues: [{ path: '$.count' }] },
    });
  });
});

test('an absent positional argument is undefined, never a property of Object.prototype', async () => {
  const handmade: GeneratedContracts = {
    format: 1,
    inputsHash: 'sha256:0',
    sources: ['handmade.ts'],
    tools: {
      echo_names: {
        contract: {
          name: 'echo_names',
          description: 'Echo which optional arguments came.',
          category: 'read',
          parameters: {
            type: 'object',
            properties: { toString: { type: 'string' }, constructor: { type: 'string' } },
            additionalProperties: false,
          },
        },
        call: { style: 'positional', parameters: ['toString', 'constructor'], context: false },
        source: 'handmade.ts',
      },
    },
  };
  // biome-ignore lint/suspicious/noShadowRestrictedNames: the parameter names are the point of the test.
  function echo_names(toString?: string, constructor?: string) {
    return [typeof toString, typeof constructor];
  }
  const echo = new Registry().register(tool(echo_names, { contracts: handmade })).get('echo_names')!;
  const context = {
    signal: new AbortController().signal,
    tool: echo.contract,
    callId: undefined,
    state: undefined,
  };
  // Called directly: validation is the registry's concern, the spreading is the tool's.
  expect(await echo.execute({}, context)).toEqual(['undefined', 'undefined']);
  expect(await echo.execute({ toString: 'a' }, context)).toEqual(['string', 'undefined']);
});

describe('parameterNames reads what the run time can see', () => {
  test.each([
    [
      function plain(a: number, b: string) {
        return [a, b];
      },
      ['a', 'b'],
    ],
    [(a: number, b = f(1, [2, 3]), { c }: { c: number } = { c: 1 }) => [a, b, c], ['a', 'b', '{…}']],
    [async (value: string) => value, ['value']],
    [(...rest: number[]) => rest, ['...rest']],
    [(/* a comment, with a comma */ first: string, second = ')') => first + second, ['first', 'second']],
    [() => 1, []],
  ] as const)('%#', (fn, names) => {
    expect(parameterNames(fn as never)).toEqual(names);
  });

  test('a native or bound function gives undefined, so nothing is claimed about it', () => {
    expect(parameterNames(Math.max)).toBeUndefined();
    expect(parameterNames(set_counter.bind(null))).toBeUndefined();
  });
});

function f(...values: unknown[]) {
  return values.length;
}
