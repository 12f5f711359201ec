import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SandboxUnavailableError, sandboxedCommand } from '../../src/gateway/sandbox-server.js';
import { isSharedFolder } from '../../src/sandbox/shared-folders.js';

// What a sandboxed server is shown of its own package: never a folder it shares with other
// programs. Nothing is started here (the bwrap given is never run), only the grants are planned.
const NO_GRANT = { read: [], write: [], network: false };
const NOT_RUN = '/bin/sh';

let root: string;
let home: string;
const loose: string[] = [];

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-sandbox-package-')));
  home = join(root, 'home', 'ada');
  mkdirSync(home, { recursive: true });
});
afterAll(() => {
  for (const file of loose) rmSync(file, { force: true });
  rmSync(root, { recursive: true, force: true });
});

// A home folder outside the temporary one, so that the temporary folder is not shared only for being above it.
const ELSEWHERE = '/home/toolpact-test-absent';

function plan(script: string, userHome = home) {
  return sandboxedCommand({ command: 'node', args: [script], env: {} }, NO_GRANT, {
    server: 'notes',
    bwrap: NOT_RUN,
    home: userHome,
  });
}

function write(path: string, text = 'export {};\n'): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe('shared folders', () => {
  test('the root, top-level folders, the temporary and home folders and those above, any home', () => {
    const tmp = realpathSync(tmpdir());
    for (const dir of [
      '/',
      '/tmp',
      '/home',
      '/opt',
      '/srv',
      '/var',
      '/var/tmp',
      '/dev/shm',
      '/run/user/1000',
    ]) {
      expect(isSharedFolder(dir, home), dir).toBe(true);
    }
    for (const dir of [tmp, home, dirname(home), '/home/someone-else']) {
      expect(isSharedFolder(dir, home), dir).toBe(true);
    }
    for (const dir of ['/opt/notes-server', '/srv/mcp/notes', join(home, 'projects'), join(tmp, 'x')]) {
      expect(isSharedFolder(dir, home), dir).toBe(false);
    }
  });

  test('every spelling of a shared folder is one', () => {
    for (const dir of [
      '/tmp/',
      '/tmp/.',
      '/tmp//',
      '/var/../tmp',
      '/usr/local/',
      `${home}/`,
      `${home}/x/..`,
    ]) {
      expect(isSharedFolder(dir, home), dir).toBe(true);
    }
  });
});

describe("a server's package grant", () => {
  test('is the package folder when the script has one of its own', () => {
    const packageDir = join(home, 'projects', 'notes-server');
    write(join(packageDir, 'package.json'), JSON.stringify({ name: 'notes-server' }));
    const script = write(join(packageDir, 'dist', 'index.js'));
    expect(plan(script).granted.read).toContain(packageDir);
  });

  test('a script lying loose in the temporary folder is given alone, never the whole folder', () => {
    const script = join(realpathSync(tmpdir()), `toolpact-loose-${randomUUID()}.mjs`);
    loose.push(write(script));
    const { read } = plan(script, ELSEWHERE).granted;
    expect(read).toContain(script);
    expect(read).not.toContain(realpathSync(tmpdir()));
    expect(read.filter((path) => isSharedFolder(path, home))).toEqual([]);
  });

  test('a link to the temporary folder leads to the same grant', () => {
    const script = join(realpathSync(tmpdir()), `toolpact-loose-${randomUUID()}.mjs`);
    loose.push(write(script));
    const link = join(root, 'to-tmp');
    symlinkSync(realpathSync(tmpdir()), link);
    const { read } = plan(join(link, '.', basenameOf(script)), ELSEWHERE).granted;
    expect(read).toContain(script);
    expect(read).not.toContain(realpathSync(tmpdir()));
    expect(read).not.toContain(link);
  });

  test('a script lying loose in the home folder is given alone', () => {
    const script = write(join(home, 'server.mjs'));
    const { read } = plan(script).granted;
    expect(read).toContain(script);
    expect(read).not.toContain(home);
  });

  test('a package whose own folder is the home folder is refused, naming it and the way out', () => {
    write(join(home, 'package.json'), JSON.stringify({ name: 'dotfiles' }));
    const script = write(join(home, 'tools', 'server.mjs'));
    let error: unknown;
    try {
      plan(script);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect((error as SandboxUnavailableError).code).toBe('shared_package_folder');
    expect((error as SandboxUnavailableError).server).toBe('notes');
    expect((error as SandboxUnavailableError).message).toContain(`"${home}"`);
    expect((error as SandboxUnavailableError).message).toContain('folder of its own');
    rmSync(join(home, 'package.json'));
  });
});

function basenameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
