import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formatOversize, longFiles, longFunctions, type Oversize, sourceFiles } from './code-size.js';

const root = resolve(import.meta.dirname, '../..');

/** A command file prints; what it computes lives in the library. */
const COMMAND_FILE_LINES = 200;
const FUNCTION_LINES = 120;

/**
 * Known oversizes, each `<file>` or `<file>: <function>`; none since serving became `serveRegistry`.
 * An entry that no longer applies fails the test below, so that the list only ever shrinks.
 */
const KNOWN_OVERSIZE: readonly string[] = [];

function keyOf(oversize: Oversize): string {
  return oversize.function === undefined
    ? oversize.file
    : `${oversize.file}: ${oversize.function.replace(/ \(line \d+\)$/, '')}`;
}

test(`every file of src/cli/commands has at most ${COMMAND_FILE_LINES} lines, and every function of src/cli and src/gateway at most ${FUNCTION_LINES}`, () => {
  const commands = sourceFiles(join(root, 'src/cli/commands'));
  const code = [...sourceFiles(join(root, 'src/cli')), ...sourceFiles(join(root, 'src/gateway'))];
  // An empty or mislaid folder would pass too: the CLI has a dozen commands, the gateway dozens of files.
  expect(commands.length).toBeGreaterThan(10);
  expect(code.length).toBeGreaterThan(50);
  const found = [
    ...longFiles(root, commands, COMMAND_FILE_LINES).map((each) => ({
      each,
      line: formatOversize(each, COMMAND_FILE_LINES),
    })),
    ...longFunctions(root, code, FUNCTION_LINES).map((each) => ({
      each,
      line: formatOversize(each, FUNCTION_LINES),
    })),
  ];
  const over = found.filter(({ each }) => !KNOWN_OVERSIZE.includes(keyOf(each))).map(({ line }) => line);
  expect(over, `too long; move what is not CLI wiring into the library:\n${over.join('\n')}`).toEqual([]);
  const stale = KNOWN_OVERSIZE.filter((key) => !found.some(({ each }) => keyOf(each) === key));
  expect(stale, `within the limits now; remove from KNOWN_OVERSIZE:\n${stale.join('\n')}`).toEqual([]);
});

describe('the size measure', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'toolpact-code-size-'));
    const body = (count: number) =>
      Array.from({ length: count }, (_, index) => `  const v${index} = ${index};`);
    const files: Record<string, string> = {
      // A function of 5 lines; 6 lines in all (the closing newline ends the last one).
      'src/short.ts': ['export function short() {', ...body(3), '}', 'export const x = 1;', ''].join('\n'),
      'src/long.ts': [
        'export function declared() {',
        ...body(4),
        '}',
        'export const arrow = () => {',
        ...body(5),
        '};',
        'export class Holder {',
        '  method() {',
        ...body(4),
        '  }',
        '}',
        'export const object = {',
        '  inner: function () {',
        '    return () => {',
        ...body(4),
        '    };',
        '  },',
        '};',
      ].join('\n'),
      'src/nested/deep.ts': ['export const y = 2;', 'export const z = 3;', 'export const w = 4;'].join('\n'),
    };
    for (const [name, text] of Object.entries(files)) {
      await mkdir(dirname(join(folder, name)), { recursive: true });
      await writeFile(join(folder, name), text);
    }
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test('names each function over the limit with its line and count, and each file over its limit', () => {
    const files = sourceFiles(join(folder, 'src'));
    expect(files.map((file) => file.slice(folder.length + 1))).toEqual([
      'src/long.ts',
      'src/nested/deep.ts',
      'src/short.ts',
    ]);
    expect(longFunctions(folder, files, 5).map((each) => formatOversize(each, 5))).toEqual([
      'src/long.ts: declared (line 1): 6 lines, more than 5',
      'src/long.ts: arrow (line 7): 7 lines, more than 5',
      'src/long.ts: method (line 15): 6 lines, more than 5',
      'src/long.ts: inner (line 23): 8 lines, more than 5',
      'src/long.ts: (anonymous) (line 24): 6 lines, more than 5',
    ]);
    expect(longFunctions(folder, files, 8)).toEqual([]);
    expect(longFiles(folder, files, 3).map((each) => formatOversize(each, 3))).toEqual([
      'src/long.ts: 31 lines, more than 3',
      'src/short.ts: 6 lines, more than 3',
    ]);
    expect(longFiles(folder, files, 31)).toEqual([]);
  });
});
