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
  // Longest common subsequence, by suffix lengths; O(n·m) is fine for tool payloads.
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] =
        a[i] === b[j]
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: ' ', text: right[j]! });
      i++;
      j++;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) {
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
