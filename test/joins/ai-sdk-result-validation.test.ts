import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { generateText, stepCountIs } from 'ai';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { toAiSdkTools } from '../../src/ai-sdk/index.js';
import { type CallRecord, defineTool, Registry, type RegistryOptions } from '../../src/index.js';
import { generatingModel } from '../integrations/support.js';

const model = () => generatingModel([[{ id: 'q1', name: 'get_quote', input: { symbol: 'ACME' } }], 'ok']);

/** A quote tool whose function answers a price as text, which its output schema says is a number. */
function quotes(options: RegistryOptions = {}) {
  const ends: CallRecord[] = [];
  const registry = new Registry({ ...options, observe: (record) => ends.push(record) }).register(
    defineTool({
      name: 'get_quote',
      category: 'read',
      description: 'The last price of one stock, by its ticker symbol.',
      input: z.object({ symbol: z.string().describe('The ticker symbol, e.g. "ACME"') }),
      output: z.object({ symbol: z.string(), price: z.number() }),
      execute: ({ symbol }) =>
        ({ symbol, price: '12.50 USD' }) as unknown as { symbol: string; price: number },
    }),
  );
  return { registry, ends };
}

function sentResult(options: LanguageModelV3CallOptions | undefined) {
  for (const message of options?.prompt ?? []) {
    if (message.role !== 'tool') continue;
    for (const part of message.content)
      if (part.type === 'tool-result') return part.output as { type: string; value: string };
  }
  return undefined;
}

describe('validateResults through toAiSdkTools in generateText', () => {
  test('a result that breaks the output schema reaches the model as invalid_result, not the value', async () => {
    const { registry, ends } = quotes();
    const mock = model();
    const result = await generateText({
      model: mock,
      prompt: 'Price of ACME?',
      tools: toAiSdkTools(registry),
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('ok');
    const sent = sentResult(mock.doGenerateCalls[1]);
    expect(sent?.type).toBe('error-text');
    const envelope = JSON.parse(sent!.value);
    expect(envelope.ok).toBe(false);
    expect(envelope.error.type).toBe('invalid_result');
    expect(sent!.value).not.toContain('12.50 USD');
    expect(ends.map((end) => end.outcome)).toEqual(['invalid_result']);
    // The observer is told how the result broke the schema; the model is not.
    expect(ends[0]!.resultIssues?.[0]?.path).toBe('$.price');
  });

  test("under validateResults: 'warn' the model reads the result as it came", async () => {
    const { registry, ends } = quotes({ validateResults: 'warn' });
    const mock = model();
    await generateText({
      model: mock,
      prompt: 'Price of ACME?',
      tools: toAiSdkTools(registry),
      stopWhen: stepCountIs(3),
    });
    const sent = sentResult(mock.doGenerateCalls[1]);
    expect(sent?.type).toBe('text');
    expect(JSON.parse(sent!.value)).toEqual({ ok: true, result: { symbol: 'ACME', price: '12.50 USD' } });
    expect(ends.map((end) => end.outcome)).toEqual(['ok']);
  });

  test("with output: 'value' the failure is the SDK's tool error, carrying the invalid_result envelope", async () => {
    const { registry } = quotes();
    const mock = model();
    const result = await generateText({
      model: mock,
      prompt: 'Price of ACME?',
      tools: toAiSdkTools(registry, { output: 'value' }),
      stopWhen: stepCountIs(3),
    });
    const sent = sentResult(mock.doGenerateCalls[1]);
    expect(sent?.type).toBe('error-text');
    expect(JSON.parse(sent!.value).error.type).toBe('invalid_result');
    expect(result.steps[0]!.content.some((part) => part.type === 'tool-error')).toBe(true);
  });
});
