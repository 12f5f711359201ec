/** One line of a diff: kept (` `), only in the provider payload (`+`), or only in the canonical contract (`-`). */
export interface DiffLine {
  readonly op: ' ' | '+' | '-';
  readonly text: string;
}

// Past this many lines on either side the table would be large; the diff falls back to two blocks.
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
  const left = lines(before);
  const right = lines(after);
  if (left.length > MAX_LINES || right.length > MAX_LINES) {
    return [
      ...left.map((text) => ({ op: '-' as const, text })),
      ...right.map((text) => ({ op: '+' as const, text })),
    ];
  }
  const key = (text: string) => text.trim().replace(/,$/, '');
  const a = left.map(key);
  const b = right.map(key);
  const indent = (text: string) => text.length - text.trimStart().length;
  // A match at the same depth outweighs one at another, so a closing brace pairs with its own.
  const weight = (i: number, j: number) =>
    a[i] !== b[j] ? 0 : indent(left[i]!) === indent(right[j]!) ? 3 : 2;
  // Heaviest common subsequence, by suffixes; O(n·m) is fine for tool payloads.
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  const at = (i: number, j: number) => table[i * width + j]!;
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const match = weight(i, j);
      table[i * width + j] = Math.max(match > 0 ? match + at(i + 1, j + 1) : 0, at(i + 1, j), at(i, j + 1));
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const match = weight(i, j);
    if (match > 0 && at(i, j) === match + at(i + 1, j + 1)) {
      out.push({ op: ' ', text: right[j]! });
      i++;
      j++;
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      out.push({ op: '-', text: left[i++]! });
    } else {
      out.push({ op: '+', text: right[j++]! });
    }
  }
  while (i < a.length) out.push({ op: '-', text: left[i++]! });
  while (j < b.length) out.push({ op: '+', text: right[j++]! });
  return out;
}

function lines(value: unknown): string[] {
  return (JSON.stringify(value, null, 2) ?? 'undefined').split('\n');
}
