import { countTokens as exactTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { expect, test } from 'vitest';
import { countTokens, estimateTokens, tokenCounting, tokenReport } from '../../src/schema/index.js';
import { bfclDefinitions, estimateError, sealToolsDefinitions } from '../support/token-estimate.js';

test('with gpt-tokenizer installed, counts are exact and say so', () => {
  const text = '{"name":"read_file","description":"Read one UTF-8 file."}';
  expect(tokenCounting()).toBe('exact');
  expect(countTokens(text)).toBe(exactTokens(text));
  expect(tokenReport([], 'openai').counting).toBe('exact');
});

test('the estimate stays within a few percent of the exact count on BFCL definitions', () => {
  const error = estimateError(bfclDefinitions());
  expect(error.texts).toBeGreaterThan(1_500);
  expect(error.meanPerText).toBeLessThan(0.04);
  expect(error.p95PerText).toBeLessThan(0.1);
  expect(Math.abs(error.overSet)).toBeLessThan(0.02);
});

test('the estimate holds on Seal-Tools, which it was not fitted on', () => {
  const error = estimateError(sealToolsDefinitions(1_000));
  expect(error.meanPerText).toBeLessThan(0.05);
  expect(Math.abs(error.overSet)).toBeLessThan(0.03);
});

test('text unlike tool definitions stays within a factor of two: long words, digits, CJK, accents, runs', () => {
  for (const text of [
    'internationalization_configuration_parameters',
    '1234567890123456789012345678901234567890',
    '读取 UTF-8 文本文件的完整内容。path 为相对于工作区根目录的路径。',
    '{"a":{"b":{"c":[1,2,3]}},"d":"}}}]]]"}',
    'café résumé naïve',
    'MSVLTPLLWLMWAAGTVTLGCAPPPAV',
    'x'.repeat(2_000),
  ]) {
    const ratio = estimateTokens(text) / exactTokens(text);
    expect(ratio, text.slice(0, 40)).toBeGreaterThan(0.5);
    expect(ratio, text.slice(0, 40)).toBeLessThan(2);
  }
});
