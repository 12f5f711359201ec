import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { openaiResponses, type ResponsesInputItem, runAgent } from '../../src/agent/index.js';
import { envelopeOf, fakeFetch, testRegistry } from './support.js';

/** A Responses API `response` object with the given output items, as documented. */
function response(output: unknown[], usage: [number, number] = [90, 15]) {
  return {
    id: 'resp_67ccd2bed1ec8190b14f964abc054267',
    object: 'response',
    created_at: 1_764_000_000,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: null,
    model: 'gpt-5-2025-08-07',
    output,
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    metadata: {},
    usage: {
      input_tokens: usage[0],
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage[1],
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage[0] + usage[1],
    },
  } as unknown as OpenAI.Responses.Response;
}

const functionCall = (id: string, callId: string, name: string, args: string) => ({
  type: 'function_call',
  id,
  call_id: callId,
  name,
  arguments: args,
  status: 'completed',
});
const outputText = (text: string) => ({
  type: 'message',
  id: 'msg_67ccd2bf17f0819081ff3bb2cf6508e6',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', text, annotations: [] }],
});

const ask = (content: string): ResponsesInputItem[] => [{ role: 'user', content }];

describe('openaiResponses over the real openai client', () => {
  test('function_call items run; the output items and one function_call_output per call make the next input', async () => {
    const fake = fakeFetch([
      {
        json: response([
          { type: 'reasoning', id: 'rs_1', summary: [] },
          functionCall('fc_1', 'call_A', 'get_weather', '{"city":"Quito"}'),
          functionCall('fc_2', 'call_B', 'get_weather', 'city=Lima'),
        ]),
      },
      { json: response([outputText('Quito is at 18°C.')], [200, 8]) },
    ]);
    const openai = new OpenAI({ apiKey: 'sk-test', fetch: fake.fetch, maxRetries: 0 });
    const { registry, ran } = testRegistry();
    const result = await runAgent({
      model: openaiResponses(openai, { model: 'gpt-5' }),
      registry,
      messages: ask('Weather?'),
    });
    expect(result.stopReason).toBe('text');
    expect(result.text).toBe('Quito is at 18°C.');
    expect(ran).toEqual(['get_weather:Quito']);
    expect(result.usage).toEqual({ inputTokens: 290, outputTokens: 23 });
    expect(fake.requests[0]!.url).toBe('https://api.openai.com/v1/responses');
    expect(
      (fake.requests[0]!.body.tools as { type: string; name: string; strict: boolean }[])[0],
    ).toMatchObject({
      type: 'function',
      name: 'get_weather',
      strict: false,
    });
    const input = fake.requests[1]!.body.input as { type?: string; call_id?: string; output?: string }[];
    expect(input.map((item) => item.type ?? 'message')).toEqual([
      'message',
      'reasoning',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
    ]);
    expect(input[4]).toMatchObject({ call_id: 'call_A' });
    expect(envelopeOf(input[4]!.output).ok).toBe(true);
    expect(envelopeOf(input[5]!.output).error?.type).toBe('invalid_json');
  });

  test('a streamed response is read from its response.completed event', async () => {
    const completed = response([functionCall('fc_9', 'call_Z', 'get_weather', '{"city":"Cusco"}')]);
    const fake = fakeFetch([
      {
        sse: [
          {
            event: 'response.created',
            data: {
              type: 'response.created',
              sequence_number: 0,
              response: { ...completed, status: 'in_progress', output: [] },
            },
          },
          {
            event: 'response.function_call_arguments.delta',
            data: {
              type: 'response.function_call_arguments.delta',
              sequence_number: 1,
              item_id: 'fc_9',
              output_index: 0,
              delta: '{"city":',
            },
          },
          {
            event: 'response.completed',
            data: { type: 'response.completed', sequence_number: 2, response: completed },
          },
        ],
      },
      {
        sse: [
          {
            event: 'response.completed',
            data: {
              type: 'response.completed',
              sequence_number: 0,
              response: response([outputText('Cusco: 18°C')]),
            },
          },
        ],
      },
    ]);
    const openai = new OpenAI({ apiKey: 'sk-test', fetch: fake.fetch, maxRetries: 0 });
    const { registry, ran } = testRegistry();
    const result = await runAgent({
      model: openaiResponses(openai, { model: 'gpt-5', stream: true }),
      registry,
      messages: ask('x'),
    });
    expect(fake.requests[0]!.body.stream).toBe(true);
    expect(ran).toEqual(['get_weather:Cusco']);
    expect(result.text).toBe('Cusco: 18°C');
  });

  test('a response.failed event ends the run with model_error carrying the provider message', async () => {
    const failed = {
      ...response([]),
      status: 'failed',
      error: { code: 'server_error', message: 'The model crashed' },
    };
    const fake = fakeFetch([
      {
        sse: [
          {
            event: 'response.failed',
            data: { type: 'response.failed', sequence_number: 0, response: failed },
          },
        ],
      },
    ]);
    const openai = new OpenAI({ apiKey: 'sk-test', fetch: fake.fetch, maxRetries: 0 });
    const { registry } = testRegistry();
    const result = await runAgent({
      model: openaiResponses(openai, { model: 'gpt-5', stream: true }),
      registry,
      messages: ask('x'),
    });
    expect(result.stopReason).toBe('model_error');
    expect(result.error!.message).toContain('The model crashed');
  });
});
