import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import {
  type AgentEvent,
  agentEvents,
  type OpenAIChatMessage,
  openaiChat,
  runAgent,
} from '../../src/agent/index.js';
import { envelopeOf, fakeFetch, type Script, testRegistry } from './support.js';

type Call = { id: string; name: string; arguments: string };

/** A `chat.completion` as the API documents it (typed against the SDK's own response type). */
function completion(options: { calls?: Call[]; text?: string | null; usage?: [number, number] }) {
  const calls = options.calls ?? [];
  return {
    id: 'chatcmpl-AbC123',
    object: 'chat.completion',
    created: 1_764_000_000,
    model: 'gpt-5-mini-2025-08-07',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: options.text ?? null,
          refusal: null,
          annotations: [],
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: options.usage?.[0] ?? 100,
      completion_tokens: options.usage?.[1] ?? 20,
      total_tokens: (options.usage?.[0] ?? 100) + (options.usage?.[1] ?? 20),
    },
  } satisfies OpenAI.Chat.ChatCompletion;
}

function client(script: Script, maxRetries = 0) {
  const fake = fakeFetch(script);
  return {
    openai: new OpenAI({ apiKey: 'sk-test', fetch: fake.fetch, maxRetries }),
    requests: fake.requests,
  };
}

const ask = (content: string): OpenAIChatMessage[] => [{ role: 'user', content }];

describe('openaiChat over the real openai client', () => {
  test('parallel calls run, their tool messages follow in call order, and the text ends the run', async () => {
    const { openai, requests } = client([
      {
        json: completion({
          calls: [
            { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
            { id: 'call_2', name: 'get_weather', arguments: '{"city":"Oslo","units":"imperial"}' },
          ],
          usage: [120, 30],
        }),
      },
      { json: completion({ text: 'Paris 18°C, Oslo 64°F.', usage: [200, 12] }) },
    ]);
    const { registry, ran } = testRegistry();
    const result = await runAgent({
      model: openaiChat(openai, { model: 'gpt-5-mini' }),
      registry,
      messages: ask('Weather in Paris and Oslo?'),
    });
    expect(result.stopReason).toBe('text');
    expect(result.text).toBe('Paris 18°C, Oslo 64°F.');
    expect(ran).toEqual(['get_weather:Paris', 'get_weather:Oslo']);
    expect(result.usage).toEqual({ inputTokens: 320, outputTokens: 42 });
    expect(result.steps.map((step) => step.calls.length)).toEqual([2, 0]);
    expect(result.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
    expect(result.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(result.messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_2' });
    expect(envelopeOf(result.messages[3]!.content)).toEqual({
      ok: true,
      result: { city: 'Oslo', temperature: 64, units: 'imperial' },
    });
    // What went over the wire: the tools in Chat Completions shape, then the whole transcript.
    expect(requests[0]!.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(
      (requests[0]!.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name),
    ).toEqual(['get_weather', 'save_note', 'slow_search']);
    expect(requests[1]!.body.messages).toEqual(result.messages.slice(0, 4));
    expect(requests[1]!.body.messages).toContainEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        {
          id: 'call_2',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Oslo","units":"imperial"}' },
        },
      ],
    });
  });

  test('arguments that are not JSON, an unknown tool and bad arguments come back as envelopes the model reads', async () => {
    const { openai, requests } = client([
      {
        json: completion({
          calls: [
            { id: 'call_a', name: 'get_weather', arguments: '{"city": "Paris"' },
            { id: 'call_b', name: 'get_wether', arguments: '{"city":"Rome"}' },
            { id: 'call_c', name: 'get_weather', arguments: '{"city": 42}' },
          ],
        }),
      },
      { json: completion({ text: 'Sorry, let me fix that.' }) },
    ]);
    const { registry, ran } = testRegistry();
    const result = await runAgent({
      model: openaiChat(openai, { model: 'gpt-5-mini' }),
      registry,
      messages: ask('go'),
    });
    expect(result.stopReason).toBe('text');
    expect(ran).toEqual([]);
    const sent = (requests[1]!.body.messages as { role: string; content: string }[]).filter(
      (m) => m.role === 'tool',
    );
    expect(sent.map((message) => envelopeOf(message.content).error?.type)).toEqual([
      'invalid_json',
      'unknown_tool',
      'invalid_arguments',
    ]);
    expect((envelopeOf(sent[1]!.content).error as unknown as { suggestions: string[] }).suggestions[0]).toBe(
      'get_weather',
    );
    expect(result.steps[0]!.calls.map((outcome) => outcome.envelope.ok)).toEqual([false, false, false]);
  });

  test('a streamed answer is joined: text deltas, tool call deltas by index, usage from the last chunk', async () => {
    const base = {
      id: 'chatcmpl-S1',
      object: 'chat.completion.chunk' as const,
      created: 1_764_000_000,
      model: 'gpt-5-mini',
    };
    const chunk = (
      delta: OpenAI.Chat.ChatCompletionChunk.Choice.Delta,
      finish: 'tool_calls' | 'stop' | null = null,
    ) =>
      ({
        ...base,
        choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      }) satisfies OpenAI.Chat.ChatCompletionChunk;
    const usage = (prompt: number, completionTokens: number) =>
      ({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: prompt,
          completion_tokens: completionTokens,
          total_tokens: prompt + completionTokens,
        },
      }) satisfies OpenAI.Chat.ChatCompletionChunk;
    const { openai, requests } = client([
      {
        done: true,
        sse: [
          chunk({ role: 'assistant', content: 'Checking ' }),
          chunk({ content: 'both.' }),
          chunk({
            tool_calls: [
              { index: 0, id: 'call_s1', type: 'function', function: { name: 'get_weather', arguments: '' } },
            ],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
          chunk({
            tool_calls: [
              {
                index: 1,
                id: 'call_s2',
                type: 'function',
                function: { name: 'save_note', arguments: '{"te' },
              },
            ],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"Lima"}' } }] }),
          chunk({ tool_calls: [{ index: 1, function: { arguments: 'xt":"hi"}' } }] }),
          chunk({}, 'tool_calls'),
          usage(50, 9),
        ],
      },
      {
        done: true,
        sse: [chunk({ role: 'assistant', content: 'Done' }), chunk({ content: '.' }, 'stop'), usage(80, 2)],
      },
    ]);
    const { registry, ran } = testRegistry();
    const result = await runAgent({
      model: openaiChat(openai, { model: 'gpt-5-mini', stream: true }),
      registry,
      messages: ask('stream it'),
    });
    expect(requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(ran).toEqual(['get_weather:Lima', 'save_note:hi']);
    expect(result.steps[0]!.text).toBe('Checking both.');
    expect(result.steps[0]!.calls.map((outcome) => outcome.call.id)).toEqual(['call_s1', 'call_s2']);
    expect(result.steps[0]!.calls[1]!.envelope).toEqual({ ok: true, result: 'saved' });
    expect(result.text).toBe('Done.');
    expect(result.usage).toEqual({ inputTokens: 130, outputTokens: 11 });
    expect(requests[1]!.body.messages).toContainEqual({
      role: 'assistant',
      content: 'Checking both.',
      tool_calls: [
        { id: 'call_s1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lima"}' } },
        { id: 'call_s2', type: 'function', function: { name: 'save_note', arguments: '{"text":"hi"}' } },
      ],
    });
  });

  test('strict mode sends strict tools and restores the nulls of optional fields before validation', async () => {
    const { openai, requests } = client([
      {
        json: completion({
          calls: [{ id: 'call_n', name: 'get_weather', arguments: '{"city":"Kyiv","units":null}' }],
        }),
      },
      { json: completion({ text: 'ok' }) },
    ]);
    const { registry } = testRegistry();
    const result = await runAgent({
      model: openaiChat(openai, { model: 'gpt-5-mini', strict: true }),
      registry,
      messages: ask('x'),
    });
    expect((requests[0]!.body.tools as { function: { strict: boolean } }[])[0]!.function.strict).toBe(true);
    expect(result.steps[0]!.calls[0]!.envelope).toEqual({
      ok: true,
      result: { city: 'Kyiv', temperature: 18, units: 'metric' },
    });
  });

  test('a 429 is retried by the SDK (honouring retry-after-ms), and the run goes on', async () => {
    const { openai, requests } = client(
      [
        {
          status: 429,
          json: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
          headers: { 'retry-after-ms': '5' },
        },
        { json: completion({ text: 'after the retry' }) },
      ],
      2,
    );
    const { registry } = testRegistry();
    const result = await runAgent({
      model: openaiChat(openai, { model: 'gpt-5-mini' }),
      registry,
      messages: ask('x'),
    });
    expect(requests).toHaveLength(2);
    expect(result.stopReason).toBe('text');
    expect(result.text).toBe('after the retry');
  });

  test('a persistent 500 ends the run with model_error after the SDK retries, the finished steps kept', async () => {
    const failure = {
      status: 500,
      json: { error: { message: 'The server had an error', type: 'server_error' } },
      headers: { 'retry-after-ms': '1' },
    };
    const { openai, requests } = client(
      [
        {
          json: completion({ calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }),
        },
        failure,
      ],
      2,
    );
    const { registry, ran } = testRegistry();
    const result = await runAgent({
      model: openaiChat(openai, { model: 'gpt-5-mini' }),
      registry,
      messages: ask('x'),
    });
    expect(requests).toHaveLength(4); // one good answer, then the first try and two retries of step 2
    expect(result.stopReason).toBe('model_error');
    expect(result.error).toMatchObject({
      type: 'model_error',
      step: 1,
      status: 500,
      name: 'InternalServerError',
    });
    expect(result.error!.message).toContain('step 2');
    expect(result.error!.message).toContain('The server had an error');
    expect(result.error!.message).not.toMatch(/\n\s+at /);
    expect(ran).toEqual(['get_weather:Paris']);
    expect(result.steps).toHaveLength(1);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
  });

  test('a malformed response ends the run with model_error naming the path', async () => {
    const { openai } = client([
      {
        json: {
          id: 'x',
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
              },
            },
          ],
        },
      },
    ]);
    const { registry } = testRegistry();
    const result = await runAgent({
      model: openaiChat(openai, { model: 'm' }),
      registry,
      messages: ask('x'),
    });
    expect(result.stopReason).toBe('model_error');
    expect(result.error!.name).toBe('ProviderPayloadError');
    expect(result.error!.message).toContain('$.tool_calls[0].id');
  });

  test('maxSteps, the token budget and activeTools bound the run', async () => {
    const loop = () => ({
      json: completion({
        calls: [{ id: 'call_x', name: 'get_weather', arguments: '{"city":"Rome"}' }],
        usage: [400, 100],
      }),
    });
    const { registry } = testRegistry();
    const bounded = client([loop]);
    const byStep = await runAgent({
      model: openaiChat(bounded.openai, { model: 'm' }),
      registry,
      messages: ask('x'),
      maxSteps: 3,
    });
    expect(byStep.stopReason).toBe('max_steps');
    expect(byStep.steps).toHaveLength(3);
    expect(byStep.messages.at(-1)).toMatchObject({ role: 'tool' });

    const budgeted = client([loop]);
    const byBudget = await runAgent({
      model: openaiChat(budgeted.openai, { model: 'm' }),
      registry,
      messages: ask('x'),
      maxTokens: 1_000,
    });
    expect(byBudget.stopReason).toBe('budget');
    expect(byBudget.steps).toHaveLength(2);
    expect(byBudget.usage).toEqual({ inputTokens: 800, outputTokens: 200 });

    let active = ['get_weather'];
    const narrowed = client([loop, loop, { json: completion({ text: 'done' }) }]);
    await runAgent({
      model: openaiChat(narrowed.openai, { model: 'm' }),
      registry,
      messages: ask('x'),
      activeTools: () => {
        const names = active;
        active = ['save_note', 'get_weather'];
        return names;
      },
    });
    const sentNames = narrowed.requests.map((request) =>
      ((request.body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name),
    );
    expect(sentNames).toEqual([['get_weather'], ['get_weather', 'save_note'], ['get_weather', 'save_note']]);
  });

  test('an abort ends the run with aborted; the running call answers aborted in the transcript', async () => {
    const { openai } = client([
      { json: completion({ calls: [{ id: 'call_w', name: 'slow_search', arguments: '{"query":"q"}' }] }) },
      { json: completion({ text: 'never sent' }) },
    ]);
    const { registry } = testRegistry();
    const controller = new AbortController();
    const result = await runAgent({
      model: openaiChat(openai, { model: 'm' }),
      registry,
      messages: ask('x'),
      signal: controller.signal,
      onToolCall: () => setTimeout(() => controller.abort(), 20),
    });
    expect(result.stopReason).toBe('aborted');
    expect(result.steps[0]!.calls[0]!.envelope).toMatchObject({ ok: false, error: { type: 'aborted' } });
    expect(result.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_w' });
  });

  test('an abort while the model thinks cancels the request and ends the run with aborted, not model_error', async () => {
    const hanging = (_url: string | URL | Request, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () =>
          reject(new DOMException('The request was aborted', 'AbortError')),
        );
      });
    const openai = new OpenAI({ apiKey: 'sk-test', fetch: hanging, maxRetries: 0 });
    const { registry } = testRegistry();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const result = await runAgent({
      model: openaiChat(openai, { model: 'm' }),
      registry,
      messages: ask('x'),
      signal: controller.signal,
    });
    expect(result.stopReason).toBe('aborted');
    expect(result.error).toBeUndefined();
    expect(result.messages).toEqual(ask('x'));
  });

  test('a per-call timeout answers timeout, and the loop goes on', async () => {
    const { openai } = client([
      { json: completion({ calls: [{ id: 'call_t', name: 'slow_search', arguments: '{"query":"q"}' }] }) },
      { json: completion({ text: 'gave up waiting' }) },
    ]);
    const { registry } = testRegistry();
    const result = await runAgent({
      model: openaiChat(openai, { model: 'm' }),
      registry,
      messages: ask('x'),
      timeoutMs: 30,
    });
    expect(result.steps[0]!.calls[0]!.envelope).toMatchObject({
      ok: false,
      error: { type: 'timeout', timeoutMs: 30 },
    });
    expect(result.stopReason).toBe('text');
  });

  test('the gate decides: a denied call is a permission_denied envelope, an approved one runs', async () => {
    const { openai } = client([
      {
        json: completion({
          calls: [
            { id: 'call_1', name: 'save_note', arguments: '{"text":"keep"}' },
            { id: 'call_2', name: 'save_note', arguments: '{"text":"drop"}' },
          ],
        }),
      },
      { json: completion({ text: 'one saved' }) },
    ]);
    const { registry, ran } = testRegistry({
      beforeCall: (request) =>
        request.tool.category === 'write' ? { action: 'ask', reason: 'it writes' } : undefined,
      approver: (request) =>
        (request.arguments as { text: string }).text === 'keep'
          ? { action: 'allow' }
          : { action: 'deny', reason: 'not this one' },
    });
    const result = await runAgent({
      model: openaiChat(openai, { model: 'm' }),
      registry,
      messages: ask('x'),
    });
    expect(ran).toEqual(['save_note:keep']);
    expect(
      result.steps[0]!.calls.map((outcome) => (outcome.envelope.ok ? 'ok' : outcome.envelope.error.type)),
    ).toEqual(['ok', 'permission_denied']);
  });

  test('events come in order through callbacks and the async iterator', async () => {
    const script: Script = [
      { json: completion({ calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }) },
      { json: completion({ text: 'done' }) },
    ];
    const { registry } = testRegistry();
    const seen: string[] = [];
    const first = client(script);
    await runAgent({
      model: openaiChat(first.openai, { model: 'm' }),
      registry,
      messages: ask('x'),
      onToolCall: ({ tool }) => seen.push(`call ${tool}`),
      onToolResult: (outcome) => seen.push(`result ${outcome.envelope.ok}`),
      onStep: (step) => seen.push(`step ${step.index}`),
      onEvent: () => {
        throw new Error('an observer that throws changes nothing');
      },
    });
    expect(seen).toEqual(['call get_weather', 'result true', 'step 0', 'step 1']);

    const second = client(script);
    const run = agentEvents({
      model: openaiChat(second.openai, { model: 'm' }),
      registry,
      messages: ask('x'),
    });
    const types: AgentEvent['type'][] = [];
    for await (const event of run) types.push(event.type);
    expect(types).toEqual([
      'model_request',
      'model_response',
      'tool_call',
      'tool_result',
      'step',
      'model_request',
      'model_response',
      'step',
      'done',
    ]);
    expect((await run.result).text).toBe('done');
  });

  test('leaving the event loop early aborts the run', async () => {
    const { openai, requests } = client([
      () => ({
        json: completion({ calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }),
      }),
    ]);
    const { registry } = testRegistry();
    const run = agentEvents({ model: openaiChat(openai, { model: 'm' }), registry, messages: ask('x') });
    for await (const event of run) if (event.type === 'tool_result') break;
    const result = await run.result;
    expect(result.stopReason).toBe('aborted');
    expect(requests).toHaveLength(1);
  });

  test('bad options throw at once, naming the option', async () => {
    const { openai } = client([]);
    const { registry } = testRegistry();
    await expect(
      runAgent({ model: openaiChat(openai, { model: 'm' }), registry, messages: [], maxSteps: 0 }),
    ).rejects.toThrow(/maxSteps must be a positive integer, received 0/);
  });
});
