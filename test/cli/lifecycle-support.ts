// What test/cli/lifecycle*.test.ts share: the modules they load (one imports the reference "memory"
// MCP server over stdio, one leaves a socket and a timer attached to nothing, two attach a resource whose
// close never settles or fails) and `toolpact <args>` run as a process of its own, ended after each test.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { toolpactArgs } from '../support/cli-build.js';
import { SERVER_MEMORY_BIN } from '../support/server-memory.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sourceEntry = JSON.stringify(join(projectRoot, 'src', 'index.ts'));
const mcpEntry = JSON.stringify(join(projectRoot, 'src', 'mcp', 'index.ts'));
/** Far beyond what any command takes, even on a crowded machine: past it, the process hung. */
const HUNG_MS = 60_000;
export const TEST_TIMEOUT = 120_000;

let dir: string;

/** The folder of the modules the commands load (their working directory). */
export function moduleDir(): string {
  return dir;
}
/** Pid files and memory files: outside the modules' folder, which `studio` watches. */
let state: string;
let runs = 0;
const live = new Set<{ readonly child: ChildProcess; readonly ended: Promise<unknown> }>();

/**
 * Registers the file's hooks: writes the modules before its tests, ends every run still alive after
 * each test, and removes the folder after them. Called once, at the top of a test file.
 */
export function useLifecycleModules(): void {
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
}

export interface Run {
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
export function start(args: readonly string[], env: Record<string, string> = {}): Run {
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
export async function runOnce(args: readonly string[], env: Record<string, string> = {}) {
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
export function serverPid(pidFile: string): number {
  const pid = Number(readFileSync(pidFile, 'utf8'));
  expect(Number.isInteger(pid) && pid > 0, `the pid file holds "${pid}"`).toBe(true);
  return pid;
}

/** Initializes over the serve process's stdin and stdout and answers the names tools/list gives. */
export async function listOverStdio(run: Run): Promise<string[]> {
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

export async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
