import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { generateText, stepCountIs } from 'ai';
import { expect, test } from 'vitest';
import { toAiSdkTools } from '../../src/ai-sdk/index.js';
import { createTool, Registry } from '../../src/index.js';
import { withToolSearch } from '../../src/search/index.js';
import { generatingModel } from '../integrations/support.js';
import { catalog } from './support.js';

const toolNames = (options: LanguageModelV3CallOptions | undefined) =>
  (options?.tools ?? []).map((tool) => tool.name);

test('generateText with prepareStep over withToolSearch: the active set grows with what search_tools found', async () => {
  const { registry, ran } = catalog();
  const search = withToolSearch(registry, { alwaysLoaded: ['get_weather'], k: 1 });
  const mock = generatingModel([
    [{ id: 's1', name: 'search_tools', input: { query: 'translate a text into another language' } }],
    [{ id: 't1', name: 'translate_text', input: { text: 'good morning', language: 'German' } }],
    'Guten Morgen.',
  ]);
  const activeEachStep: string[][] = [];
  const result = await generateText({
    model: mock,
    prompt: 'Say good morning in German.',
    tools: toAiSdkTools(search.registry),
    stopWhen: stepCountIs(5),
    prepareStep: () => {
      const activeTools = [...search.activeTools()];
      activeEachStep.push(activeTools);
      return { activeTools };
    },
  });
  expect(result.text).toBe('Guten Morgen.');
  expect(result.steps).toHaveLength(3);
  expect(ran).toEqual(['translate_text:good morning']);
  expect(activeEachStep).toEqual([
    ['get_weather', 'search_tools'],
    ['get_weather', 'translate_text', 'search_tools'],
    ['get_weather', 'translate_text', 'search_tools'],
  ]);
  // What the model was offered on each call, as the SDK filtered the tool set.
  expect(mock.doGenerateCalls.map(toolNames).map((names) => [...names].sort())).toEqual([
    ['get_weather', 'search_tools'],
    ['get_weather', 'search_tools', 'translate_text'],
    ['get_weather', 'search_tools', 'translate_text'],
  ]);
  const searched = result.steps[0]!.toolResults[0]!;
  expect(searched.output).toMatchObject({ ok: true, result: { tools: [{ name: 'translate_text' }] } });
  search.close();
});

test('a tool whose name the ToolSet aliases (a dot) is offered once a search loads it', async () => {
  // createTool takes a name as a foreign tool set (an MCP server) may give it.
  const registry = new Registry().register(
    createTool<{ amount: number; to: string }>(
      {
        name: 'money.convert',
        category: 'read',
        description: 'Convert an amount of money from one currency to another at today’s rate.',
        parameters: {
          type: 'object',
          properties: {
            amount: { type: 'number', description: 'The amount' },
            to: { type: 'string', description: 'The currency wanted' },
          },
          required: ['amount', 'to'],
          additionalProperties: false,
        },
      },
      { execute: ({ amount, to }) => ({ amount, currency: to }) },
    ),
  );
  const search = withToolSearch(registry);
  const tools = toAiSdkTools(search.registry);
  expect(Object.keys(tools)).toEqual(['money_convert', 'search_tools']);
  // Under contract names, the loaded tool would match no key of the ToolSet.
  search.load(['money.convert']);
  expect(search.activeTools()).toEqual(['money.convert', 'search_tools']);
  expect(search.activeTools('openai')).toEqual(['money_convert', 'search_tools']);
  search.reset();
  const mock = generatingModel([
    [{ id: 's1', name: 'search_tools', input: { query: 'convert money' } }],
    [{ id: 'm1', name: 'money_convert', input: { amount: 3, to: 'USD' } }],
    'Done.',
  ]);
  const result = await generateText({
    model: mock,
    prompt: 'Convert 3 EUR to USD.',
    tools,
    stopWhen: stepCountIs(5),
    // The ToolSet's keys are the names OpenAI accepts: ask for the active set under those names.
    prepareStep: () => ({ activeTools: [...search.activeTools('openai')] }),
  });
  expect(mock.doGenerateCalls.map(toolNames).map((names) => [...names].sort())).toEqual([
    ['search_tools'],
    ['money_convert', 'search_tools'],
    ['money_convert', 'search_tools'],
  ]);
  expect(result.steps[1]!.toolResults[0]!.output).toEqual({
    ok: true,
    result: { amount: 3, currency: 'USD' },
  });
  search.close();
});
