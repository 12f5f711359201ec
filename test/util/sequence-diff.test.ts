import { describe, expect, test } from 'vitest';
import { diffSequences } from '../../src/util/sequence-diff.js';

// The one diff under the gateway's description diff and the studio's JSON diff.

const script = (edits: { kind: string; item: string }[]) => edits.map((edit) => `${edit.kind}${edit.item}`);

describe('diffSequences', () => {
  test('keeps the longest common subsequence, removals before additions in each changed stretch', () => {
    expect(script(diffSequences(['a', 'b', 'c', 'd'], ['a', 'x', 'y', 'c', 'd']))).toEqual([
      ' a',
      '-b',
      '+x',
      '+y',
      ' c',
      ' d',
    ]);
    expect(script(diffSequences([], ['a']))).toEqual(['+a']);
    expect(script(diffSequences(['a'], []))).toEqual(['-a']);
    expect(diffSequences(['a'], ['a'])).toEqual([{ kind: ' ', item: 'a' }]);
  });

  test('a weight prefers the heavier match: the same word at the same depth over one at another', () => {
    const depth = (text: string) => text.length - text.trimStart().length;
    const weight = (a: string, b: string) => (a.trim() !== b.trim() ? 0 : depth(a) === depth(b) ? 3 : 2);
    // "}" at depth 0 pairs with its own, not with the nested one.
    expect(script(diffSequences(['{', '}'], ['{', '  {', '  }', '}'], { weight }))).toEqual([
      ' {',
      '+  {',
      '+  }',
      ' }',
    ]);
  });

  test('past maxCells the differing middle is all removed then all added; the common ends stay', () => {
    const before = ['same', 'a1', 'a2', 'a3', 'end'];
    const after = ['same', 'a2', 'b1', 'end'];
    expect(script(diffSequences(before, after, { maxCells: 4 }))).toEqual([
      ' same',
      '-a1',
      '-a2',
      '-a3',
      '+a2',
      '+b1',
      ' end',
    ]);
    expect(script(diffSequences(before, after))).toEqual([' same', '-a1', ' a2', '-a3', '+b1', ' end']);
  });
});
