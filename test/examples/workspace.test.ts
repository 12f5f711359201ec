import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createWorkspaceTools } from '../../examples/workspace/tools.js';
import { type Envelope, Registry } from '../../src/index.js';

let parent: string;
let root: string;
let registry: Registry;

beforeAll(async () => {
  parent = await realpath(await mkdtemp(join(tmpdir(), 'toolpact-ws-')));
  root = join(parent, 'ws');
  await mkdir(join(root, 'docs'), { recursive: true });
  await writeFile(join(root, 'README.md'), '# Title\nline two\nline three\n');
  await writeFile(join(root, 'docs', 'guide.md'), 'Paths are relative.\nThe needle is here.\n');
  await writeFile(join(root, 'image.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
  // CVE-2025-53110: a sibling whose name starts with the root's name.
  await mkdir(join(parent, 'ws-evil'));
  await writeFile(join(parent, 'ws-evil', 'secret.txt'), 'stolen');
  await writeFile(join(parent, 'outside.txt'), 'outside');
  // CVE-2025-53109: links inside the root that point out.
  await symlink(join(parent, 'outside.txt'), join(root, 'link-file'));
  await symlink(parent, join(root, 'link-dir'));
  await symlink(join(root, 'docs'), join(root, 'link-inside'));
  registry = new Registry().register(...createWorkspaceTools(root));
});

afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

const errorType = (envelope: Envelope) => (envelope.ok ? 'ok' : envelope.error.type);

describe('the example workspace tools', () => {
  test('read_file reads a file, and a line range', async () => {
    expect(await registry.call('read_file', { path: 'README.md' })).toEqual({
      ok: true,
      result: { path: 'README.md', lines: 3, content: '# Title\nline two\nline three' },
    });
    const range = await registry.call('read_file', { path: 'README.md', start_line: 2, line_count: 1 });
    expect(range.ok && range.result).toEqual({ path: 'README.md', lines: 1, content: 'line two' });
  });

  test('read_file refuses binaries, folders and missing files with a way out', async () => {
    expect(errorType(await registry.call('read_file', { path: 'image.bin' }))).toBe('binary_file');
    expect(errorType(await registry.call('read_file', { path: 'docs' }))).toBe('not_a_file');
    const missing = await registry.call('read_file', { path: 'nope.md' });
    expect(errorType(missing)).toBe('not_found');
    expect(!missing.ok && 'hint' in missing.error && missing.error.hint).toMatch(/list_dir/);
  });

  test('list_dir lists a folder, sorted, with types', async () => {
    const listing = await registry.call('list_dir', {});
    expect(listing.ok).toBe(true);
    const entries =
      (listing.ok && (listing.result as { entries: { name: string; type: string }[] }).entries) || [];
    expect(entries.map((entry) => `${entry.name}:${entry.type}`)).toEqual([
      'README.md:file',
      'docs:folder',
      'image.bin:file',
      'link-dir:link',
      'link-file:link',
      'link-inside:link',
    ]);
  });

  test('grep finds lines, skips binaries and does not follow links out of the workspace', async () => {
    const found = await registry.call('grep', { pattern: 'needle' });
    expect(found.ok && found.result).toEqual({
      matches: [{ path: 'docs/guide.md', line: 2, text: 'The needle is here.' }],
      truncated: false,
    });
    const outside = await registry.call('grep', { pattern: 'outside' });
    expect(outside.ok && (outside.result as { matches: unknown[] }).matches).toEqual([]);
    expect(errorType(await registry.call('grep', { pattern: '(a+)+$', regex: true }))).toBe('unsafe_pattern');
    expect(errorType(await registry.call('grep', { pattern: '([', regex: true }))).toBe('invalid_pattern');
  });

  test('write_file writes atomically and leaves no temporary file', async () => {
    const written = await registry.call('write_file', { path: 'notes/new.md', content: 'hello' });
    expect(written).toEqual({ ok: true, result: { path: 'notes/new.md', bytes: 5, created: true } });
    const again = await registry.call('write_file', { path: 'notes/new.md', content: 'hello again' });
    expect(again.ok && again.result).toEqual({ path: 'notes/new.md', bytes: 11, created: false });
    expect(await readFile(join(root, 'notes', 'new.md'), 'utf8')).toBe('hello again');
    expect(await readdir(join(root, 'notes'))).toEqual(['new.md']);
  });

  test('concurrent writes to one file leave one whole version, never a mix', async () => {
    const versions = Array.from({ length: 20 }, (_, index) => String(index).repeat(50_000));
    const results = await Promise.all(
      versions.map((content) => registry.call('write_file', { path: 'race.txt', content })),
    );
    expect(results.every((result) => result.ok)).toBe(true);
    expect(versions).toContain(await readFile(join(root, 'race.txt'), 'utf8'));
    expect((await readdir(root)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('paths that leave the workspace are refused', () => {
  const escapes: [string, string][] = [
    ['../outside.txt', 'path_outside_workspace'],
    ['docs/../../outside.txt', 'path_outside_workspace'],
    ['..', 'path_outside_workspace'],
    ['/etc/passwd', 'path_outside_workspace'],
    ['C:\\Windows\\win.ini', 'path_outside_workspace'],
    ['\\\\server\\share\\x', 'path_outside_workspace'],
    ['../ws-evil/secret.txt', 'path_outside_workspace'],
    ['link-file', 'path_outside_workspace'],
    ['link-dir/outside.txt', 'path_outside_workspace'],
    ['link-dir/ws-evil/secret.txt', 'path_outside_workspace'],
    ['docs\u0000.md', 'invalid_path'],
    ['', 'invalid_arguments'],
  ];

  test.each(escapes)('read_file %j', async (path, type) => {
    const text = await registry.dispatch('read_file', { path });
    expect(JSON.parse(text).error.type).toBe(type);
    expect(text).not.toContain('stolen');
    expect(text).not.toContain(parent);
  });

  test('the sibling directory is refused even as an absolute path under the real root prefix', async () => {
    const text = await registry.dispatch('read_file', { path: `${root}-evil/secret.txt` });
    expect(JSON.parse(text).error.type).toBe('path_outside_workspace');
    expect(text).not.toContain(parent);
  });

  test.each([['../outside-new.txt'], ['link-dir/created.txt'], ['link-file'], ['/var/escaped.txt']])(
    'write_file %j does not write outside',
    async (path) => {
      const envelope = await registry.call('write_file', { path, content: 'x' });
      expect(errorType(envelope)).toBe('path_outside_workspace');
      expect(await readFile(join(parent, 'outside.txt'), 'utf8')).toBe('outside');
      expect((await readdir(parent)).sort()).toEqual(['outside.txt', 'ws', 'ws-evil']);
    },
  );

  test('list_dir and grep refuse the same escapes', async () => {
    expect(errorType(await registry.call('list_dir', { path: '../ws-evil' }))).toBe('path_outside_workspace');
    expect(errorType(await registry.call('list_dir', { path: 'link-dir' }))).toBe('path_outside_workspace');
    expect(errorType(await registry.call('grep', { pattern: 'stolen', path: 'link-dir' }))).toBe(
      'path_outside_workspace',
    );
  });

  test('a link that stays inside the workspace works', async () => {
    const envelope = await registry.call('read_file', { path: 'link-inside/guide.md' });
    expect(envelope.ok).toBe(true);
  });
});
