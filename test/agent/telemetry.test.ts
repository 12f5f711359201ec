import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { openaiChat, runAgent } from '../../src/agent/index.js';
import { defineTool, Registry } from '../../src/index.js';
import { fakeFetch, type Script } from './support.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('toolpact-test');
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  contextManager.disable();
  context.disable();
});

const completion = (message: object, usage: [number, number]) => ({
  id: 'chatcmpl-T1',
  object: 'chat.completion',
  created: 1_764_000_000,
  model: 'gpt-5-mini-2025-08-07',
  choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: 'stop' }],
  usage: { prompt_tokens: usage[0], completion_tokens: usage[1], total_tokens: usage[0] + usage[1] },
});

/** A tool that notes which span is active while it runs. */
function tracedRegistry() {
  const activeSpans: (string | undefined)[] = [];
  const probe = defineTool({
    name: 'probe',
    category: 'read',
    description: 'Says which span is active. Use it in tests only.',
    input: z.object({}),
    execute: async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      activeSpans.push(trace.getActiveSpan()?.spanContext().spanId);
      return 'seen';
    },
  });
  return { registry: new Registry().register(probe), activeSpans };
}

function client(script: Script) {
  return new OpenAI({ apiKey: 'sk-test', maxRetries: 0, fetch: fakeFetch(script).fetch });
}

describe('runAgent with telemetry: { tracer }', () => {
  test('an invoke_agent span holds one chat span per request, and the tools run in its context', async () => {
    exporter.reset();
    const { registry, activeSpans } = tracedRegistry();
    const openai = client([
      {
        json: completion(
          {
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'probe', arguments: '{}' } },
              { id: 'call_2', type: 'function', function: { name: 'probe', arguments: '{}' } },
            ],
          },
          [100, 20],
        ),
      },
      { json: completion({ content: 'done' }, [150, 5]) },
    ]);
    const result = await runAgent({
      model: openaiChat(openai, { model: 'gpt-5-mini' }),
      registry,
      messages: [{ role: 'user', content: 'probe twice' }],
      telemetry: { tracer, agentName: 'workspace helper' },
    });
    expect(result.stopReason).toBe('text');
    const spans = exporter.getFinishedSpans();
    const agent = spans.find((span) => span.name === 'invoke_agent workspace helper')!;
    const chats = spans.filter((span) => span.name === 'chat gpt-5-mini');
    expect(agent).toBeDefined();
    expect(chats).toHaveLength(2);
    expect(agent.kind).toBe(0);
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-5-mini',
      'gen_ai.agent.name': 'workspace helper',
      'gen_ai.usage.input_tokens': 250,
      'gen_ai.usage.output_tokens': 25,
      'toolpact.agent.stop_reason': 'text',
    });
    for (const chat of chats) {
      expect(chat.kind).toBe(2);
      expect(chat.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-5-mini',
        'gen_ai.response.model': 'gpt-5-mini-2025-08-07',
        'gen_ai.response.id': 'chatcmpl-T1',
      });
    }
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 20,
    });
    expect(activeSpans).toEqual([agent.spanContext().spanId, agent.spanContext().spanId]);
  });

  test('a failed request marks its chat span and the agent span as errors', async () => {
    exporter.reset();
    const { registry } = tracedRegistry();
    const openai = client([
      { status: 503, json: { error: { message: 'Service unavailable', type: 'server_error' } } },
    ]);
    const result = await runAgent({
      model: openaiChat(openai, { model: 'gpt-5-mini' }),
      registry,
      messages: [{ role: 'user', content: 'x' }],
      telemetry: { tracer },
    });
    expect(result.stopReason).toBe('model_error');
    const spans = exporter.getFinishedSpans();
    const chat = spans.find((span) => span.name === 'chat gpt-5-mini')!;
    const agent = spans.find((span) => span.name === 'invoke_agent')!;
    expect(chat.attributes['error.type']).toBe('503');
    expect(chat.status.code).toBe(2);
    expect(agent.status.code).toBe(2);
    expect(agent.attributes['error.type']).toBe('InternalServerError');
  });
});
