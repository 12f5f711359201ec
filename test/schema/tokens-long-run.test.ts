import { countTokens as direct } from 'gpt-tokenizer/encoding/o200k_base';
import { expect, test } from 'vitest';
import { countTokens } from '../../src/schema/tokens.js';

test('ordinary text and JSON are counted exactly', () => {
  for (const text of [
    '{"name":"read_file","description":"Read the full text of one UTF-8 file.","parameters":{"type":"object"}}',
    '读取 UTF-8 文本文件的完整内容。path 为相对于工作区根目录的路径。',
    'word '.repeat(500),
  ]) {
    expect(countTokens(text)).toBe(direct(text));
  }
});

test('an unbroken run of letters is counted in slices, close to the exact count', () => {
  for (const text of [`start ${'abcde'.repeat(600)} end`, '读'.repeat(1_500), `${'x'.repeat(2_500)}{}`]) {
    const exact = direct(text);
    const sliced = countTokens(text);
    expect(Math.abs(sliced - exact) / exact).toBeLessThan(0.1);
  }
});
