import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { expect, test } from 'vitest';
import { toAiSdkTools } from '../../src/ai-sdk/index.js';
import { withToolSearch } from '../../src/search/index.js';
import { catalog } from './support.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** The SDK's mock model: one tool call per turn, then text. */
function model(turns: readonly ({ id: string; name: string; input: object } | string)[]) {
  let index = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const turn = turns[index++] ?? 'done';
      return typeof turn === 'string'
        ? {
            content: [{ type: 'text', text: turn }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
            warnings: [],
          }
        : {
            content: [
              {
                type: 'tool-call',
                toolCallId: turn.id,
                toolName: turn.name,
                input: JSON.stringify(turn.input),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          };
    },
  });
}

const toolNames = (options: LanguageModelV3CallOptions | undefined) =>
  (options?.tools ?? []).map((tool) => tool.name);

test('generateText with prepareStep over withToolSearch: the active set grows with what search_tools found', async () => {
  const { registry, ran } = catalog();
  const search = withToolSearch(registry, { alwaysLoaded: ['get_weather'], k: 1 });
  const mock = model([
    { id: 's1', name: 'search_tools', input: { query: 'translate a text into another language' } },
    { id: 't1', name: 'translate_text', input: { text: 'good morning', language: 'German' } },
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
