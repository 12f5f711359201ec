import OpenAI from 'openai';
import { expect, test } from 'vitest';
import { openaiChat, runAgent } from '../../src/agent/index.js';
import { withToolSearch } from '../../src/search/index.js';
import { envelopeOf, fakeFetch } from '../agent/support.js';
import { catalog, completion } from './support.js';

const call = (id: string, name: string, args: object) => ({
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});

const offered = (body: Record<string, unknown>) =>
  (body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);

test('runAgent over withToolSearch: the tool a search finds is offered from the next request on', async () => {
  const { registry, ran } = catalog();
  const fake = fakeFetch([
    {
      json: completion(
        call('call_1', 'search_tools', { query: 'convert an amount of money to another currency' }),
      ),
    },
    { json: completion(call('call_2', 'convert_currency', { amount: 100, from: 'EUR', to: 'USD' })) },
    { json: completion({ content: '100 EUR is 110 USD.' }) },
  ]);
  const openai = new OpenAI({ apiKey: 'sk-test', fetch: fake.fetch, maxRetries: 0 });
  // #region docs
  const search = withToolSearch(registry, { alwaysLoaded: ['get_weather'], k: 1 });
  const result = await runAgent({
    model: openaiChat(openai, { model: 'gpt-5-mini' }),
    registry: search.registry,
    activeTools: search.activeTools, // read again before every request
    messages: [{ role: 'user', content: 'How much is 100 EUR in USD?' }],
  });
  // #endregion docs
  expect(result.stopReason).toBe('text');
  expect(result.text).toBe('100 EUR is 110 USD.');
  expect(ran).toEqual(['convert_currency:100EUR']);
  expect(fake.requests).toHaveLength(3);
  // What went over the wire: the always-loaded tool and search_tools, then the tool found as well.
  expect(offered(fake.requests[0]!.body)).toEqual(['get_weather', 'search_tools']);
  expect(offered(fake.requests[1]!.body)).toEqual(['get_weather', 'convert_currency', 'search_tools']);
  expect(offered(fake.requests[2]!.body)).toEqual(['get_weather', 'convert_currency', 'search_tools']);
  // The model read what the search found, with its parameters.
  const found = envelopeOf(result.messages[2]!.content) as {
    ok: boolean;
    result: { tools: { name: string; parameters: unknown }[] };
  };
  expect(found.ok).toBe(true);
  expect(found.result.tools.map((tool) => tool.name)).toEqual(['convert_currency']);
  expect(envelopeOf(result.messages[4]!.content)).toEqual({
    ok: true,
    result: { amount: 110, currency: 'USD' },
  });
  search.close();
});

test('a call of a registered tool that was never loaded still runs through the registry', async () => {
  const { registry, ran } = catalog();
  const search = withToolSearch(registry, { alwaysLoaded: ['get_weather'] });
  const fake = fakeFetch([
    { json: completion(call('call_1', 'translate_text', { text: 'hello', language: 'German' })) },
    { json: completion({ content: 'Hallo.' }) },
  ]);
  const result = await runAgent({
    model: openaiChat(new OpenAI({ apiKey: 'sk-test', fetch: fake.fetch, maxRetries: 0 }), {
      model: 'gpt-5-mini',
    }),
    registry: search.registry,
    activeTools: search.activeTools,
    messages: [{ role: 'user', content: 'Say hello in German.' }],
  });
  expect(result.stopReason).toBe('text');
  expect(ran).toEqual(['translate_text:hello']);
  // Loading decides only what is shown: neither request offered translate_text.
  for (const request of fake.requests) expect(offered(request.body)).toEqual(['get_weather', 'search_tools']);
  search.close();
});
