// The gateway in front of the published MCP servers installed as devDependencies (memory, filesystem,
// sequential-thinking, everything, @playwright/mcp with Debian's Chromium), each entry written as a
// user's config writes it. Nothing here reaches the network: a sandboxed `npx -y <package>` entry is
// resolved by the gateway to the installed package, and an unsandboxed entry starts the package's
// bin with node, as `npx` would once the package is installed.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.js';
import { type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';
import { createPolicyGate } from '../../src/policy/index.js';
import { CHROMIUM, HAS_CHROMIUM, REQUIRE_BROWSER } from '../studio/support.js';
import { bubblewrap } from '../support/bubblewrap.js';
import { until, workspace } from './support.js';

const FILE = 'test/gateway/real-servers.test.ts';
// Five servers start in parallel, each probed for its era first: generous on a busy two-core machine.
const TIMEOUT = 90_000;

/** Whether to skip the cases that drive Chromium: only without it and outside CI, saying so once. */
function skipWithoutChromium(): boolean {
  if (HAS_CHROMIUM) return false;
  if (REQUIRE_BROWSER) {
    throw new Error(
      `${FILE}: TOOLPACT_REQUIRE_BROWSER=1 but ${CHROMIUM} does not exist. Install it: apt-get install chromium`,
    );
  }
  process.stderr.write(
    `Skipping the gateway's Chromium cases (${FILE}): no Chromium at ${CHROMIUM}. Install it with: apt-get install chromium\n`,
  );
  return true;
}
const noChromium = skipWithoutChromium();

const require = createRequire(import.meta.url);

/** The installed package's bin script, as `npx -y <package>` would run it. */
function binOf(name: string): string {
  const manifestPath = require.resolve(`${name}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0]!;
  return realpathSync(join(dirname(manifestPath), bin));
}

const BIN = {
  memory: binOf('@modelcontextprotocol/server-memory'),
  filesystem: binOf('@modelcontextprotocol/server-filesystem'),
  thinking: binOf('@modelcontextprotocol/server-sequential-thinking'),
  everything: binOf('@modelcontextprotocol/server-everything'),
  playwright: binOf('@playwright/mcp'),
};

/**
 * The @playwright/mcp recipe: headless, on Debian's Chromium, with a throwaway profile, and Chromium's
 * own sandbox off (it needs user namespaces, which it cannot have inside bubblewrap, nor as root).
 */
const PLAYWRIGHT_ARGS = ['--headless', '--executable-path', CHROMIUM, '--isolated', '--no-sandbox'];
/**
 * All Debian's Chromium reads beyond /usr and the sandbox's own few /etc files: its launcher script
 * sources every file in /etc/chromium.d and stops when there is none.
 */
const CHROMIUM_READ = ['/etc/chromium.d'];

/** Every imported tool allowed, so that no call waits for an approval. */
const allowImported = () =>
  createPolicyGate({ rules: [{ id: 'allow-imported', action: 'allow', source: 'mcp:*' }] }).registryOptions;

/** A binary limit under the size of server-everything's tiny image (4 KB), for the gateway's config. */
const TINY_LIMIT = 1_024;

/** Every imported tool allowed but `get-env`, which the gateway itself refuses. */
const allowImportedButEnv = () =>
  createPolicyGate({
    rules: [
      { id: 'no-env', action: 'deny', tool: 'get-env' },
      { id: 'allow-imported', action: 'allow', source: 'mcp:*' },
    ],
  }).registryOptions;

/** The gateway's MCP face, served in process over HTTP, and an SDK client of it. */
async function mcpFace(gateway: Gateway) {
  const served: RunningHttpServer = await serveHttp(gateway.registry, { listing: gateway.listing });
  const client = new Client({ name: 'host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  return {
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as {
        content: { type: string; text?: string; data?: string; mimeType?: string }[];
        isError?: boolean;
      },
    close: async () => {
      await client.close();
      await served.close();
    },
  };
}

/** An unsandboxed entry: node and the installed bin, started in `cwd` (so nothing lands in the repository). */
const unsandboxed = (bin: string, args: string[], env: Record<string, string>, cwd: string) => ({
  command: process.execPath,
  args: [bin, ...args],
  env,
  cwd,
});

/** A server's tools as the gateway lists them: pinned tools in lock order, by name. */
const inLockOrder = (names: readonly string[]) => [...names].sort();

// What each server lists (their tools collide with none of the others', so none is prefixed).
const TOOLS = {
  memory: [
    'create_entities',
    'create_relations',
    'add_observations',
    'delete_entities',
    'delete_observations',
    'delete_relations',
    'read_graph',
    'search_nodes',
    'open_nodes',
  ],
  filesystem: [
    'read_file',
    'read_text_file',
    'read_media_file',
    'read_multiple_files',
    'write_file',
    'edit_file',
    'create_directory',
    'list_directory',
    'list_directory_with_sizes',
    'directory_tree',
    'move_file',
    'search_files',
    'get_file_info',
    'list_allowed_directories',
  ],
  thinking: ['sequentialthinking'],
  everything: [
    'echo',
    'get-annotated-message',
    'get-env',
    'get-resource-links',
    'get-resource-reference',
    'get-structured-content',
    'get-sum',
    'get-tiny-image',
    'gzip-file-as-resource',
    'toggle-simulated-logging',
    'toggle-subscriber-updates',
    'trigger-long-running-operation',
    'simulate-research-query',
    // Offered to a client that declares sampling and elicitation, as the gateway does.
    'trigger-sampling-request',
    'trigger-elicitation-request',
  ],
  playwright: [
    'browser_close',
    'browser_resize',
    'browser_console_messages',
    'browser_handle_dialog',
    'browser_emulate_media',
    'browser_evaluate',
    'browser_file_upload',
    'browser_drop',
    'browser_find',
    'browser_fill_form',
    'browser_press_key',
    'browser_type',
    'browser_navigate',
    'browser_navigate_back',
    'browser_network_requests',
    'browser_network_request',
    'browser_run_code_unsafe',
    'browser_take_screenshot',
    'browser_snapshot',
    'browser_click',
    'browser_drag',
    'browser_hover',
    'browser_select_option',
    'browser_tabs',
    'browser_wait_for',
  ],
};

// ---- processes, read from /proc --------------------------------------------------------------------

interface Proc {
  readonly pid: number;
  /** The start time in clock ticks since boot: a pid reused by another process has another. */
  readonly start: string;
  readonly command: string;
}

interface ProcEntry extends Proc {
  readonly ppid: number;
  readonly state: string;
}

function procEntry(pid: number): ProcEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the parenthesised command name: state, ppid, …, starttime (the 20th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    let command = '';
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    } catch {
      // A zombie has no command line.
    }
    return { pid, ppid: Number(fields[1]), state: fields[0]!, start: fields[19]!, command };
  } catch {
    return undefined;
  }
}

function processTable(): ProcEntry[] {
  const table: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const entry = procEntry(Number(name));
    if (entry) table.push(entry);
  }
  return table;
}

/**
 * The live processes this test process started (its descendants, through bubblewrap and Chromium's
 * forks), with those that carry `marker` in their command line or environment wherever they now hang.
 */
function serverProcesses(marker: string, before: ReadonlySet<number>): ProcEntry[] {
  const table = processTable().filter((entry) => entry.state !== 'Z');
  const children = new Map<number, ProcEntry[]>();
  for (const entry of table) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  const found = new Map<number, ProcEntry>();
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (!before.has(child.pid)) found.set(child.pid, child);
      walk(child.pid);
    }
  };
  walk(process.pid);
  for (const entry of table) {
    if (found.has(entry.pid)) continue;
    let environment = '';
    try {
      environment = readFileSync(`/proc/${entry.pid}/environ`, 'utf8');
    } catch {
      // Gone since the listing, or not ours to read.
    }
    if (entry.command.includes(marker) || environment.includes(marker)) found.set(entry.pid, entry);
  }
  return [...found.values()];
}

/** The descendants this test process has before a gateway starts (none of them is a server). */
function descendantsNow(): Set<number> {
  return new Set(serverProcesses(randomUUID(), new Set()).map((proc) => proc.pid));
}

/** npx itself (or npm under it), which fetches a package from the network. */
function viaNpx(proc: Proc): boolean {
  const [program = '', script = ''] = proc.command.split(' ');
  return basename(program) === 'npx' || /np[mx]-cli\.js$/.test(script);
}

/** Still running: the same process (same start time), not a zombie waiting to be reaped. */
function running(proc: Proc): boolean {
  const now = procEntry(proc.pid);
  return now !== undefined && now.start === proc.start && now.state !== 'Z';
}

/**
 * Closes the gateway and waits until none of `processes` runs, nor any other process this test started
 * or that carries `marker` (a browser's helper that outlived its parent would): all are gone, or it fails.
 */
async function closeAndExpectNoneLeft(
  gateway: Gateway,
  processes: readonly Proc[],
  marker: string,
  before: ReadonlySet<number>,
) {
  await gateway.close();
  let left: Proc[] = [];
  await until(() => {
    left = [...processes.filter(running), ...serverProcesses(marker, before)];
    return left.length === 0;
  }, 'every server process ended').catch((error: Error) => {
    throw new Error(`${error.message}; still running: ${left.map((proc) => proc.command).join(' | ')}`);
  });
}

/** A page on the host's loopback, for the browsers to reach (or not). */
let host: Server;
let hostUrl: string;
beforeAll(async () => {
  host = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>host</title><h1>served by the host</h1>');
  });
  await new Promise<void>((done) => host.listen(0, '127.0.0.1', done));
  hostUrl = `http://127.0.0.1:${(host.address() as { port: number }).port}/`;
});
afterAll(async () => {
  host.closeAllConnections();
  await new Promise<void>((done) => host.close(() => done()));
});

const text = (result: unknown) => JSON.stringify(result);

// ---- five servers, unsandboxed ----------------------------------------------------------------------

describe('five published servers behind one gateway', () => {
  const ws = workspace();

  /**
   * The five servers as a config names them, started from node_modules, each with `marker`, and
   * toolpact's section when given.
   */
  const fiveServers = (marker: string, toolpact?: Record<string, unknown>) => {
    const dir = realpathSync(ws.dir);
    const files = join(dir, 'files');
    mkdirSync(files, { recursive: true });
    const env = { TOOLPACT_TEST_MARKER: marker };
    ws.write('config.json', {
      mcpServers: {
        memory: unsandboxed(BIN.memory, [], { ...env, MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }, dir),
        filesystem: unsandboxed(BIN.filesystem, [files], env, dir),
        thinking: unsandboxed(BIN.thinking, [], { ...env, DISABLE_THOUGHT_LOGGING: 'true' }, dir),
        everything: unsandboxed(BIN.everything, [], env, dir),
        playwright: unsandboxed(BIN.playwright, PLAYWRIGHT_ARGS, env, dir),
      },
      ...(toolpact ? { toolpact } : {}),
    });
    return { files };
  };

  test(
    'all five come up, keep their own tool names, and each answers a call',
    async () => {
      const { files } = fiveServers(randomUUID(), { maxBinaryBytes: TINY_LIMIT });
      const gateway = await ws.start({ registry: allowImportedButEnv() });

      const status = gateway.status();
      expect(status.map((server) => [server.name, server.state, server.unsandboxed])).toEqual([
        ['memory', 'up', true],
        ['filesystem', 'up', true],
        ['thinking', 'up', true],
        ['everything', 'up', true],
        ['playwright', 'up', true],
      ]);
      // No two of these servers share a tool name (nor a provider's alias of one), so none is prefixed.
      for (const server of status) {
        expect(server.served, server.name).toEqual(inLockOrder(TOOLS[server.name as keyof typeof TOOLS]));
        expect(server.skipped, server.name).toEqual([]);
      }
      expect(gateway.listing.schemas()).toHaveLength(Object.values(TOOLS).flat().length);
      expect(gateway.registry.get('get-sum')?.meta).toMatchObject({
        source: 'mcp:everything',
        server: 'everything',
      });

      // memory: an entity goes into its graph and comes back out.
      const created = await gateway.registry.call('create_entities', {
        entities: [{ name: 'toolpact', entityType: 'project', observations: ['runs a gateway'] }],
      });
      expect(created, text(created)).toMatchObject({ ok: true });
      const graph = await gateway.registry.call('read_graph', {});
      expect(graph, text(graph)).toMatchObject({ ok: true });
      expect(text(graph)).toContain('runs a gateway');
      expect(readFileSync(ws.path('memory.jsonl'), 'utf8')).toContain('runs a gateway');

      // filesystem: a file written in its folder is read back, and is there on the disk.
      const file = join(files, 'note.txt');
      const wrote = await gateway.registry.call('write_file', { path: file, content: 'through the gateway' });
      expect(wrote, text(wrote)).toMatchObject({ ok: true });
      expect(readFileSync(file, 'utf8')).toBe('through the gateway');
      expect(await gateway.registry.call('read_text_file', { path: file })).toEqual({
        ok: true,
        result: { content: 'through the gateway' },
      });

      // sequential-thinking: one thought, and the server's account of it.
      const thought = await gateway.registry.call('sequentialthinking', {
        thought: 'The gateway forwards this thought unchanged.',
        thoughtNumber: 1,
        totalThoughts: 1,
        nextThoughtNeeded: false,
      });
      expect(thought, text(thought)).toMatchObject({
        ok: true,
        result: { thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false, thoughtHistoryLength: 1 },
      });

      // everything: echo.
      expect(await gateway.registry.call('echo', { message: 'hello through the gateway' })).toEqual({
        ok: true,
        result: 'Echo: hello through the gateway',
      });

      // The MCP face passes on what the gate let through as the server sent it, within the config's
      // binary limit, and speaks for itself only when it refuses.
      const face = await mcpFace(gateway);
      try {
        const upstream = await gateway.registry.call('get-tiny-image', {});
        const upstreamImage = upstream.ok
          ? (upstream.result as { type: string; data?: string }[]).find((block) => block.type === 'image')
          : undefined;
        expect(Buffer.from(upstreamImage?.data ?? '', 'base64').length).toBeGreaterThan(TINY_LIMIT);
        const limited = await face.call('get-tiny-image', {});
        expect(limited.content.filter((block) => block.type === 'image')).toEqual([]);
        expect(limited.content).toContainEqual({
          type: 'text',
          text: expect.stringMatching(
            /an image \(image\/png\) of \d+ bytes was left out: .* at most 1024 bytes/,
          ),
        });

        const missing = await face.call('read_text_file', { path: join(files, 'missing.txt') });
        expect(missing.isError).toBe(true);
        expect(missing.content).toEqual([{ type: 'text', text: expect.stringMatching(/ENOENT/) }]);
        expect(missing.content[0]?.text).not.toMatch(/^\{"ok":/);

        const denied = await face.call('get-env', {});
        expect(denied.isError).toBe(true);
        expect(JSON.parse(denied.content[0]?.text ?? '')).toMatchObject({
          ok: false,
          error: { type: 'permission_denied', rule: 'no-env' },
        });
        expect(JSON.stringify(denied)).not.toContain('TOOLPACT_TEST_MARKER');
      } finally {
        await face.close();
      }
    },
    TIMEOUT,
  );

  test(
    'after close, no process of the five servers (nor the Chromium the browser server started) remains',
    async () => {
      const marker = randomUUID();
      fiveServers(marker);
      const before = descendantsNow();
      const gateway = await ws.start({ registry: allowImported() });
      // Under the default binary limit the server's image reaches the gateway's MCP client as it was sent.
      const face = await mcpFace(gateway);
      try {
        const image = await face.call('get-tiny-image', {});
        const upstream = await gateway.registry.call('get-tiny-image', {});
        expect(image.isError).toBeUndefined();
        expect(image.content).toEqual(upstream.ok ? upstream.result : undefined);
        expect(image.content.filter((block) => block.type === 'image')).toEqual([
          { type: 'image', data: expect.stringMatching(/^iVBORw0KGgo/), mimeType: 'image/png' },
        ]);
      } finally {
        await face.close();
      }
      if (!noChromium) {
        // Chromium starts with the first browser tool; this one also reaches the host (the control of
        // the sandboxed browser below, which cannot).
        const page = await gateway.registry.call('browser_navigate', { url: hostUrl });
        expect(page, text(page)).toMatchObject({ ok: true });
        const snapshot = await gateway.registry.call('browser_snapshot', {});
        expect(text(snapshot)).toContain('heading \\"served by the host\\"');
        // A screenshot reaches the gateway's MCP client as an image block, not as base64 in JSON text.
        const face = await mcpFace(gateway);
        try {
          const shot = await face.call('browser_take_screenshot', { type: 'png' });
          expect(shot.isError).toBeUndefined();
          const images = shot.content.filter((block) => block.type === 'image');
          expect(images).toEqual([{ type: 'image', data: expect.any(String), mimeType: 'image/png' }]);
          expect(
            Buffer.from(images[0]?.data ?? '', 'base64')
              .subarray(1, 4)
              .toString(),
          ).toBe('PNG');
          expect(JSON.stringify(shot.content.filter((block) => block.type === 'text'))).not.toContain(
            images[0]?.data?.slice(0, 64),
          );
        } finally {
          await face.close();
        }
      }
      const processes = serverProcesses(marker, before);
      for (const bin of Object.values(BIN)) {
        expect(
          processes.some((proc) => proc.command.includes(bin)),
          `a process runs ${bin}`,
        ).toBe(true);
      }
      if (!noChromium) {
        expect(processes.filter((proc) => /\bchromium\b/.test(proc.command)).length).toBeGreaterThan(0);
      }
      // Nothing went through npx (which would fetch from the network).
      expect(processes.filter(viaNpx)).toEqual([]);
      await closeAndExpectNoneLeft(gateway, processes, marker, before);
    },
    TIMEOUT,
  );
});

// ---- sandboxed ----------------------------------------------------------------------------------------

describe.runIf(bubblewrap.ok)('published servers in the sandbox', () => {
  const ws = workspace();

  test(
    'server-filesystem started by npx writes in its grant; the sandbox, not the server, refuses the rest (its unsandboxed twin reads it)',
    async () => {
      const marker = randomUUID();
      const dir = realpathSync(ws.dir);
      const notes = join(dir, 'notes');
      const secret = join(dir, 'private', 'secret.txt');
      mkdirSync(notes);
      mkdirSync(dirname(secret));
      writeFileSync(secret, 'the-host-secret');
      // Both are given the notes folder AND the folder above it: the server itself would allow both.
      const args = [notes, dir];
      ws.write('config.json', {
        mcpServers: {
          fs: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', ...args],
            env: { TOOLPACT_TEST_MARKER: marker },
          },
          twin: unsandboxed(BIN.filesystem, args, { TOOLPACT_TEST_MARKER: marker }, dir),
        },
        toolpact: { servers: { fs: { sandbox: { read: [], write: [notes], network: false } } } },
      });
      const before = descendantsNow();
      const gateway = await ws.start({
        registry: allowImported(),
        sandbox: { packageCache: join(dir, 'npx-cache') },
      });
      expect(gateway.status().map((server) => [server.name, server.state, server.unsandboxed])).toEqual([
        ['fs', 'up', false],
        ['twin', 'up', true],
      ]);
      // The same tools twice: the server first in the config keeps the names, the second is prefixed.
      const [fs, twin] = gateway.status();
      expect(fs?.served).toEqual(inLockOrder(TOOLS.filesystem));
      expect(twin?.served).toEqual(inLockOrder(TOOLS.filesystem).map((name) => `twin_${name}`));

      // The sandboxed server was resolved to the installed package and runs under bubblewrap, never npx.
      const processes = serverProcesses(marker, before);
      const servers = processes.filter((proc) =>
        proc.command.startsWith(`${process.execPath} ${BIN.filesystem}`),
      );
      const bwrap = new Set(
        processes.filter((proc) => /\bbwrap\b/.test(proc.command)).map((proc) => proc.pid),
      );
      expect(servers.some((proc) => bwrap.has(proc.ppid))).toBe(true);
      expect(servers.some((proc) => proc.ppid === process.pid)).toBe(true);
      expect(processes.filter(viaNpx)).toEqual([]);

      // Inside its grant it writes and lists.
      const wrote = await gateway.registry.call('write_file', {
        path: join(notes, 'todo.md'),
        content: 'written in the sandbox',
      });
      expect(wrote, text(wrote)).toMatchObject({ ok: true });
      expect(readFileSync(join(notes, 'todo.md'), 'utf8')).toBe('written in the sandbox');
      expect(await gateway.registry.call('list_directory', { path: notes })).toEqual({
        ok: true,
        result: { content: '[FILE] todo.md' },
      });

      // The server believes it may read the folder above…
      const allowed = await gateway.registry.call('list_allowed_directories', {});
      expect(text(allowed)).toContain(`${notes}\\n${dir}`);
      // …but the sandbox shows it nothing there: the file is not found (the server did not refuse it).
      const refused = await gateway.registry.call('read_text_file', { path: secret });
      expect(refused, text(refused)).toMatchObject({ ok: false, error: { type: 'mcp_tool_error' } });
      if (refused.ok) return;
      expect(refused.error.message).toMatch(/ENOENT/);
      expect(refused.error.message).not.toMatch(/denied|outside allowed/i);
      expect(refused.error.message).not.toContain('the-host-secret');
      // A write there lands in the sandbox's own private space, never on the host.
      await gateway.registry.call('write_file', { path: join(dir, 'escaped.txt'), content: 'x' });
      expect(existsSync(join(dir, 'escaped.txt'))).toBe(false);

      // The control: the same server with the same arguments, unsandboxed, reads the file.
      expect(await gateway.registry.call('twin_read_text_file', { path: secret })).toEqual({
        ok: true,
        result: { content: 'the-host-secret' },
      });

      await closeAndExpectNoneLeft(gateway, processes, marker, before);
    },
    TIMEOUT,
  );

  test.skipIf(noChromium)(
    '@playwright/mcp drives Chromium in the sandbox without the network, and leaves no process behind',
    async () => {
      const marker = randomUUID();
      ws.write('config.json', {
        mcpServers: {
          browser: {
            command: 'npx',
            args: ['-y', '@playwright/mcp@latest', ...PLAYWRIGHT_ARGS],
            env: { TOOLPACT_TEST_MARKER: marker },
          },
        },
        toolpact: { servers: { browser: { sandbox: { read: CHROMIUM_READ, write: [], network: false } } } },
      });
      const before = descendantsNow();
      const gateway = await ws.start({
        registry: allowImported(),
        sandbox: { packageCache: join(realpathSync(ws.dir), 'npx-cache') },
      });
      expect(gateway.status()).toMatchObject([
        { name: 'browser', state: 'up', unsandboxed: false, served: inLockOrder(TOOLS.playwright) },
      ]);

      const page = await gateway.registry.call('browser_navigate', {
        url: 'data:text/html,<title>sandboxed</title><h1>hello gateway</h1>',
      });
      expect(page, text(page)).toMatchObject({ ok: true });
      const snapshot = await gateway.registry.call('browser_snapshot', {});
      expect(snapshot, text(snapshot)).toMatchObject({ ok: true });
      expect(text(snapshot)).toContain('heading \\"hello gateway\\"');

      // Its network is its own: the host's page (which the unsandboxed browser above reaches) is not there.
      const unreachable = await gateway.registry.call('browser_navigate', { url: hostUrl });
      expect(unreachable, text(unreachable)).toMatchObject({ ok: false });
      expect(text(unreachable)).toMatch(/net::ERR_/);
      expect(text(unreachable)).not.toContain('served by the host');

      const processes = serverProcesses(marker, before);
      expect(processes.some((proc) => /\bbwrap\b/.test(proc.command))).toBe(true);
      expect(processes.some((proc) => proc.command.includes(BIN.playwright))).toBe(true);
      expect(processes.filter((proc) => /\bchromium\b/.test(proc.command)).length).toBeGreaterThan(0);
      await closeAndExpectNoneLeft(gateway, processes, marker, before);
    },
    TIMEOUT,
  );
});
