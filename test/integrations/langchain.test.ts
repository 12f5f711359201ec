import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import {
  type AIMessage,
  AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  ToolMessage,
} from '@langchain/core/messages';
import type { StructuredTool } from '@langchain/core/tools';
import { FakeChatModel, FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { describe, expect, test } from 'vitest';
import { defineTool, Registry } from '../../src/index.js';
import { toLangChainTools } from '../../src/langchain/index.js';
import { notesWorkspace } from './support.js';

type ToolCalls = NonNullable<AIMessage['tool_calls']>;

/** A fake chat model of `@langchain/core` that answers with these tool calls. */
function callingModel(toolCalls: ToolCalls) {
  return new FakeStreamingChatModel({ chunks: [new AIMessageChunk({ content: '', tool_calls: toolCalls })] });
}

/**
 * The loop as LangChain users write it: bind the tools, invoke, run each tool call with the tool
 * (which answers a ToolMessage), and go on until the model answers without tool calls.
 */
async function runLoop(models: readonly BaseChatModel[], tools: StructuredTool[], messages: BaseMessage[]) {
  const byName = new Map(tools.map((entry) => [entry.name, entry]));
  for (const model of models) {
    // FakeChatModel (the last turn, answering with text) takes no tools.
    const runnable = model.bindTools ? model.bindTools(tools) : model;
    const answer = (await runnable.invoke(messages)) as AIMessage;
    messages.push(answer);
    if (!answer.tool_calls?.length) return answer;
    for (const call of answer.tool_calls)
      messages.push((await byName.get(call.name)!.invoke(call)) as ToolMessage);
  }
  return undefined;
}

function toolMessages(messages: readonly BaseMessage[]): Map<string, ToolMessage> {
  return new Map(
    messages
      .filter((message) => ToolMessage.isInstance(message))
      .map((message) => [message.tool_call_id, message]),
  );
}

const mixedCalls: ToolCalls = [
  { id: 'c1', name: 'read_note', args: { name: 'todo.md' }, type: 'tool_call' },
  { id: 'c2', name: 'read_note', args: { name: 42 }, type: 'tool_call' },
  { id: 'c3', name: 'delete_note', args: { name: 'todo.md' }, type: 'tool_call' },
  { id: 'c4', name: 'write_note', args: { name: 'todo.md', text: 'x' }, type: 'tool_call' },
];

describe('toLangChainTools in a LangChain loop', () => {
  test('bindTools sends the contract schema; tool calls come back as ToolMessages holding envelopes', async () => {
    const { registry, runs } = notesWorkspace();
    const tools = toLangChainTools(registry);
    const model = callingModel(mixedCalls);
    const bound = model.bindTools(tools) as unknown as {
      config: { tools: { function: { name: string; parameters: unknown } }[] };
    };
    expect(bound.config.tools.map((entry) => entry.function.name)).toEqual([
      'read_note',
      'write_note',
      'delete_note',
    ]);
    expect(bound.config.tools[1]!.function.parameters).toEqual(
      registry.get('write_note')!.contract.parameters,
    );

    // The second model (FakeChatModel) answers with the text of every message it was sent.
    const messages: BaseMessage[] = [new HumanMessage('What is in todo.md?')];
    const final = await runLoop([model, new FakeChatModel({})], tools, messages);
    expect(runs).toEqual(['read_note todo.md']);
    const sent = toolMessages(messages);
    expect(JSON.parse(sent.get('c1')!.content as string)).toEqual({ ok: true, result: 'buy milk' });
    expect(sent.get('c1')!.status).toBe('success');
    expect(sent.get('c1')!.artifact).toEqual({ ok: true, result: 'buy milk' });

    // LangChain's own schema check refused c2, yet the model reads toolpact's message, with the path.
    const invalid = JSON.parse(sent.get('c2')!.content as string);
    expect(invalid.error.type).toBe('invalid_arguments');
    expect(invalid.error.issues[0]).toMatchObject({ path: '$.name', expected: 'string' });
    expect(sent.get('c2')!.status).toBe('error');
    expect(sent.get('c2')!.content).not.toContain('did not match expected schema');

    expect(JSON.parse(sent.get('c3')!.content as string).error).toMatchObject({
      type: 'permission_denied',
      rule: 'no-deletes',
    });
    // The gate asks about writes and this registry's bridge has no approval to give: refused.
    expect(JSON.parse(sent.get('c4')!.content as string).error.type).toBe('permission_denied');
    expect(final?.content).toContain('invalid_arguments');
    expect(final?.content).toContain('permission_denied');
  });

  test('streaming: the tool calls of the streamed chunks run the same way', async () => {
    const { registry, runs } = notesWorkspace();
    const tools = toLangChainTools(registry);
    const stream = await callingModel(mixedCalls.slice(0, 1))
      .bindTools(tools)
      .stream([new HumanMessage('x')]);
    let merged: AIMessageChunk | undefined;
    for await (const chunk of stream) merged = merged ? merged.concat(chunk) : chunk;
    expect(merged?.tool_calls).toHaveLength(1);
    const answer = (await tools[0]!.invoke(merged!.tool_calls![0]!)) as ToolMessage;
    expect(answer).toBeInstanceOf(ToolMessage);
    expect(answer.tool_call_id).toBe('c1');
    expect(runs).toEqual(['read_note todo.md']);
  });

  test('plain arguments answer the envelope text; the run config signal aborts the call', async () => {
    const seen: string[] = [];
    const slow = defineTool({
      name: 'wait_a_while',
      category: 'read',
      description: 'Wait until aborted, then give up. It takes no arguments and changes nothing.',
      execute: (_args, { signal }) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            seen.push('aborted');
            reject(signal.reason);
          }),
        ),
    });
    const registry = new Registry().register(slow);
    const [tool] = toLangChainTools(registry);
    const controller = new AbortController();
    const pending = tool!.invoke({}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    // LangChain races the signal too, so the answer is our `aborted` envelope or its AbortError; either
    // way the tool's own signal was aborted and nothing hangs.
    const outcome = await pending.then(
      (text) => JSON.parse(text as string).error.type,
      (error: Error) => error.name,
    );
    expect(['aborted', 'AbortError']).toContain(outcome);
    expect(seen).toEqual(['aborted']);

    const { registry: notes } = notesWorkspace();
    const read = toLangChainTools(notes, { only: ['read_note'] });
    expect(read.map((entry) => entry.name)).toEqual(['read_note']);
    expect(JSON.parse((await read[0]!.invoke({ name: 'todo.md' })) as string)).toEqual({
      ok: true,
      result: 'buy milk',
    });
    expect(() => toLangChainTools(notes, { only: ['nope'] })).toThrow(/"nope" in only is not registered/);
  });
});

test('the tool call id and the run config context reach the tool as callId and state', async () => {
  const seen: unknown[] = [];
  const probe = defineTool({
    name: 'probe',
    category: 'read',
    description: 'Report what the call carried. It takes no arguments and changes nothing.',
    execute: (_args, context) => {
      seen.push({ callId: context.callId, state: context.state });
      return 'seen';
    },
  });
  const registry = new Registry().register(probe);
  const [tool] = toLangChainTools(registry);
  const call = { id: 'p1', name: 'probe', args: {}, type: 'tool_call' as const };
  const answer = (await tool!.invoke(call, { context: { user: 'ada' } })) as ToolMessage;
  expect(answer.status).toBe('success');
  const [custom] = toLangChainTools(registry, { state: (config) => config.metadata?.session });
  await custom!.invoke(call, { metadata: { session: 's-7' } });
  expect(seen).toEqual([
    { callId: 'p1', state: { user: 'ada' } },
    { callId: 'p1', state: 's-7' },
  ]);
});
