import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import { openaiChat, runAgent } from '../../src/agent/index.js';
import { instrument } from '../../src/otel/index.js';
import { withToolSearch } from '../../src/search/index.js';
import { fakeFetch } from '../agent/support.js';
import { telemetry, useAsyncContext } from '../otel/support.js';
import { catalog, completion } from './support.js';

let restoreContext: () => void;
beforeAll(() => {
  restoreContext = useAsyncContext();
});
afterAll(() => restoreContext());
afterEach(() => {
  vi.restoreAllMocks();
});

test('instrument(registry) under runAgent telemetry: every execute_tool span is a child of invoke_agent, one trace, nothing printed', async () => {
  const otel = telemetry();
  const { tracer } = otel;
  const { registry } = catalog();
  const fake = fakeFetch([
    {
      json: completion({
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          {
            id: 'c2',
            type: 'function',
            function: { name: 'search_tools', arguments: '{"query":"convert money to another currency"}' },
          },
        ],
      }),
    },
    {
      json: completion({
        tool_calls: [
          {
            id: 'c3',
            type: 'function',
            function: { name: 'convert_currency', arguments: '{"amount":5,"from":"EUR","to":"USD"}' },
          },
        ],
      }),
    },
    { json: completion({ content: 'Paris is 18°C; 5 EUR is 5.50 USD.' }) },
  ]);
  const printed = [
    vi.spyOn(process.stdout, 'write'),
    vi.spyOn(process.stderr, 'write'),
    ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => vi.spyOn(console, method)),
  ];
  const openai = new OpenAI({ apiKey: 'sk-test', fetch: fake.fetch, maxRetries: 0 });
  // #region docs
  const search = withToolSearch(registry, { alwaysLoaded: ['get_weather'], k: 1 });
  const uninstrument = instrument(search.registry, { tracer }); // execute_tool spans
  const result = await runAgent({
    model: openaiChat(openai, { model: 'gpt-5-mini' }),
    registry: search.registry,
    activeTools: search.activeTools,
    messages: [{ role: 'user', content: 'Weather in Paris, and 5 EUR in USD?' }],
    telemetry: { tracer, agentName: 'travel helper' }, // invoke_agent and chat spans
  });
  // #endregion docs
  const writes = printed.map((spy) => spy.mock.calls.length);
  for (const spy of printed) spy.mockRestore();
  expect(writes).toEqual(printed.map(() => 0));
  expect(result.stopReason).toBe('text');

  const spans = otel.spans();
  const agent = spans.find((span) => span.name === 'invoke_agent travel helper')!;
  expect(agent).toBeDefined();
  const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
  expect(tools.map((span) => span.name)).toEqual([
    'execute_tool get_weather',
    'execute_tool search_tools',
    'execute_tool convert_currency',
  ]);
  expect(tools.map((span) => span.attributes['gen_ai.tool.call.id'])).toEqual(['c1', 'c2', 'c3']);
  for (const span of tools) expect(span.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
  expect(spans.filter((span) => span.name === 'chat gpt-5-mini')).toHaveLength(3);
  // The whole run is one trace: the agent span, its chat spans and its tool spans.
  expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(
    new Set([agent.spanContext().traceId]),
  );
  expect(agent.parentSpanContext).toBeUndefined();
  uninstrument();
  search.close();
});
