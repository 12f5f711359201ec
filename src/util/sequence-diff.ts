/** One step of an edit script: an item kept (` `), removed from the first sequence (`-`) or added from the second (`+`). */
export interface Edit<T> {
  readonly kind: ' ' | '-' | '+';
  /** The item: from the second sequence when kept, else from the sequence it belongs to. */
  readonly item: T;
}

/** Options of {@link diffSequences}. */
export interface DiffOptions<T> {
  /**
   * How much a match of two items is worth, a whole number; 0 when they do not match. Equal items
   * (`===`) must weigh the most, since the common prefix and suffix are kept without weighing them.
   * Default: 1 when equal.
   */
  readonly weight?: (before: T, after: T) => number;
  /**
   * Past this many cells of the table (the lengths of the two differing middles multiplied), the middle
   * is shown as all removed, then all added. Default 4,000,000 (a 16 MB table).
   */
  readonly maxCells?: number;
}

/**
 * The edit script from `before` to `after` that keeps the heaviest common subsequence: the common
 * prefix and suffix first, then a table over what differs between them (O(n·m), bounded by
 * `maxCells`). Within each changed stretch the removals come before the additions, as a reader
 * expects. The gateway's description diff and the studio's JSON diff are both this.
 *
 * @example
 * diffSequences(['a', 'b', 'c'], ['a', 'x', 'c']);
 * // [{ kind: ' ', item: 'a' }, { kind: '-', item: 'b' }, { kind: '+', item: 'x' }, { kind: ' ', item: 'c' }]
 */
export function diffSequences<T>(
  before: readonly T[],
  after: readonly T[],
  options: DiffOptions<T> = {},
): Edit<T>[] {
  const weight = options.weight ?? ((a: T, b: T) => (a === b ? 1 : 0));
  const maxCells = options.maxCells ?? 4_000_000;
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const edits: Edit<T>[] = after.slice(0, start).map((item) => ({ kind: ' ', item }));
  const a = before.slice(start, endBefore);
  const b = after.slice(start, endAfter);
  if (a.length === 0 || b.length === 0 || (a.length + 1) * (b.length + 1) > maxCells) {
    for (const item of a) edits.push({ kind: '-', item });
    for (const item of b) edits.push({ kind: '+', item });
  } else {
    edits.push(...middle(a, b, weight));
  }
  for (const item of after.slice(endAfter)) edits.push({ kind: ' ', item });
  return edits;
}

/** The heaviest common subsequence of two non-empty sequences, by suffixes, as an edit script. */
function middle<T>(a: readonly T[], b: readonly T[], weight: (before: T, after: T) => number): Edit<T>[] {
  const width = b.length + 1;
  // table[i * width + j]: the heaviest common subsequence of a[i..] and b[j..].
  const table = new Uint32Array((a.length + 1) * width);
  const at = (i: number, j: number) => table[i * width + j]!;
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const match = weight(a[i]!, b[j]!);
      table[i * width + j] = Math.max(match > 0 ? match + at(i + 1, j + 1) : 0, at(i + 1, j), at(i, j + 1));
    }
  }
  const edits: Edit<T>[] = [];
  const removed: Edit<T>[] = [];
  const added: Edit<T>[] = [];
  const flush = () => edits.push(...removed.splice(0), ...added.splice(0));
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const match = i < a.length && j < b.length ? weight(a[i]!, b[j]!) : 0;
    if (match > 0 && at(i, j) === match + at(i + 1, j + 1)) {
      flush();
      edits.push({ kind: ' ', item: b[j]! });
      i++;
      j++;
    } else if (j >= b.length || (i < a.length && at(i + 1, j) >= at(i, j + 1))) {
      removed.push({ kind: '-', item: a[i++]! });
    } else {
      added.push({ kind: '+', item: b[j++]! });
    }
  }
  flush();
  return edits;
}
