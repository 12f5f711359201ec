import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lint } from '../../src/lint/index.js';
import { params, tool } from './support.js';

// The seed's own example, read from the seed: read_file's docstring in registry.py's usage section
// (test/fixtures/seed/ keeps that excerpt of the seed verbatim; its README says where it comes from).
const SEED = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'seed',
  '4.1-registry-and-schema.excerpt.zh.txt',
);
const SEED_READ_FILE = /def read_file\(path: str\) -> str:\s*"""([\s\S]*?)"""/.exec(
  readFileSync(SEED, 'utf8'),
)?.[1];

const GOOD = {
  zh: SEED_READ_FILE!.replace(/\n {4}/g, '\n'),
  en: 'Read the full contents of a UTF-8 text file. path is relative to the workspace root.\n\nUse it to view source code, configuration and documentation; do not use it to read binary files.',
};
const VAGUE = { zh: '读取文件。', en: 'Reads a file.' };

// The seed's registry.py leaves parameter descriptions empty; the description carries them.
const readFile = (description: string) =>
  tool('read_file', description, { parameters: params({ path: { type: 'string' } }) });

// A write tool, so that checklist item 4 (side effects) applies too.
const GOOD_WRITE = {
  en: 'Append one line of text to notes.md in the workspace. Use it to record a decision; to see the notes, call read_file. text is the line to add, 1 to 500 characters. It changes notes.md, and repeating the call adds the line again. Do not use it for secrets.',
  zh: '向工作区的 notes.md 追加一行文字。适用于记录决定；要查看笔记，请调用 read_file。text 为要追加的那一行，1 到 500 个字符。它会修改 notes.md，重复调用会再追加一行。不要用它记录密码。',
};
const VAGUE_WRITE = { en: 'Saves a note.', zh: '保存笔记。' };
const saveNote = (description: string) =>
  tool('save_note', description, { category: 'write', parameters: params({ text: { type: 'string' } }) });

/** The checklist item each rule stands for. */
const ITEM: { readonly [rule: string]: string } = {
  'description-purpose': '1 what it does',
  'description-usage': '2 when to use it',
  'parameter-semantics': '3 parameter semantics',
  'side-effects-stated': '4 side effects',
  'description-edges': '5 counter-examples',
};

describe("the seed's example: read_file's full description versus a vague one-liner", () => {
  it('reads the example from the seed', () => {
    expect(SEED_READ_FILE).toContain('读取 UTF-8 文本文件的完整内容');
  });

  for (const language of ['zh', 'en'] as const) {
    it(`${language}: the good description has no findings under recommended`, () => {
      expect(lint([readFile(GOOD[language])]).findings).toEqual([]);
    });

    it(`${language}: the vague one-liner has one finding per missing checklist item`, () => {
      const findings = lint([readFile(VAGUE[language])]).findings;
      // Item 4 does not apply to a read tool; the other four are missing.
      expect(findings.map((finding) => ITEM[finding.rule] ?? finding.rule).sort()).toEqual([
        '1 what it does',
        '2 when to use it',
        '3 parameter semantics',
        '5 counter-examples',
      ]);
    });

    it(`${language}: a write tool: good has none, vague misses all five items`, () => {
      expect(lint([saveNote(GOOD_WRITE[language]), readFile(GOOD[language])]).findings).toEqual([]);
      const findings = lint([saveNote(VAGUE_WRITE[language])]).findings;
      expect(findings.map((finding) => ITEM[finding.rule] ?? finding.rule).sort()).toEqual(
        Object.values(ITEM).sort(),
      );
    });
  }
});
