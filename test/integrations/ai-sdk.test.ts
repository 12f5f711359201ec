import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { generateText, type ModelMessage, stepCountIs, streamText } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { describe, expect, test } from 'vitest';
import { type ToolCallFailedError, toAiSdkTools } from '../../src/ai-sdk/index.js';
import { createTool, defineTool, Registry, resolveEffects } from '../../src/index.js';
import { generatingModel, notesWorkspace, type Turn, toolCall, usage } from './support.js';

/** The same, streaming. */
function streamingModel(turns: readonly Turn[]) {
  let index = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      const turn = turns[index++] ?? 'done';
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      if (typeof turn === 'string') {
        parts.push(
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: turn },
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
        );
      } else {
        parts.push(...turn.map(toolCall), {
          type: 'finish',
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
        });
      }
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
}

/** The tool results the model was sent on one call, by call id: the output part of each. */
function toolResultsIn(
  options: LanguageModelV3CallOptions | undefined,
): Map<string, { type: string; value?: unknown }> {
  const results = new Map<string, { type: string; value?: unknown }>();
  for (const message of options?.prompt ?? []) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result')
        results.set(part.toolCallId, part.output as { type: string; value?: unknown });
    }
  }
  return results;
}

function envelopeOf(output: { type: string; value?: unknown } | undefined) {
  expect(typeof output?.value).toBe('string');
  return JSON.parse(output!.value as string);
}

const mixedCalls: Turn = [
  { id: 'c1', name: 'read_note', input: { name: 'todo.md' } },
  { id: 'c2', name: 'read_note', input: { name: 42 } },
  { id: 'c3', name: 'delete_note', input: { name: 'todo.md' } },
];

describe('toAiSdkTools in the SDK loop', () => {
  test('generateText, several steps: valid, invalid and denied calls come back as envelopes', async () => {
    const { registry, approvals, runs } = notesWorkspace();
    const model = generatingModel([mixedCalls, 'The note says: buy milk.']);
    const result = await generateText({
      model,
      prompt: 'What is in todo.md?',
      tools: toAiSdkTools(registry, { approvals }),
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe('The note says: buy milk.');
    expect(result.steps).toHaveLength(2);
    expect(runs).toEqual(['read_note todo.md']);

    const sent = toolResultsIn(model.doGenerateCalls[1]);
    expect(sent.get('c1')?.type).toBe('text');
    expect(envelopeOf(sent.get('c1'))).toEqual({ ok: true, result: 'buy milk' });
    // The model reads our invalid_arguments message (with the path), not the SDK's own error.
    expect(sent.get('c2')?.type).toBe('error-text');
    const invalid = envelopeOf(sent.get('c2'));
    expect(invalid.error.type).toBe('invalid_arguments');
    expect(invalid.error.issues[0].path).toBe('$.name');
    expect(invalid.error.message).toContain('$.name: expected string, received the integer 42');
    const denied = envelopeOf(sent.get('c3'));
    expect(denied.error).toMatchObject({ type: 'permission_denied', rule: 'no-deletes' });
    expect(denied.error.message).toContain('notes are never deleted here');

    // The tools the model was offered are the contract's, with no SDK-side rewriting of the schema.
    const offered = model.doGenerateCalls[0]!.tools!.find((entry) => entry.name === 'write_note');
    expect(offered).toMatchObject({
      type: 'function',
      inputSchema: registry.get('write_note')!.contract.parameters,
    });
  });

  test('streamText, several steps: the same envelopes reach the model', async () => {
    const { registry, approvals, runs } = notesWorkspace();
    const model = streamingModel([mixedCalls, 'Done.']);
    const result = streamText({
      model,
      prompt: 'What is in todo.md?',
      tools: toAiSdkTools(registry, { approvals }),
      stopWhen: stepCountIs(5),
    });
    expect(await result.text).toBe('Done.');
    expect(await result.steps).toHaveLength(2);
    expect(runs).toEqual(['read_note todo.md']);
    const sent = toolResultsIn(model.doStreamCalls[1]);
    expect(envelopeOf(sent.get('c1'))).toEqual({ ok: true, result: 'buy milk' });
    expect(envelopeOf(sent.get('c2')).error.type).toBe('invalid_arguments');
    expect(envelopeOf(sent.get('c3')).error.type).toBe('permission_denied');
  });

  test('malformed JSON from the model is caught by the SDK before execute, and the loop goes on', async () => {
    const { registry, runs } = notesWorkspace();
    const model = generatingModel([[{ id: 'j1', name: 'read_note', input: '{"name": "todo.md"' }], 'ok']);
    const result = await generateText({
      model,
      prompt: 'x',
      tools: toAiSdkTools(registry),
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('ok');
    expect(runs).toEqual([]);
    expect(toolResultsIn(model.doGenerateCalls[1]).get('j1')?.type).toBe('error-text');
  });
});

describe('the gate asks through the SDK approval flow', () => {
  async function askToWrite(model: MockLanguageModelV3, stream: boolean) {
    const { registry, approvals, runs, notes } = notesWorkspace();
    const tools = toAiSdkTools(registry, { approvals });
    const prompt: ModelMessage[] = [{ role: 'user', content: 'Change the todo to bread.' }];
    const first = stream
      ? await (async () => {
          const streamed = streamText({ model, messages: prompt, tools, stopWhen: stepCountIs(5) });
          return { content: await streamed.content, response: await streamed.response };
        })()
      : await generateText({ model, messages: prompt, tools, stopWhen: stepCountIs(5) });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    return { registry, approvals, runs, notes, tools, prompt, first, request };
  }

  for (const stream of [false, true]) {
    const label = stream ? 'streamText' : 'generateText';
    const turns = (): Turn[] => [
      [{ id: 'w1', name: 'write_note', input: { name: 'todo.md', text: 'buy bread' } }],
      'Changed.',
    ];

    test(`${label}: ask → needsApproval → approved → the call runs once`, async () => {
      const model = stream ? streamingModel(turns()) : generatingModel(turns());
      const setup = await askToWrite(model, stream);
      expect(setup.request).toMatchObject({ type: 'tool-approval-request', toolCall: { toolCallId: 'w1' } });
      expect(setup.runs).toEqual([]);
      const approvalId = (setup.request as { approvalId: string }).approvalId;
      const messages: ModelMessage[] = [
        ...setup.prompt,
        ...setup.first.response.messages,
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved: true }] },
      ];
      const next = stream
        ? await streamText({ model, messages, tools: setup.tools, stopWhen: stepCountIs(5) }).text
        : (await generateText({ model, messages, tools: setup.tools, stopWhen: stepCountIs(5) })).text;
      expect(next).toBe('Changed.');
      expect(setup.runs).toEqual(['write_note todo.md']);
      expect(setup.notes.get('todo.md')).toBe('buy bread');
      const calls = stream ? model.doStreamCalls : model.doGenerateCalls;
      expect(envelopeOf(toolResultsIn(calls.at(-1)).get('w1'))).toEqual({
        ok: true,
        result: { written: 'todo.md', chars: 9 },
      });
      // The approval was for that call only: the same call id outside the flow is refused by the gate.
      const again = await setup.registry.call('write_note', { name: 'todo.md', text: 'x' }, { callId: 'w1' });
      expect(again).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
      expect(setup.runs).toHaveLength(1);
    });

    test(`${label}: ask → needsApproval → denied → the tool never runs`, async () => {
      const model = stream ? streamingModel(turns()) : generatingModel(turns());
      const setup = await askToWrite(model, stream);
      const approvalId = (setup.request as { approvalId: string }).approvalId;
      const messages: ModelMessage[] = [
        ...setup.prompt,
        ...setup.first.response.messages,
        {
          role: 'tool',
          content: [{ type: 'tool-approval-response', approvalId, approved: false, reason: 'not today' }],
        },
      ];
      if (stream) await streamText({ model, messages, tools: setup.tools, stopWhen: stepCountIs(5) }).text;
      else await generateText({ model, messages, tools: setup.tools, stopWhen: stepCountIs(5) });
      expect(setup.runs).toEqual([]);
      expect(setup.notes.get('todo.md')).toBe('buy milk');
      const calls = stream ? model.doStreamCalls : model.doGenerateCalls;
      expect(toolResultsIn(calls.at(-1)).get('w1')).toMatchObject({
        type: 'execution-denied',
        reason: 'not today',
      });
    });
  }

  test('a call the gate allows or denies outright is never put to the user', async () => {
    const { registry, approvals } = notesWorkspace();
    const tools = toAiSdkTools(registry, { approvals });
    const needs = async (name: string, input: unknown) =>
      (tools[name]!.needsApproval as (input: unknown, options: object) => Promise<boolean>)(input, {
        toolCallId: 'n',
        messages: [],
      });
    expect(await needs('read_note', { name: 'a' })).toBe(false);
    expect(await needs('delete_note', { name: 'a' })).toBe(false);
    expect(await needs('write_note', { name: 'a', text: 'b' })).toBe(true);
    // Arguments the registry will refuse need no approval: the model gets invalid_arguments instead.
    expect(await needs('write_note', { name: 1 })).toBe(false);
  });
});

describe('options and edges', () => {
  test('output "value": the result on success; a failure is a tool-error whose text is the envelope', async () => {
    const { registry, approvals } = notesWorkspace();
    const model = generatingModel([mixedCalls, 'ok']);
    const result = await generateText({
      model,
      prompt: 'x',
      tools: toAiSdkTools(registry, { approvals, output: 'value' }),
      stopWhen: stepCountIs(3),
    });
    const first = result.steps[0]!.content;
    expect(first.find((part) => part.type === 'tool-result')).toMatchObject({
      toolCallId: 'c1',
      output: 'buy milk',
    });
    const errors = first.filter((part) => part.type === 'tool-error');
    expect(errors.map((part) => (part.error as ToolCallFailedError).envelope.error.type)).toEqual([
      'invalid_arguments',
      'permission_denied',
    ]);
    const sent = toolResultsIn(model.doGenerateCalls[1]);
    expect(envelopeOf(sent.get('c1'))).toEqual({ ok: true, result: 'buy milk' });
    expect(envelopeOf(sent.get('c2')).error.type).toBe('invalid_arguments');
  });

  test('output "value" keeps the notice of a cut result for the model', async () => {
    const big = notesWorkspace();
    big.notes.set('big.md', 'x'.repeat(2_000));
    const small = new Registry({ maxResultChars: 300 }).register(big.registry.get('read_note')!);
    const model = generatingModel([[{ id: 'b1', name: 'read_note', input: { name: 'big.md' } }], 'ok']);
    await generateText({
      model,
      prompt: 'x',
      tools: toAiSdkTools(small, { output: 'value' }),
      stopWhen: stepCountIs(3),
    });
    const sent = envelopeOf(toolResultsIn(model.doGenerateCalls[1]).get('b1'));
    expect(sent.truncated).toMatchObject({ totalChars: 2_000 });
  });

  test('the abort signal and call id of the SDK reach the tool; experimental_context is the state', async () => {
    const seen: unknown[] = [];
    const probe = defineTool({
      name: 'probe',
      category: 'read',
      description: 'Report what the call carried. It takes no arguments and changes nothing.',
      execute: (_args, context) => {
        seen.push({
          callId: context.callId,
          state: context.state,
          signal: context.signal instanceof AbortSignal,
        });
        return 'seen';
      },
    });
    const controller = new AbortController();
    const model = generatingModel([[{ id: 'p1', name: 'probe', input: {} }], 'ok']);
    await generateText({
      model,
      prompt: 'x',
      tools: toAiSdkTools(new Registry().register(probe)),
      abortSignal: controller.signal,
      experimental_context: { user: 'ada' },
      stopWhen: stepCountIs(3),
    });
    expect(seen).toEqual([{ callId: 'p1', state: { user: 'ada' }, signal: true }]);
  });

  test('a dotted name is offered under its OpenAI-safe alias and still reaches its tool', async () => {
    const dotted = createTool(
      {
        name: 'math.double',
        description: 'Double a number. `n` is any finite number. It changes nothing.',
        category: 'read',
        parameters: {
          type: 'object',
          properties: { n: { type: 'number', description: 'The number' } },
          required: ['n'],
        },
        effects: resolveEffects('read'),
      },
      { execute: ({ n }: { n: number }) => n * 2 },
    );
    const tools = toAiSdkTools(new Registry().register(dotted));
    expect(Object.keys(tools)).toEqual(['math_double']);
    const model = generatingModel([[{ id: 'm1', name: 'math_double', input: { n: 21 } }], 'ok']);
    await generateText({ model, prompt: 'x', tools, stopWhen: stepCountIs(3) });
    expect(envelopeOf(toolResultsIn(model.doGenerateCalls[1]).get('m1'))).toEqual({ ok: true, result: 42 });
  });

  test('options are checked', () => {
    const { registry } = notesWorkspace();
    expect(() => toAiSdkTools(registry, { only: ['nope'] })).toThrow(/"nope" in only is not registered/);
    expect(() => toAiSdkTools(registry, { output: 'text' as never })).toThrow(/use "envelope" or "value"/);
    expect(Object.keys(toAiSdkTools(registry, { only: ['read_note'] }))).toEqual(['read_note']);
  });
});

test('a tool named "__proto__" is an own key of the ToolSet, and the set keeps its prototype', async () => {
  const odd = defineTool({
    name: '__proto__',
    category: 'read',
    description: 'Answer a fixed word. It takes no arguments and changes nothing; a name test only.',
    execute: () => 'word',
  });
  const tools = toAiSdkTools(new Registry().register(odd));
  expect(Object.hasOwn(tools, '__proto__')).toBe(true);
  expect(Object.getPrototypeOf(tools)).toBe(Object.prototype);
  const model = generatingModel([[{ id: 'x1', name: '__proto__', input: {} }], 'ok']);
  await generateText({ model, prompt: 'x', tools, stopWhen: stepCountIs(3) });
  expect(envelopeOf(toolResultsIn(model.doGenerateCalls[1]).get('x1'))).toEqual({ ok: true, result: 'word' });
});
