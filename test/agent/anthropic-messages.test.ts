import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, test } from 'vitest';
import { type AnthropicMessage, anthropicMessages, runAgent } from '../../src/agent/index.js';
import { envelopeOf, fakeFetch, type Script, testRegistry } from './support.js';

type Block = Anthropic.ContentBlock;

/** A Messages API `message`, as documented (typed against the SDK's `Message`). */
function message(content: Block[], usage: [number, number] = [300, 40]) {
  return {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content,
    stop_reason: content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: usage[0],
      output_tokens: usage[1],
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  } as unknown as Anthropic.Message;
}

const text = (value: string) => ({ type: 'text', text: value, citations: null }) as Block;
const toolUse = (id: string, name: string, input: unknown) =>
  ({ type: 'tool_use', id, name, input }) as Block;

function client(script: Script, maxRetries = 0) {
  const fake = fakeFetch(script);
  return {
    anthropic: new Anthropic({ apiKey: 'sk-ant-test', fetch: fake.fetch, maxRetries }),
    requests: fake.requests,
  };
}

const ask = (content: string): AnthropicMessage[] => [{ role: 'user', content }];

describe('anthropicMessages over the real @anthropic-ai/sdk client', () => {
  test('tool_use blocks mixed with text run; results come back first in one user message, is_error on failures', async () => {
    const { anthropic, requests } = client([
      {
        json: message([
          text('I will check the weather in both cities.'),
          toolUse('toolu_01A', 'get_weather', { city: 'Paris' }),
          text('And the second one:'),
          toolUse('toolu_01B', 'get_weather', { city: '' }),
          toolUse('toolu_01C', 'get_forecast', { city: 'Paris' }),
        ]),
      },
      { json: message([text('Paris is at 18°C.')], [500, 10]) },
    ]);
    const { registry, ran } = testRegistry();
    const result = await runAgent({
      model: anthropicMessages(anthropic, {
        model: 'claude-sonnet-4-5',
        system: 'Be brief.',
        maxTokens: 1024,
      }),
      registry,
      messages: ask('Weather?'),
    });
    expect(result.stopReason).toBe('text');
    expect(result.text).toBe('Paris is at 18°C.');
    expect(ran).toEqual(['get_weather:Paris']);
    expect(result.steps[0]!.text).toBe('I will check the weather in both cities.And the second one:');
    expect(result.usage).toEqual({ inputTokens: 800, outputTokens: 50 });
    expect(requests[0]!.url).toBe('https://api.anthropic.com/v1/messages');
    expect(requests[0]!.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'Be brief.',
    });
    expect((requests[0]!.body.tools as { name: string; input_schema: unknown }[])[0]).toMatchObject({
      name: 'get_weather',
      input_schema: { type: 'object' },
    });
    const [user, assistant, results] = requests[1]!.body.messages as { role: string; content: unknown }[];
    expect(user).toEqual({ role: 'user', content: 'Weather?' });
    expect(assistant!.role).toBe('assistant');
    expect((assistant!.content as { type: string }[]).map((block) => block.type)).toEqual([
      'text',
      'tool_use',
      'text',
      'tool_use',
      'tool_use',
    ]);
    const blocks = results!.content as {
      type: string;
      tool_use_id: string;
      content: string;
      is_error?: boolean;
    }[];
    expect(results!.role).toBe('user');
    expect(blocks.map((block) => [block.type, block.tool_use_id, block.is_error ?? false])).toEqual([
      ['tool_result', 'toolu_01A', false],
      ['tool_result', 'toolu_01B', true],
      ['tool_result', 'toolu_01C', true],
    ]);
    expect(envelopeOf(blocks[1]!.content).error?.type).toBe('invalid_arguments');
    expect(envelopeOf(blocks[2]!.content).error?.type).toBe('unknown_tool');
  });

  test('a streamed message is rebuilt from its server-sent events', async () => {
    const events = [
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: {
            id: 'msg_stream',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5-20250929',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 250, output_tokens: 1 },
          },
        },
      },
      {
        event: 'content_block_start',
        data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      },
      { event: 'ping', data: { type: 'ping' } },
      {
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me ' } },
      },
      {
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'look.' } },
      },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'content_block_start',
        data: {
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'tool_use', id: 'toolu_S1', name: 'get_weather', input: {} },
        },
      },
      {
        event: 'content_block_delta',
        data: {
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'input_json_delta', partial_json: '' },
        },
      },
      {
        event: 'content_block_delta',
        data: {
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'input_json_delta', partial_json: '{"city": "Be' },
        },
      },
      {
        event: 'content_block_delta',
        data: {
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'input_json_delta', partial_json: 'rlin"}' },
        },
      },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 45 },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ];
    const start = events[0]!.data as { message: object };
    const answer = [
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: { ...start.message, id: 'msg_2', usage: { input_tokens: 400, output_tokens: 1 } },
        },
      },
      {
        event: 'content_block_start',
        data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      },
      {
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Berlin: 18°C' } },
      },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: 5 },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ];
    const { anthropic, requests } = client([{ sse: events }, { sse: answer }]);
    const { registry, ran } = testRegistry();
    const result = await runAgent({
      model: anthropicMessages(anthropic, { model: 'claude-sonnet-4-5', stream: true }),
      registry,
      messages: ask('Berlin?'),
    });
    expect(result.error).toBeUndefined();
    expect(requests[0]!.body.stream).toBe(true);
    expect(ran).toEqual(['get_weather:Berlin']);
    expect(result.steps[0]).toMatchObject({ text: 'Let me look.', finishReason: 'tool_use' });
    expect(result.text).toBe('Berlin: 18°C');
    expect(result.usage).toEqual({ inputTokens: 650, outputTokens: 50 });
    expect((requests[1]!.body.messages as unknown[])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_S1', name: 'get_weather', input: { city: 'Berlin' } },
      ],
    });
  });

  test('a 529 overloaded answer is retried by the SDK; a persistent 500 ends with model_error', async () => {
    const overloaded = {
      status: 529,
      json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      headers: { 'retry-after-ms': '1' },
    };
    const recovered = client([overloaded, { json: message([text('fine')]) }], 2);
    const { registry } = testRegistry();
    const ok = await runAgent({
      model: anthropicMessages(recovered.anthropic, { model: 'm' }),
      registry,
      messages: ask('x'),
    });
    expect(recovered.requests).toHaveLength(2);
    expect(ok.text).toBe('fine');

    const broken = client(
      [
        {
          status: 500,
          json: { type: 'error', error: { type: 'api_error', message: 'Internal server error' } },
          headers: { 'retry-after-ms': '1' },
        },
      ],
      1,
    );
    const failed = await runAgent({
      model: anthropicMessages(broken.anthropic, { model: 'm' }),
      registry,
      messages: ask('x'),
    });
    expect(broken.requests).toHaveLength(2);
    expect(failed.stopReason).toBe('model_error');
    expect(failed.error).toMatchObject({ status: 500, step: 0 });
    expect(failed.error!.message).toContain('Internal server error');
    expect(failed.messages).toEqual(ask('x'));
  });
});
