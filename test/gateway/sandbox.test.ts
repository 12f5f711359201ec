import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { GatewaySandbox } from '../../src/gateway/config/index.js';
import { parseNpxCommand, resolveNpxCommand } from '../../src/gateway/npx.js';
import {
  findBubblewrap,
  SandboxUnavailableError,
  sandboxedCommand,
} from '../../src/gateway/sandbox-server.js';
import { connectMcpServer, type McpConnection } from '../../src/mcp/connect.js';
import { NOBODY, runAsNobody } from '../sandbox/support.js';
import { bubblewrap } from '../support/bubblewrap.js';
import { until } from './support.js';

// A real probe server (test/fixtures/gateway/probe-server.mjs) under the real bubblewrap, reached
// through the real SDK client. Every "cannot" has an unsandboxed twin as its control: the same
// server, started directly, can.
const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PROBE = join(projectRoot, 'test', 'fixtures', 'gateway', 'probe-server.mjs');

let root: string;
let granted: string;
let writable: string;
let outside: string;
let failingBwrap: string;
let listener: Server;
let port: number;
const open: McpConnection[] = [];

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-gateway-sandbox-')));
  granted = join(root, 'granted');
  writable = join(root, 'writable');
  outside = join(root, 'outside');
  for (const dir of [granted, writable, outside]) mkdirSync(dir);
  writeFileSync(join(granted, 'notes.txt'), 'granted notes');
  writeFileSync(join(outside, 'secret.txt'), 'the-host-secret');
  // A bwrap that cannot set up a sandbox, as on a host without user namespaces.
  failingBwrap = join(root, 'failing-bwrap');
  writeFileSync(
    failingBwrap,
    '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
    {
      mode: 0o755,
    },
  );
  listener = createServer((socket) => socket.end());
  await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
  port = (listener.address() as { port: number }).port;
});
afterAll(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close().catch(() => {})));
  await new Promise<void>((done) => listener?.close(() => done()));
  if (root) rmSync(root, { recursive: true, force: true });
});

const probeTarget = (env: Record<string, string> = {}) => ({
  command: 'node',
  args: [PROBE],
  env,
  cwd: projectRoot,
});

async function start(
  target: ReturnType<typeof probeTarget>,
  sandbox?: GatewaySandbox,
  options: Parameters<typeof sandboxedCommand>[2] = {},
): Promise<McpConnection> {
  const connection = sandbox
    ? await connectMcpServer(sandboxedCommand(target, sandbox, { server: 'probe', ...options }))
    : await connectMcpServer({ ...target, command: process.execPath });
  open.push(connection);
  return connection;
}

async function call(connection: McpConnection, name: string, args: Record<string, unknown> = {}) {
  const result = (await connection.client.callTool({ name, arguments: args })) as {
    content: { type: string; text?: string }[];
    isError?: boolean;
  };
  return { text: result.content[0]?.text ?? '', isError: result.isError === true };
}

const NO_GRANT: GatewaySandbox = { read: [], write: [], network: false };

/** Host processes whose command line or environment holds `marker` (read from /proc). */
function processesWith(marker: string): number {
  let count = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    for (const file of ['cmdline', 'environ']) {
      try {
        if (readFileSync(`/proc/${pid}/${file}`, 'utf8').includes(marker)) {
          count++;
          break;
        }
      } catch {
        // Gone since the listing, or not ours to read.
      }
    }
  }
  return count;
}

describe.runIf(bubblewrap.ok)('a sandboxed stdio server', () => {
  test('runs as the host user, in its working folder, with HOME in the private /tmp', async () => {
    const sandboxed = await start(probeTarget(), NO_GRANT);
    const who = JSON.parse((await call(sandboxed, 'whoami')).text) as Record<string, unknown>;
    expect(who).toEqual({ uid: process.getuid?.(), gid: process.getgid?.(), cwd: projectRoot, home: '/tmp' });
  });

  test('reads a granted file, and nothing outside its grant (the unsandboxed twin can)', async () => {
    const grant = { read: [granted], write: [], network: false };
    const sandboxed = await start(probeTarget(), grant);
    const twin = await start(probeTarget());
    const secret = join(outside, 'secret.txt');
    expect(await call(sandboxed, 'read_file', { path: join(granted, 'notes.txt') })).toEqual({
      text: 'granted notes',
      isError: false,
    });
    expect(await call(sandboxed, 'read_file', { path: secret })).toEqual({ text: 'ENOENT', isError: true });
    expect(await call(twin, 'read_file', { path: secret })).toEqual({
      text: 'the-host-secret',
      isError: false,
    });
    // The host's /etc/passwd and its /tmp are not there either.
    expect(await call(sandboxed, 'read_file', { path: '/etc/passwd' })).toEqual({
      text: 'ENOENT',
      isError: true,
    });
    expect(await call(twin, 'read_file', { path: '/etc/passwd' })).toMatchObject({ isError: false });
  });

  test('writes in a write grant, not in a read grant', async () => {
    const grant = { read: [granted], write: [writable], network: false };
    const sandboxed = await start(probeTarget(), grant);
    expect(
      await call(sandboxed, 'write_file', { path: join(writable, 'out.txt'), text: 'written inside' }),
    ).toEqual({ text: 'written', isError: false });
    expect(readFileSync(join(writable, 'out.txt'), 'utf8')).toBe('written inside');
    expect(
      await call(sandboxed, 'write_file', { path: join(granted, 'notes.txt'), text: 'changed' }),
    ).toEqual({
      text: 'EROFS',
      isError: true,
    });
    expect(readFileSync(join(granted, 'notes.txt'), 'utf8')).toBe('granted notes');
    // Its own package is read-only too.
    expect(
      await call(sandboxed, 'write_file', { path: join(projectRoot, 'probe-was-here'), text: 'x' }),
    ).toEqual({
      text: 'EROFS',
      isError: true,
    });
    expect(existsSync(join(projectRoot, 'probe-was-here'))).toBe(false);
  });

  test('a write grant inside a read grant is writable; the rest of the read grant is not', async () => {
    const inner = join(granted, 'out');
    mkdirSync(inner, { recursive: true });
    const sandboxed = await start(probeTarget(), { read: [granted], write: [inner], network: false });
    expect(await call(sandboxed, 'write_file', { path: join(inner, 'a.txt'), text: 'a' })).toEqual({
      text: 'written',
      isError: false,
    });
    expect(await call(sandboxed, 'write_file', { path: join(granted, 'b.txt'), text: 'b' })).toEqual({
      text: 'EROFS',
      isError: true,
    });
  });

  test('without the network it cannot reach a TCP server on the host (the unsandboxed twin can)', async () => {
    const sandboxed = await start(probeTarget(), NO_GRANT);
    const twin = await start(probeTarget());
    const refused = await call(sandboxed, 'connect', { host: '127.0.0.1', port });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^E[A-Z]+$/);
    expect(await call(twin, 'connect', { host: '127.0.0.1', port })).toEqual({
      text: 'connected',
      isError: false,
    });
  });

  test('with "network": true it reaches the host network', async () => {
    const sandboxed = await start(probeTarget(), { read: [], write: [], network: true });
    expect(await call(sandboxed, 'connect', { host: '127.0.0.1', port })).toEqual({
      text: 'connected',
      isError: false,
    });
  });

  test('HOME is the home folder when that is granted', async () => {
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    const sandboxed = await start(probeTarget(), { read: [home], write: [], network: false }, { home });
    const who = JSON.parse((await call(sandboxed, 'whoami')).text) as { home: string };
    expect(who.home).toBe(home);
  });

  test('an npx -y server resolves to its installed package and starts in the sandbox', async () => {
    const memory = await connectMcpServer(
      sandboxedCommand(
        {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: { MEMORY_FILE_PATH: '/tmp/memory.jsonl' },
          cwd: projectRoot,
        },
        NO_GRANT,
        { server: 'memory', searchFrom: [projectRoot], cacheDir: join(root, 'npx-cache') },
      ),
      { era: 'legacy' },
    );
    open.push(memory);
    const { tools } = await memory.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['create_entities', 'read_graph', 'search_nodes']),
    );
    await memory.client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'gateway', entityType: 'test', observations: ['sandboxed'] }] },
    });
    const graph = await memory.client.callTool({ name: 'read_graph', arguments: {} });
    expect(JSON.stringify(graph)).toContain('sandboxed');
  });

  test('closing the connection ends bubblewrap and the server; none is left', async () => {
    const marker = `probe_${randomUUID().replaceAll('-', '')}`;
    const sandboxed = await start(probeTarget({ PROBE_MARKER: marker }), NO_GRANT);
    await call(sandboxed, 'whoami');
    expect(processesWith(marker)).toBeGreaterThan(0);
    await sandboxed.close();
    // bubblewrap has exited when close() returns; the kernel ends the rest of its PID namespace
    // right after, so the count is awaited rather than read once.
    await until(() => processesWith(marker) === 0, 'no process of the sandbox is left', 5_000);
    expect(processesWith(marker)).toBe(0);
  });

  // As root the server is root with no capabilities (the tests above); as any other user it is that
  // user. Running as root, this starts the whole path as the unprivileged user "nobody".
  test.runIf(process.getuid?.() === 0)(
    'as an unprivileged user, the server runs as that user and reaches its own private files',
    async () => {
      const dir = join(root, 'nobody');
      mkdirSync(dir);
      chmodSync(root, 0o755);
      chmodSync(dir, 0o755);
      const own = join(dir, 'own');
      mkdirSync(own, { mode: 0o700 });
      writeFileSync(join(own, 'private.txt'), 'nobody only', { mode: 0o600 });
      chownSync(own, NOBODY, NOBODY);
      chownSync(join(own, 'private.txt'), NOBODY, NOBODY);
      const moduleUrl = (path: string) => JSON.stringify(pathToFileURL(join(projectRoot, path)).href);
      const output = await runAsNobody(
        [
          `import { sandboxedCommand } from ${moduleUrl('src/gateway/sandbox-server.ts')};`,
          `import { connectMcpServer } from ${moduleUrl('src/mcp/connect.ts')};`,
          `const own = ${JSON.stringify(own)};`,
          `const command = sandboxedCommand({ command: 'node', args: [${JSON.stringify(PROBE)}], env: {} }, { read: [], write: [own], network: false }, { home: '/nonexistent' });`,
          'const connection = await connectMcpServer(command);',
          'const text = async (name, args = {}) => (await connection.client.callTool({ name, arguments: args })).content[0].text;',
          'const who = JSON.parse(await text("whoami"));',
          `const read = await text('read_file', { path: own + '/private.txt' });`,
          `const wrote = await text('write_file', { path: own + '/new.txt', text: 'by nobody' });`,
          'await connection.close();',
          'process.stdout.write(JSON.stringify({ uid: process.getuid(), who, read, wrote }));',
        ].join('\n'),
        projectRoot,
      );
      expect(JSON.parse(output)).toEqual({
        uid: NOBODY,
        who: { uid: NOBODY, gid: NOBODY, cwd: '/tmp', home: '/tmp' },
        read: 'nobody only',
        wrote: 'written',
      });
      expect(readFileSync(join(own, 'new.txt'), 'utf8')).toBe('by nobody');
    },
  );
});

// These need no bubblewrap: a server that cannot be sandboxed is refused before anything starts.
describe('a server that cannot be sandboxed is not started', () => {
  const refusal = (run: () => unknown): SandboxUnavailableError => {
    try {
      run();
    } catch (error) {
      if (error instanceof SandboxUnavailableError) return error;
      throw error;
    }
    throw new Error('expected a SandboxUnavailableError');
  };

  test('without bubblewrap it is refused, naming the server and how to install it', () => {
    const error = refusal(() =>
      sandboxedCommand(probeTarget(), NO_GRANT, { server: 'notes', bwrap: join(root, 'no-such-bwrap') }),
    );
    expect(error.code).toBe('bubblewrap_missing');
    expect(error.server).toBe('notes');
    expect(error.message).toContain('"notes"');
    expect(error.message).toContain('apt-get install bubblewrap');
    expect(error.message).toContain('never runs unconfined');
    expect(findBubblewrap(join(root, 'empty-path'))).toBeUndefined();
  });

  test('a bwrap that cannot set up the sandbox fails the connection with its reason', async () => {
    const command = sandboxedCommand(probeTarget(), NO_GRANT, { server: 'probe', bwrap: failingBwrap });
    await expect(connectMcpServer(command)).rejects.toThrow(/setting up uid map: Permission denied/);
  });

  test('an npx package that is not installed is refused: install it first, and why', () => {
    const error = refusal(() =>
      sandboxedCommand(
        { command: 'npx', args: ['-y', '@toolpact-test/not-installed@1.0.0', '--flag'], env: {} },
        NO_GRANT,
        {
          server: 'absent',
          bwrap: failingBwrap,
          searchFrom: [root],
          cacheDir: join(root, 'npx-cache'),
          config: 'mcp.json',
        },
      ),
    );
    expect(error.code).toBe('package_not_installed');
    expect(error.message).toContain('toolpact gateway check --config mcp.json --install');
    expect(error.message).toContain('npm install -g @toolpact-test/not-installed@1.0.0');
    expect(error.message).toContain('no network and no npm cache');
  });

  test('launchers that fetch at start other than npx are refused with a reason', () => {
    for (const target of [
      { command: 'pnpm', args: ['dlx', 'some-server'], env: {} },
      { command: 'bunx', args: ['some-server'], env: {} },
      { command: 'uvx', args: ['mcp-server-fetch'], env: {} },
    ]) {
      expect(
        refusal(() => sandboxedCommand(target, NO_GRANT, { server: 'x', bwrap: failingBwrap })).code,
      ).toBe('unsupported_launcher');
    }
  });

  test('a granted path that does not exist is an error naming it', () => {
    const missing = join(root, 'not-there');
    const error = refusal(() =>
      sandboxedCommand(
        probeTarget(),
        { read: [], write: [missing], network: false },
        { server: 'notes', bwrap: failingBwrap },
      ),
    );
    expect(error.code).toBe('invalid_grant');
    expect(error.message).toContain(missing);
    expect(error.message).toContain('toolpact.servers.notes.sandbox.write');
    for (const path of ['relative/path', '/', '/proc/self']) {
      expect(
        refusal(() =>
          sandboxedCommand(
            probeTarget(),
            { read: [path], write: [], network: false },
            { bwrap: failingBwrap },
          ),
        ).code,
      ).toBe('invalid_grant');
    }
  });

  test('a command that is not on PATH is refused', () => {
    expect(
      refusal(() =>
        sandboxedCommand({ command: 'no-such-server-program', args: [], env: {} }, NO_GRANT, {
          bwrap: failingBwrap,
        }),
      ).code,
    ).toBe('command_not_found');
  });
});

describe('npx lines', () => {
  test('are taken apart in their common forms', () => {
    expect(parseNpxCommand({ command: 'npx', args: ['-y', '@playwright/mcp@latest', '--headless'] })).toEqual(
      {
        spec: '@playwright/mcp@latest',
        name: '@playwright/mcp',
        version: 'latest',
        args: ['--headless'],
      },
    );
    expect(parseNpxCommand({ command: '/usr/bin/npx', args: ['--yes', 'server@1.2.3'] })).toEqual({
      spec: 'server@1.2.3',
      name: 'server',
      version: '1.2.3',
      args: [],
    });
    expect(
      parseNpxCommand({ command: 'npx', args: ['-y', '-p', '@scope/tools', 'tools-mcp', '/srv'] }),
    ).toEqual({ spec: '@scope/tools', name: '@scope/tools', bin: 'tools-mcp', args: ['/srv'] });
    for (const args of [['-y', 'github:owner/repo'], ['-y', './local'], ['--registry', 'x', 'pkg'], ['-y']]) {
      expect(parseNpxCommand({ command: 'npx', args })).toHaveProperty('unresolved');
    }
  });

  test('resolve to node and the bin of the installed package, checking an exact version', () => {
    const options = { searchFrom: [join(projectRoot, 'test')], cacheDir: join(root, 'npx-cache') };
    const installed = JSON.parse(
      readFileSync(
        join(projectRoot, 'node_modules/@modelcontextprotocol/server-memory/package.json'),
        'utf8',
      ),
    ) as { version: string };
    const resolved = resolveNpxCommand(
      { command: 'npx', args: ['-y', `@modelcontextprotocol/server-memory@${installed.version}`, 'extra'] },
      options,
    );
    // By its real path: node_modules may be a link (a workspace, a linked install).
    const packageDir = realpathSync(join(projectRoot, 'node_modules/@modelcontextprotocol/server-memory'));
    expect(resolved).toEqual({
      command: process.execPath,
      args: [join(packageDir, 'dist/index.js'), 'extra'],
      packageDir,
    });
    const other = resolveNpxCommand(
      { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory@0.0.1'] },
      options,
    );
    expect(other).toEqual({ unresolved: expect.stringContaining(`installed: ${installed.version}`) });
  });

  test('a package in the install cache is found there', () => {
    const cacheDir = join(root, 'cache');
    const packageDir = join(cacheDir, 'node_modules', '@scope', 'cached-server');
    mkdirSync(join(packageDir, 'bin'), { recursive: true });
    writeFileSync(
      join(packageDir, 'package.json'),
      JSON.stringify({
        name: '@scope/cached-server',
        version: '2.1.0',
        bin: { other: 'x.js', 'cached-server': 'bin/cli.js' },
      }),
    );
    writeFileSync(join(packageDir, 'bin', 'cli.js'), '#!/usr/bin/env node\n');
    const resolved = resolveNpxCommand(
      { command: 'npx', args: ['-y', '@scope/cached-server@^2.0.0'] },
      { searchFrom: [outside], cacheDir },
    );
    expect(resolved).toEqual({
      command: process.execPath,
      args: [join(packageDir, 'bin', 'cli.js')],
      packageDir,
    });
  });
});
