import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.js';
import { PROJECT_DIR, READ_FILE, typeFirstSource as source } from './support.js';

const INDEX = join(PROJECT_DIR, 'src', 'index.js');

const LIST_DIR = `
/**
 * List one folder.
 *
 * @category read
 * @param path Folder path relative to the root.
 */
export function list_dir(path = '.') {
  return [path];
}
export const listDir = tool(list_dir, { contracts });
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-gen-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function gen(...args: string[]) {
  const result = await runCli(['gen', ...args], { cwd: dir });
  expect(result.stdout + result.stderr).not.toContain(dir);
  return result;
}

describe('toolpact gen --check', () => {
  beforeEach(async () => {
    writeFileSync(join(dir, 'tools.ts'), source(READ_FILE + LIST_DIR));
    const written = await gen('tools.ts');
    expect(written.code).toBe(0);
    expect(written.stdout).toContain('Wrote contracts.generated.ts: 2 tools (added list_dir, read_file)');
  });

  test('passes when nothing changed, when only a function body changed, and after reformatting', async () => {
    expect(await gen('tools.ts', '--check')).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('up to date'),
    });
    const body = READ_FILE.replace('return path.length;', 'return path.trim().length;');
    writeFileSync(join(dir, 'tools.ts'), source(body + LIST_DIR));
    expect((await gen('tools.ts', '--check')).code).toBe(0);
    const reformatted = body.replace('read_file(path: string)', 'read_file(\n  path: string,\n)');
    writeFileSync(join(dir, 'tools.ts'), source(reformatted + LIST_DIR));
    expect((await gen('tools.ts', '--check')).code).toBe(0);
  });

  test('detects a changed parameter type', async () => {
    writeFileSync(
      join(dir, 'tools.ts'),
      source(READ_FILE.replace('path: string', 'path: string[]') + LIST_DIR),
    );
    const checked = await gen('tools.ts', '--check');
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain('contracts.generated.ts is stale: changed read_file');
    expect(checked.stderr).toContain('Run `toolpact gen tools.ts -o contracts.generated.ts`');
  });

  test('detects a changed doc comment', async () => {
    writeFileSync(
      join(dir, 'tools.ts'),
      source(READ_FILE.replace('Read one text file.', 'Read one UTF-8 text file.') + LIST_DIR),
    );
    const checked = await gen('tools.ts', '--check');
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain('changed read_file');
  });

  test('detects a new tool and a removed tool', async () => {
    const grep = LIST_DIR.replaceAll('list_dir', 'grep').replaceAll('listDir', 'grepTool');
    writeFileSync(join(dir, 'tools.ts'), source(READ_FILE + LIST_DIR + grep));
    expect(await gen('tools.ts', '--check')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('added grep'),
    });
    writeFileSync(join(dir, 'tools.ts'), source(READ_FILE));
    expect(await gen('tools.ts', '--check')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('removed list_dir'),
    });
  });

  test('fails when the generated module is missing, and writes nothing', async () => {
    rmSync(join(dir, 'contracts.generated.ts'));
    expect(await gen('tools.ts', '--check')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('does not exist'),
    });
    expect(existsSync(join(dir, 'contracts.generated.ts'))).toBe(false);
  });

  test('a second run rewrites nothing, and the module carries a hash of its inputs', async () => {
    const before = readFileSync(join(dir, 'contracts.generated.ts'), 'utf8');
    expect(await gen('tools.ts')).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('already up to date'),
    });
    expect(readFileSync(join(dir, 'contracts.generated.ts'), 'utf8')).toBe(before);
    expect(before).toMatch(/"inputsHash": "sha256:[0-9a-f]{64}"/);
    expect(before).toContain(`import type { GeneratedContracts } from ${JSON.stringify(INDEX)};`);
  });
});

test('reads the files of a tsconfig.json, and writes where -o says', async () => {
  writeFileSync(join(dir, 'tools.ts'), source(READ_FILE));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext' },
      files: ['tools.ts'],
    }),
  );
  const result = await gen('tsconfig.json', '-o', 'generated/contracts.generated.ts');
  expect(result).toMatchObject({
    code: 0,
    stdout: expect.stringContaining('Wrote generated/contracts.generated.ts: 1 tool'),
  });
  const text = readFileSync(join(dir, 'generated', 'contracts.generated.ts'), 'utf8');
  expect(text).toContain('"source": "../tools.ts"');
});

test('prints every unsupported parameter at once, in file:line:column form, and writes nothing', async () => {
  const result = await runCli(
    ['gen', 'test/fixtures/extract/invalid/unsupported.ts', '-o', join(dir, 'out.generated.ts')],
    { cwd: PROJECT_DIR },
  );
  expect(result.code).toBe(1);
  const lines = result.stderr.split('\n').filter((line) => line.includes(' - error '));
  expect(lines).toHaveLength(10);
  for (const line of lines) {
    expect(line).toMatch(
      /^test\/fixtures\/extract\/invalid\/unsupported\.ts:\d+:3 - error unsupported_type: parameter "\w+" of tool "take_everything" has type /,
    );
  }
  expect(new Set(lines.map((line) => line.split(':')[1])).size).toBe(10);
  expect(result.stderr).toContain('10 problems in 1 file');
  expect(existsSync(join(dir, 'out.generated.ts'))).toBe(false);
});

test('reports bad doc tags, missing descriptions and categories, and duplicate names', async () => {
  const result = await runCli(
    ['gen', 'test/fixtures/extract/invalid/bad-tags.ts', '-o', join(dir, 'out.generated.ts')],
    {
      cwd: PROJECT_DIR,
    },
  );
  expect(result.code).toBe(1);
  const codes = [...result.stderr.matchAll(/:(\d+):\d+ - error (\w+):/g)].map(
    (match) => `${match[1]} ${match[2]}`,
  );
  expect(codes).toEqual([
    '7 invalid_tag',
    '12 tag_mismatch',
    '17 invalid_tag',
    '22 invalid_tag',
    '27 invalid_tag',
    '35 invalid_tag',
    '47 missing_description',
    '47 missing_category',
    '58 missing_category',
    '69 duplicate_name',
  ]);
});

test('reports doc-comment content that would not reach the model', async () => {
  const result = await runCli(
    ['gen', 'test/fixtures/extract/invalid/unread-comments.ts', '-o', join(dir, 'out.generated.ts')],
    { cwd: PROJECT_DIR },
  );
  expect(result.code).toBe(1);
  const found = [...result.stderr.matchAll(/:(\d+):\d+ - error (\w+): (\S+ \S+)/g)].map(
    (match) => `${match[1]} ${match[2]} ${match[3]}`,
  );
  expect(found).toEqual([
    '7 invalid_tag @see in',
    '13 invalid_tag @minimum in',
    '16 invalid_tag parameter "count"',
    '17 invalid_tag @maxLength in',
    '18 invalid_tag @throws in',
    '19 invalid_tag @param missing',
    '20 invalid_tag parameter "count"',
    '21 invalid_tag @param context',
    '22 invalid_tag tool "count_notes"',
    '26 invalid_tag the context',
    '37 invalid_tag @param options:',
    '38 invalid_tag @param options.missing',
    '39 invalid_tag @param options.text.first',
    '51 invalid_tag @param range.start',
    '68 unsupported_declaration tool "described_twice"',
  ]);
  expect(existsSync(join(dir, 'out.generated.ts'))).toBe(false);
});

test('usage errors exit 2', async () => {
  expect((await gen()).code).toBe(2);
  writeFileSync(join(dir, 'tools.ts'), source(READ_FILE));
  writeFileSync(join(dir, 'tsconfig.json'), '{}');
  expect((await gen('tsconfig.json', 'tools.ts')).code).toBe(2);
  expect((await gen('missing.ts')).stderr).toContain('Cannot find "missing.ts"');
  expect((await gen('notes.md')).code).toBe(2);
});

test('a file without type-first tools is reported', async () => {
  writeFileSync(join(dir, 'plain.ts'), 'export const x = 1;\n');
  expect(await gen('plain.ts')).toMatchObject({
    code: 1,
    stderr: expect.stringContaining('found no type-first tools'),
  });
});

test('--format json reports the same outcome as data', async () => {
  const result = await runCli(
    [
      'gen',
      'test/fixtures/extract/invalid/unsupported.ts',
      '-o',
      join(dir, 'out.generated.ts'),
      '--format',
      'json',
    ],
    { cwd: PROJECT_DIR },
  );
  expect(result.code).toBe(1);
  const report = JSON.parse(result.stdout) as {
    status: string;
    diagnostics: { code: string; file: string; line: number; type: string }[];
  };
  expect(report.status).toBe('failed');
  expect(report.diagnostics.map((diagnostic) => diagnostic.type)).toEqual([
    'bigint',
    '() => void',
    'symbol',
    'Connection',
    'Handler',
    'Map<string, number>',
    'Set<string>',
    'any',
    'undefined',
    'RegExp',
  ]);
  expect(
    report.diagnostics.every(
      (diagnostic) => diagnostic.file === 'test/fixtures/extract/invalid/unsupported.ts',
    ),
  ).toBe(true);
  writeFileSync(join(dir, 'tools.ts'), source(READ_FILE));
  const checked = JSON.parse((await gen('tools.ts', '--check', '--format', 'json')).stdout);
  expect(checked).toMatchObject({
    status: 'missing',
    output: 'contracts.generated.ts',
    changes: { added: ['read_file'] },
  });
});
