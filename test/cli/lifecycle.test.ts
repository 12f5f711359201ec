// The CLI as a user runs it (`toolpact …`, a process of its own) on modules that hold live things: an imported MCP
// server (the reference "memory" server over stdio), a socket and a timer the module never attaches, a
// resource whose close never settles. One-shot commands print and end on their own; long-running ones
// end on SIGINT or SIGTERM; no server process is left behind.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.js';
import { toolpactArgs } from '../support/cli-build.js';
import { isServerMemoryAlive, SERVER_MEMORY_BIN, serverMemoryProcesses } from '../support/server-memory.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sourceEntry = JSON.stringify(join(projectRoot, 'src', 'index.ts'));
const mcpEntry = JSON.stringify(join(projectRoot, 'src', 'mcp', 'index.ts'));
/** Far beyond what any command takes, even on a crowded machine: past it, the process hung. */
const HUNG_MS = 60_000;
const TEST_TIMEOUT = 120_000;

let dir: string;
/** Pid files and memory files: outside the modules' folder, which `studio` watches. */
let state: string;
let runs = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-lifecycle-'));
  state = join(dir, 'state');
  mkdirSync(state);
  // Imports the memory server and writes the pid of the process it started where the test says.
  writeFileSync(
    join(dir, 'memory.mts'),
    [
      `import { writeFileSync } from 'node:fs';`,
      `import { Registry } from ${sourceEntry};`,
      `import { importMcpTools } from ${mcpEntry};`,
      `export const registry = new Registry();`,
      `const imported = await importMcpTools(`,
      `  registry,`,
      `  { command: process.execPath, args: [${JSON.stringify(SERVER_MEMORY_BIN)}], env: { MEMORY_FILE_PATH: process.env.LIFECYCLE_MEMORY_FILE } },`,
      `  { name: 'memory' },`,
      `);`,
      `writeFileSync(process.env.LIFECYCLE_PID_FILE, String(imported.client.transport.pid));`,
      '',
    ].join('\n'),
  );
  // Leaves a listening socket and an interval running, attached to nothing.
  writeFileSync(
    join(dir, 'stray.mts'),
    [
      `import { createServer } from 'node:net';`,
      `import { defineTool } from ${sourceEntry};`,
      `createServer().listen(0, '127.0.0.1');`,
      `setInterval(() => {}, 1_000);`,
      `export const hello = defineTool({ name: 'hello', description: 'Say hello.', category: 'read', execute: () => 'hello' });`,
      '',
    ].join('\n'),
  );
  // Attach a resource whose close never settles, and one whose close fails.
  const attaching = (resource: string) =>
    [
      `import { defineTool, Registry } from ${sourceEntry};`,
      `export const registry = new Registry().register(`,
      `  defineTool({ name: 'hello', description: 'Say hello.', category: 'read', execute: () => 'hello' }),`,
      `);`,
      `registry.own(${resource});`,
      '',
    ].join('\n');
  writeFileSync(join(dir, 'stubborn.mts'), attaching('{ close: () => new Promise(() => {}) }'));
  writeFileSync(join(dir, 'failing.mts'), attaching(`() => { throw new Error('the lock file is gone'); }`));
});

// A test that fails before it stops its command must not leave the command running (and with it
// the servers it started) once the worker ends: every run still alive is ended after each test.
// It is asked to stop first (SIGTERM, so it ends the servers it started), and killed if it has not
// within 10 s.
const live = new Set<{ readonly child: ChildProcess; readonly ended: Promise<unknown> }>();
afterEach(async () => {
  for (const { child, ended } of live) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await ended;
    clearTimeout(killer);
  }
  live.clear();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** The exit code and signal, once the process has ended and its output is read. */
  readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stderr matches `pattern`. */
  readonly stderrMatches: (pattern: RegExp) => Promise<void>;
  readonly pidFile: string;
  /** The memory server's file for this run: every server this run started has it in its environment. */
  readonly memoryFile: string;
}

/** `toolpact <args>` as a process, with its own pid file and memory file; killed if it hangs. */
function start(args: readonly string[], env: Record<string, string> = {}): Run {
  const id = ++runs;
  const pidFile = join(state, `server-${id}.pid`);
  const memoryFile = join(state, `memory-${id}.jsonl`);
  const child = spawn(process.execPath, toolpactArgs(...args), {
    cwd: dir,
    env: {
      ...process.env,
      LIFECYCLE_PID_FILE: pidFile,
      LIFECYCLE_MEMORY_FILE: memoryFile,
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers: (() => void)[] = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const watcher of watchers) watcher();
  });
  const hung = setTimeout(() => child.kill('SIGKILL'), HUNG_MS);
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(hung);
      resolve({ code, signal });
    });
  });
  live.add({ child, ended });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    ended,
    pidFile,
    memoryFile,
    stderrMatches: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(stderr)) resolve();
        };
        watchers.push(check);
        check();
        void ended.then(() =>
          pattern.test(stderr)
            ? resolve()
            : reject(new Error(`The process ended before stderr matched ${pattern}; it wrote:\n${stderr}`)),
        );
      }),
  };
}

/** A one-shot command: stdin closed at once, as in a CI job. */
async function runOnce(args: readonly string[], env: Record<string, string> = {}) {
  const run = start(args, env);
  run.child.stdin!.end();
  const { code, signal } = await run.ended;
  return {
    code,
    signal,
    stdout: run.stdout(),
    stderr: run.stderr(),
    pidFile: run.pidFile,
    memoryFile: run.memoryFile,
  };
}

/** The memory server the module started: alive while the command runs, gone once it has ended. */
function serverPid(pidFile: string): number {
  const pid = Number(readFileSync(pidFile, 'utf8'));
  expect(Number.isInteger(pid) && pid > 0, `the pid file holds "${pid}"`).toBe(true);
  return pid;
}

describe('one-shot commands on a module that imports a live MCP server print, close it and exit', () => {
  test.each([
    {
      args: ['inspect', 'memory.mts'],
      code: 0,
      exit: 'code 0',
      printed: (out: string) => expect(out).toMatch(/read_graph\s+read/),
    },
    {
      args: ['lint', 'memory.mts', '--format', 'json'],
      code: 0,
      exit: 'code 0',
      printed: (out: string) => expect(JSON.stringify(JSON.parse(out))).toContain('create_entities'),
    },
    {
      args: ['schemas', 'memory.mts', '--format', 'openai'],
      code: 0,
      exit: 'code 0',
      printed: (out: string) =>
        expect(
          (JSON.parse(out) as { function: { name: string } }[]).map((tool) => tool.function.name),
        ).toContain('search_nodes'),
    },
    {
      args: ['search', 'memory.mts', 'find nodes in the knowledge graph', '--format', 'json'],
      code: 0,
      exit: 'code 0',
      printed: (out: string) =>
        expect((JSON.parse(out) as { hits: { name: string }[] }).hits.map((hit) => hit.name)).toContain(
          'search_nodes',
        ),
    },
    {
      args: ['call', 'memory.mts', 'read_graph', '{}', '--yes'],
      code: 0,
      exit: 'code 0',
      printed: (out: string) =>
        expect(JSON.parse(out)).toEqual({ ok: true, result: { entities: [], relations: [] } }),
    },
    {
      // A failed call exits 1, and is closed all the same.
      args: ['call', 'memory.mts', 'read_graphs', '{}', '--yes'],
      code: 1,
      exit: 'code 1',
      printed: (out: string) =>
        expect(JSON.parse(out).error).toMatchObject({
          type: 'unknown_tool',
          suggestions: expect.arrayContaining(['read_graph']),
        }),
    },
  ])(
    'toolpact $args.0 exits with $exit on its own, and the server it imported is gone',
    async ({ args, code, printed }) => {
      const result = await runOnce(args);
      expect(result.signal, `killed: it did not exit on its own. stderr:\n${result.stderr}`).toBeNull();
      expect(result.code, result.stderr).toBe(code);
      printed(result.stdout);
      expect(result.stderr).not.toMatch(/did not finish closing|failed/);
      expect(isServerMemoryAlive(serverPid(result.pidFile))).toBe(false);
      expect(serverMemoryProcesses(result.memoryFile)).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});

describe('one-shot commands end whatever the module left running', () => {
  test(
    'a socket and a timer attached to nothing do not keep lint or call alive',
    async () => {
      const lint = await runOnce(['lint', 'stray.mts', '--format', 'json']);
      expect(lint.signal, lint.stderr).toBeNull();
      expect(lint.code, lint.stderr).toBe(0);
      expect(JSON.parse(lint.stdout)).toBeTypeOf('object');
      const call = await runOnce(['call', 'stray.mts', 'hello']);
      expect(call.signal, call.stderr).toBeNull();
      expect(call.code, call.stderr).toBe(0);
      expect(JSON.parse(call.stdout)).toEqual({ ok: true, result: 'hello' });
    },
    TEST_TIMEOUT,
  );

  test(
    'a close that never settles is given up after the grace period; the command keeps its output and code',
    async () => {
      const result = await runOnce(['call', 'stubborn.mts', 'hello']);
      expect(result.signal, result.stderr).toBeNull();
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ ok: true, result: 'hello' });
      expect(result.stderr).toMatch(/toolpact call: the module's tools did not finish closing within \d+ s/);
      expect(result.stderr).toContain('Make that close() settle');
    },
    TEST_TIMEOUT,
  );

  test(
    'a close that fails is told on stderr, with what failed; the output and the code stay',
    async () => {
      const result = await runCli(['call', 'failing.mts', 'hello'], { cwd: dir });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ ok: true, result: 'hello' });
      expect(result.stderr).toContain("toolpact call: closing the module's tools failed:");
      expect(result.stderr).toContain('the lock file is gone');
      expect(result.stderr).toContain('The output above is complete');
    },
    TEST_TIMEOUT,
  );
});

describe('long-running commands close on SIGINT and SIGTERM and leave no server behind', () => {
  test(
    'serve over stdio: serves the imported tools, then SIGTERM ends it and the memory server',
    async () => {
      const run = start(['serve', 'memory.mts']);
      await run.stderrMatches(/on stdio\./);
      const pid = serverPid(run.pidFile);
      expect(isServerMemoryAlive(pid)).toBe(true);
      const names = await listOverStdio(run);
      expect(names).toContain('read_graph');
      run.child.kill('SIGTERM');
      const { code, signal } = await run.ended;
      expect(signal, run.stderr()).toBeNull();
      expect(code, run.stderr()).toBe(0);
      expect(isServerMemoryAlive(pid)).toBe(false);
      expect(serverMemoryProcesses(run.memoryFile)).toEqual([]);
      expect(run.stderr()).not.toMatch(/did not finish closing|failed/);
    },
    TEST_TIMEOUT,
  );

  test.each(['SIGTERM', 'SIGINT'] as const)(
    'serve --http: serves the imported tools, then %s ends it and the memory server',
    async (stopWith) => {
      const run = start(['serve', 'memory.mts', '--http', '--port', '0']);
      await run.stderrMatches(/at http:\/\/\S+ \(sessions\)/);
      const url = /at (http:\/\/\S+) \(sessions\)/.exec(run.stderr())![1]!;
      const pid = serverPid(run.pidFile);
      expect(isServerMemoryAlive(pid)).toBe(true);
      const client = new Client({ name: 'lifecycle-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('read_graph');
      } finally {
        await client.close();
      }
      run.child.kill(stopWith);
      const { code, signal } = await run.ended;
      expect(signal, run.stderr()).toBeNull();
      expect(code, run.stderr()).toBe(0);
      expect(run.stderr()).toContain(`${stopWith}, stopping.`);
      expect(isServerMemoryAlive(pid)).toBe(false);
      expect(serverMemoryProcesses(run.memoryFile)).toEqual([]);
      expect(run.stderr()).not.toMatch(/did not finish closing|failed/);
    },
    TEST_TIMEOUT,
  );

  test(
    'studio: a reload closes the copy of the module it replaces; SIGTERM closes the rest',
    async () => {
      const run = start(['studio', 'memory.mts', '--port', '0']);
      await run.stderrMatches(/open http:\/\/127\.0\.0\.1:\d+\//);
      const first = serverPid(run.pidFile);
      expect(isServerMemoryAlive(first)).toBe(true);
      // Touching the module reloads it: a fresh copy imports a server of its own.
      const now = new Date();
      utimesSync(join(dir, 'memory.mts'), now, now);
      await waitFor(() => readFileSync(run.pidFile, 'utf8') !== String(first));
      const second = serverPid(run.pidFile);
      await waitFor(() => !isServerMemoryAlive(first));
      expect(serverMemoryProcesses(run.memoryFile)).toEqual([second]);
      run.child.kill('SIGTERM');
      const { code, signal } = await run.ended;
      expect(signal, run.stderr()).toBeNull();
      expect(code, run.stderr()).toBe(0);
      expect(isServerMemoryAlive(second)).toBe(false);
      expect(serverMemoryProcesses(run.memoryFile)).toEqual([]);
      expect(run.stderr()).not.toMatch(/did not finish closing|failed/);
    },
    TEST_TIMEOUT,
  );

  test(
    'run: SIGINT while the model is thinking stops the loop and closes the memory server',
    async () => {
      // A model server that takes every request and never answers.
      const held = new Set<import('node:http').ServerResponse>();
      const model = createServer((_request, response) => void held.add(response));
      await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
      const port = (model.address() as AddressInfo).port;
      try {
        const run = start([
          'run',
          'memory.mts',
          'What do you remember?',
          '--provider',
          'openai-compatible',
          '--base-url',
          `http://127.0.0.1:${port}/v1`,
          '--model',
          'silent',
        ]);
        await run.stderrMatches(/toolpact run: \d+ tools/);
        const pid = serverPid(run.pidFile);
        expect(isServerMemoryAlive(pid)).toBe(true);
        await waitFor(() => held.size > 0);
        run.child.kill('SIGINT');
        const { code, signal } = await run.ended;
        expect(signal, run.stderr()).toBeNull();
        expect(code, run.stderr()).toBe(1);
        expect(run.stderr()).toContain('SIGINT, stopping.');
        expect(isServerMemoryAlive(pid)).toBe(false);
        expect(serverMemoryProcesses(run.memoryFile)).toEqual([]);
        expect(run.stderr()).not.toMatch(/did not finish closing|failed/);
      } finally {
        for (const response of held) response.destroy();
        model.closeAllConnections();
        await new Promise((resolve) => model.close(resolve));
      }
    },
    TEST_TIMEOUT,
  );
});

/** Initializes over the serve process's stdin and stdout and answers the names tools/list gives. */
async function listOverStdio(run: Run): Promise<string[]> {
  const stdin = run.child.stdin!;
  const send = (message: object) => stdin.write(`${JSON.stringify(message)}\n`);
  const response = (id: number) =>
    new Promise<{ result?: { tools?: { name: string }[] } }>((resolve, reject) => {
      const check = () => {
        for (const line of run.stdout().split('\n')) {
          if (!line.trim()) continue;
          const message = JSON.parse(line) as { id?: number; result?: { tools?: { name: string }[] } };
          if (message.id === id) {
            run.child.stdout!.off('data', check);
            resolve(message);
            return;
          }
        }
      };
      run.child.stdout!.on('data', check);
      void run.ended.then(() => reject(new Error(`serve ended before answering request ${id}`)));
      check();
    });
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'lifecycle-test', version: '1.0.0' },
    },
  });
  await response(1);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  return ((await response(2)).result?.tools ?? []).map((tool) => tool.name);
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
