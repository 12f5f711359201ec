import { describe, expect, it } from 'vitest';
import { createTool, isErrorType, Registry } from '../../src/index.js';
import {
  dispatchProviderCalls,
  ProviderPayloadError,
  readAnthropicToolUses,
  readGeminiFunctionCalls,
  readMcpToolCall,
  readOpenAIToolCalls,
  readResponsesFunctionCalls,
  restoreStrictArguments,
  runAnthropicToolUses,
  runGeminiFunctionCalls,
  runOpenAIToolCalls,
  runResponsesFunctionCalls,
} from '../../src/schema/index.js';
import { FIXTURES } from './fixtures.js';

const factorial = createTool(
  {
    name: 'math.factorial',
    description: 'Compute n factorial.',
    category: 'read',
    parameters: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
  },
  {
    execute: ({ n }: { n: number }) =>
      Array.from({ length: n }, (_, index) => index + 1).reduce((a, b) => a * b, 1),
  },
);
const registry = new Registry().register(factorial, ...FIXTURES.map((fixture) => fixture.tool));

describe('names come back to the real tool', () => {
  it('an OpenAI alias is mapped back before dispatch', async () => {
    const [message] = await runOpenAIToolCalls(registry, {
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'math_factorial', arguments: '{"n":5}' } },
      ],
    });
    expect(message).toEqual({ role: 'tool', tool_call_id: 'c1', content: '{"ok":true,"result":120}' });
  });

  it('Gemini keeps the dotted name and answers under the name it used', async () => {
    const reply = await runGeminiFunctionCalls(registry, {
      candidates: [
        { content: { parts: [{ functionCall: { id: 'g1', name: 'math.factorial', args: { n: 3 } } }] } },
      ],
    });
    expect(reply).toEqual({
      role: 'user',
      parts: [{ functionResponse: { id: 'g1', name: 'math.factorial', response: { output: 6 } } }],
    });
  });

  it('an unknown name is an unknown_tool envelope with suggestions, not a throw', async () => {
    const [outcome] = await dispatchProviderCalls(
      registry,
      [{ id: 'x', name: 'math_factorail', arguments: {} }],
      'openai',
    );
    expect(isErrorType(outcome!.envelope, 'unknown_tool')).toBe(true);
    if (isErrorType(outcome!.envelope, 'unknown_tool'))
      expect(outcome!.envelope.error.suggestions).toContain('math.factorial');
  });
});

describe('OpenAI strict: null for an optional field means absent', () => {
  const parameters = FIXTURES.find((fixture) => fixture.id === 'optional_default')!.tool.contract.parameters;

  it('removes the null, and the contract applies its default', async () => {
    expect(restoreStrictArguments({ query: 'x', limit: null, exact: null }, parameters)).toEqual({
      query: 'x',
    });
    const [message] = await runOpenAIToolCalls(
      registry,
      {
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'optional_default', arguments: '{"query":"x","limit":null,"exact":null}' },
          },
        ],
      },
      { strict: true },
    );
    expect(JSON.parse(message!.content)).toEqual({ ok: true, result: { query: 'x', limit: 10 } });
  });

  it('keeps a null the contract accepts', () => {
    const nullable = FIXTURES.find((fixture) => fixture.id === 'nullable')!.tool.contract.parameters;
    expect(restoreStrictArguments({ note: null, parent: null }, nullable)).toEqual({
      note: null,
      parent: null,
    });
  });

  it('keeps a null for a required field, so validation reports it', async () => {
    const [item] = await runResponsesFunctionCalls(
      registry,
      {
        output: [
          {
            type: 'function_call',
            call_id: 'f1',
            name: 'optional_default',
            arguments: '{"query":null,"limit":null,"exact":null}',
          },
        ],
      },
      { strict: true },
    );
    const envelope = JSON.parse(item!.output);
    expect(envelope.error.type).toBe('invalid_arguments');
    expect(envelope.error.issues[0].path).toBe('$.query');
  });

  it('restores inside arrays, $refs and discriminated unions', () => {
    const defs = FIXTURES.find((fixture) => fixture.id === 'defs_refs')!.tool.contract.parameters;
    expect(
      restoreStrictArguments(
        { home: { city: 'a' }, work: null, tree: { label: 'r', children: [{ label: 'c', children: null }] } },
        defs,
      ),
    ).toEqual({ home: { city: 'a' }, tree: { label: 'r', children: [{ label: 'c' }] } });
  });

  it('never sets a prototype from a "__proto__" key', () => {
    const restored = restoreStrictArguments(
      JSON.parse('{"query":"x","__proto__":{"polluted":true}}'),
      parameters,
    ) as object;
    expect(Object.getPrototypeOf(restored)).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('passes JSON that does not parse on, so the model gets invalid_json', async () => {
    const [message] = await runOpenAIToolCalls(
      registry,
      {
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'optional_default', arguments: '{"query": "x",' } },
        ],
      },
      { strict: true },
    );
    expect(JSON.parse(message!.content).error.type).toBe('invalid_json');
  });
});

describe('failures reach each provider on its error channel', () => {
  it('Anthropic tool_result has is_error', async () => {
    const reply = await runAnthropicToolUses(registry, {
      content: [
        { type: 'text', text: 'Let me compute.' },
        { type: 'tool_use', id: 't1', name: 'math_factorial', input: { n: -1 } },
        { type: 'tool_use', id: 't2', name: 'math_factorial', input: { n: 4 } },
      ],
    });
    expect(reply.content.map((block) => [block.tool_use_id, block.is_error === true])).toEqual([
      ['t1', true],
      ['t2', false],
    ]);
  });

  it('Gemini functionResponse carries error', async () => {
    const reply = await runGeminiFunctionCalls(registry, [
      { functionCall: { name: 'math.factorial', args: {} } },
    ]);
    const response = reply.parts[0]!.functionResponse.response as { error: { type: string } };
    expect(response.error.type).toBe('invalid_arguments');
  });
});

describe('malformed provider payloads give a clear error, never a crash', () => {
  const cases: [string, () => unknown, string][] = [
    ['OpenAI: not an object', () => readOpenAIToolCalls(42), '$'],
    ['OpenAI: choices not an array', () => readOpenAIToolCalls({ choices: {} }), '$.choices'],
    [
      'OpenAI: a call without id',
      () => readOpenAIToolCalls({ tool_calls: [{ type: 'function', function: { name: 'a' } }] }),
      '$.tool_calls[0].id',
    ],
    [
      'OpenAI: a custom tool call',
      () => readOpenAIToolCalls([{ id: 'c', type: 'custom', custom: {} }]),
      '$[0].type',
    ],
    ['Responses: no output', () => readResponsesFunctionCalls({ id: 'r' }), '$.output'],
    [
      'Responses: a call without name',
      () => readResponsesFunctionCalls([{ type: 'function_call', call_id: 'c' }]),
      '$[0].name',
    ],
    ['Anthropic: content is a string', () => readAnthropicToolUses({ content: 'hi' }), '$.content'],
    [
      'Anthropic: tool_use without id',
      () => readAnthropicToolUses([{ type: 'tool_use', name: 'a', input: {} }]),
      '$[0].id',
    ],
    ['Gemini: candidates not an array', () => readGeminiFunctionCalls({ candidates: 'x' }), '$.candidates'],
    [
      'Gemini: a call without name',
      () => readGeminiFunctionCalls([{ functionCall: { args: {} } }]),
      '$[0].functionCall.name',
    ],
    ['MCP: params is an array', () => readMcpToolCall([]), '$'],
  ];
  it.each(cases)('%s', (_, read, path) => {
    expect(read).toThrow(ProviderPayloadError);
    try {
      read();
    } catch (error) {
      expect((error as ProviderPayloadError).path).toBe(path);
      expect((error as Error).message).toMatch(/expected .+, received .+/);
    }
  });

  it('answers without calls are empty, not errors', () => {
    expect(
      readOpenAIToolCalls({ choices: [{ message: { role: 'assistant', content: 'hi', tool_calls: null } }] }),
    ).toEqual([]);
    expect(readGeminiFunctionCalls({ candidates: [{ content: { parts: [{ text: 'hi' }] } }] })).toEqual([]);
    expect(readAnthropicToolUses({ content: [{ type: 'text', text: 'hi' }] })).toEqual([]);
  });
});

describe('parallel dispatch', () => {
  it('keeps the order of the calls and never runs more than the cap at once', async () => {
    let running = 0;
    let most = 0;
    const gate: (() => void)[] = [];
    const slow = createTool(
      {
        name: 'slow',
        description: 'Wait, then answer.',
        category: 'read',
        parameters: { type: 'object', properties: { i: { type: 'integer' } } },
      },
      {
        execute: async ({ i }: { i: number }) => {
          running++;
          most = Math.max(most, running);
          await new Promise<void>((resolve) => gate.push(resolve));
          running--;
          return i;
        },
      },
    );
    const local = new Registry().register(slow);
    const calls = Array.from({ length: 9 }, (_, i) => ({ id: `c${i}`, name: 'slow', arguments: { i } }));
    const pending = dispatchProviderCalls(local, calls, 'anthropic', { concurrency: 3 });
    // Release waiting calls one by one until all have run.
    for (let released = 0; released < calls.length; released++) {
      while (gate.length === 0) await new Promise((resolve) => setImmediate(resolve));
      gate.shift()!();
    }
    const outcomes = await pending;
    expect(most).toBe(3);
    expect(outcomes.map((outcome) => (outcome.envelope.ok ? outcome.envelope.result : null))).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8,
    ]);
  });
});
