import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sourceEntry = join(projectRoot, 'src', 'index.ts');
const workspaceModule = join(projectRoot, 'examples', 'workspace', 'index.ts');
let dir: string;

const toolSource = (name: string) =>
  `defineTool({ name: '${name}', description: 'Say ${name}.', category: 'read', execute: () => '${name}' })`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolpact-cli-'));
  const head = `import { defineTool, Registry } from ${JSON.stringify(sourceEntry)};\n`;
  await writeFile(
    join(dir, 'default-registry.ts'),
    `${head}export default new Registry().register(${toolSource('a')});\nexport const ignored = ${toolSource('b')};\n`,
  );
  await writeFile(
    join(dir, 'default-array.ts'),
    `${head}export default [${toolSource('a')}, ${toolSource('b')}];\n`,
  );
  await writeFile(
    join(dir, 'named-registry.ts'),
    `${head}export const registry = new Registry().register(${toolSource('r')});\nexport const tools = [${toolSource('t')}];\n`,
  );
  await writeFile(
    join(dir, 'named-tools.ts'),
    `${head}export const tools = [${toolSource('t')}];\nexport const other = ${toolSource('o')};\n`,
  );
  await writeFile(
    join(dir, 'loose.mts'),
    `${head}export const one = ${toolSource('one')};\nexport const two = ${toolSource('two')};\nexport const notATool = 3;\n`,
  );
  await writeFile(join(dir, 'plain.mjs'), `export const nothing = 1;\n`);
  await writeFile(join(dir, 'broken.ts'), `export const x: = ;\n`);
  await writeFile(join(dir, 'bad-array.ts'), `export default [1, 2];\n`);
  await writeFile(join(dir, 'notes.txt'), 'text');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('toolpact call', () => {
  test('dispatches one call on the example workspace and prints the envelope (exit 0)', async () => {
    const { code, stdout } = await runCli(['call', workspaceModule, 'read_file', '{"path":"docs/guide.md"}']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, result: { path: 'docs/guide.md' } });
  });

  test('a failed call prints its envelope and exits 1', async () => {
    const bad = await runCli(['call', workspaceModule, 'read_file', '{"path": 42}']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).error.type).toBe('invalid_arguments');
    const unknown = await runCli(['call', workspaceModule, 'read_files', '{}']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error.suggestions).toContain('read_file');
    const refused = await runCli(['call', workspaceModule, 'read_file', '{"path":"../../package.json"}']);
    expect(JSON.parse(refused.stdout).error.type).toBe('path_outside_workspace');
  });

  test.each([
    ['default-registry.ts', 'a', 'b'],
    ['default-array.ts', 'b', 'zzz'],
    ['named-registry.ts', 'r', 't'],
    ['named-tools.ts', 't', 'o'],
    ['loose.mts', 'two', 'notATool'],
  ])('takes tools from %s in the documented order', async (file, present, absent) => {
    const ok = await runCli(['call', join(dir, file), present]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).result).toBe(present);
    const missing = await runCli(['call', join(dir, file), absent]);
    expect(JSON.parse(missing.stdout).error.type).toBe('unknown_tool');
  });

  test.each([
    [['call'], 'Give a module and a tool name'],
    [['call', 'missing.ts', 'x'], 'Cannot find the module "missing.ts"'],
    [['call', 'notes.txt', 'x'], '.txt'],
    [['call', 'plain.mjs', 'x'], 'exports no tools'],
    [['call', 'broken.ts', 'x'], 'Cannot load "broken.ts"'],
    [['call', 'bad-array.ts', 'x'], 'item 0 is not a tool'],
    [['call', 'loose.mts', 'one', '{}', 'extra'], 'Unexpected arguments'],
    [['call', 'loose.mts', 'one', '--timeout', 'soon'], '--timeout'],
    [['call', '--bogus'], 'Unknown option "--bogus"'],
    [['nonsense'], 'unknown command "nonsense"'],
  ])('usage error %j exits 2 with a message', async (argv, fragment) => {
    const { code, stderr } = await runCli(argv, { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toContain(fragment);
  });

  test('help and version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('call');
    expect((await runCli(['call', '--help'])).stdout).toContain('toolpact call <module> <tool>');
    expect((await runCli(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});

test('the CLI version is the package version', async () => {
  const { readFileSync } = await import('node:fs');
  const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
  expect((await runCli(['--version'])).stdout.trim()).toBe(manifest.version);
});
