import { diffSequences } from '../util/sequence-diff.js';

/** One line of a diff: kept (` `), only in the provider payload (`+`), or only in the canonical contract (`-`). */
export interface DiffLine {
  readonly op: ' ' | '+' | '-';
  readonly text: string;
}

// Past this many lines on both sides the table would be large; the differing lines are shown as two blocks.
const MAX_LINES = 2_000;

/**
 * A line diff of two JSON values, each printed with two-space indentation. Lines are matched by their
 * trimmed text, so a payload that only nests the contract one level deeper (OpenAI's `function`)
 * shows its real changes, not every line re-indented. Each line keeps its own indentation.
 *
 * @example
 * diffJson({ name: 'a', parameters: {} }, { name: 'a', input_schema: {} });
 * // [{ op: ' ', text: '{' }, { op: ' ', text: '  "name": "a",' }, { op: '-', text: '  "parameters": {}' }, …]
 */
export function diffJson(before: unknown, after: unknown): DiffLine[] {
  // Each distinct line read once: the table weighs every pair of lines.
  const read = new Map<string, { key: string; indent: number }>();
  const shape = (text: string) => {
    let known = read.get(text);
    if (!known) {
      known = { key: text.trim().replace(/,$/, ''), indent: text.length - text.trimStart().length };
      read.set(text, known);
    }
    return known;
  };
  // A match at the same depth outweighs one at another, so a closing brace pairs with its own.
  const weight = (left: string, right: string) => {
    const a = shape(left);
    const b = shape(right);
    return a.key !== b.key ? 0 : a.indent === b.indent ? 3 : 2;
  };
  return diffSequences(lines(before), lines(after), { weight, maxCells: MAX_LINES * MAX_LINES }).map(
    (edit) => ({ op: edit.kind, text: edit.item }),
  );
}

function lines(value: unknown): string[] {
  return (JSON.stringify(value, null, 2) ?? 'undefined').split('\n');
}
