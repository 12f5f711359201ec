// The compiler host extraction uses keeps each parsed file for the process: a second program takes the
// same file objects, an edit is parsed afresh, and other compiler options or a file asked for anew
// never get a kept one. Through the real compiler on real files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, expect, test } from 'vitest';
import { extractContracts } from '../../src/extract/index.js';
import { sourceFileCachingHost } from '../../src/extract/source-file-cache.js';
import { PROJECT_DIR, READ_FILE, typeFirstSource } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'toolpact-source-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
};

function program(root: string, options = OPTIONS) {
  return ts.createProgram({ rootNames: [root], options, host: sourceFileCachingHost(options) });
}

const libOf = (built: ts.Program) =>
  built.getSourceFiles().find((file) => /lib\.es5\.d\.ts$/.test(file.fileName));

test('a second program reuses every unchanged file, and an edited one is parsed afresh', () => {
  const root = join(dir, 'root.ts');
  writeFileSync(root, 'export const answer: number = 42;\n');
  const first = program(root);
  // Checked, so that the kept files are bound too: the next program's checker takes them as they are.
  expect(ts.getPreEmitDiagnostics(first)).toEqual([]);
  const second = program(root);
  expect(second.getSourceFile(root)).toBe(first.getSourceFile(root));
  expect(libOf(second)).toBeDefined();
  expect(libOf(second)).toBe(libOf(first));
  expect(ts.getPreEmitDiagnostics(second)).toEqual([]);

  writeFileSync(root, 'export const answer: number = "forty-two";\n');
  const edited = program(root);
  expect(edited.getSourceFile(root)).not.toBe(first.getSourceFile(root));
  expect(edited.getSourceFile(root)?.text).toContain('forty-two');
  expect(libOf(edited)).toBe(libOf(first));
  // The edit is checked as written: the type error is found.
  expect(ts.getPreEmitDiagnostics(edited).map((diagnostic) => diagnostic.code)).toEqual([2322]);
});

test('other compiler options, or a file asked for anew, never get a kept file', () => {
  const root = join(dir, 'options.ts');
  writeFileSync(root, 'export const flag = true;\n');
  const first = program(root);
  const other = program(root, { ...OPTIONS, target: ts.ScriptTarget.ES2020 });
  expect(other.getSourceFile(root)).not.toBe(first.getSourceFile(root));
  const host = sourceFileCachingHost(OPTIONS);
  const anew = host.getSourceFile(root, ts.ScriptTarget.ES2022, undefined, true);
  expect(anew).toBeDefined();
  expect(anew).not.toBe(first.getSourceFile(root));
  expect(host.getSourceFile(join(dir, 'missing.ts'), ts.ScriptTarget.ES2022)).toBeUndefined();
});

test('extraction run twice in one process gives the same contracts, and sees an edit', () => {
  const file = join(dir, 'tools.ts');
  writeFileSync(file, typeFirstSource(READ_FILE));
  const output = join(dir, 'contracts.generated.ts');
  const first = extractContracts({ files: [file], output, cwd: PROJECT_DIR });
  const again = extractContracts({ files: [file], output, cwd: PROJECT_DIR });
  expect(first.ok).toBe(true);
  expect(again).toEqual(first);
  writeFileSync(file, typeFirstSource(READ_FILE.replace('path: string', 'path: string[]')));
  const edited = extractContracts({ files: [file], output, cwd: PROJECT_DIR });
  expect(edited.ok).toBe(true);
  if (!first.ok || !edited.ok) return;
  expect(edited.contracts.inputsHash).not.toBe(first.contracts.inputsHash);
  expect(JSON.stringify(edited.contracts)).toContain('"array"');
  expect(JSON.stringify(first.contracts)).not.toContain('"array"');
});
