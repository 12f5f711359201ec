// `toolpact serve` and `toolpact call` end the MCP servers their module started (importMcpTools over
// stdio) whichever way a signal comes, as the gateway does: the server ignores its stdin's close and
// forks a grandchild that ignores SIGTERM; what is left is counted through /proc.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { catchesTerm, processesWith, until } from '../gateway/support.js';
import { toolpactArgs } from '../support/cli-build.js';

const MODULE = resolve('test/fixtures/cli/imported-stubborn.ts');
let dir: string;
let marker: string;
let log: string;
const children: ChildProcess[] = [];
/** Far past what ending takes (the servers' grace included), below the tests' own 60 s. */
const EXIT_WAIT_MS = 40_000;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-module-processes-'));
  marker = `toolpact-module-${randomUUID()}`;
  log = join(dir, 'stubborn.log');
});
afterEach(() => {
  // A failed test kills what it left, by pid.
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const { pid } of survivors()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The processes whose argv holds this test's marker, this one excepted. */
const survivors = () => processesWith(marker);

const logged = (event: string) => existsSync(log) && readFileSync(log, 'utf8').includes(`${event} `);

/** Starts the command and waits until the module's server and its grandchild (handler in place) run. */
async function start(args: readonly string[]) {
  const child = spawn(process.execPath, toolpactArgs(...args, MODULE), {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, STUBBORN_MARKER: marker, STUBBORN_LOG: log },
  });
  children.push(child);
  const ended = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stdout?.resume();
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // A command that does not end fails the test with what it printed, before the test's own timeout.
  const exited = Promise.race([
    ended,
    new Promise<never>((_, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the command did not end; its stderr:\n${stderr}`)),
        EXIT_WAIT_MS,
      );
      void ended.then(() => clearTimeout(timer));
    }),
  ]);
  await until(
    () => survivors().some(({ pid, argv }) => argv.includes('term-ignored') && catchesTerm(pid)),
    'the module started its server and the grandchild',
    30_000,
  );
  expect(survivors().length).toBeGreaterThanOrEqual(2);
  return { child, exited };
}

async function noneLeft() {
  await until(() => survivors().length === 0, `no process is left (${JSON.stringify(survivors())})`, 10_000);
}

test('serve: SIGTERM during the shutdown that the end of stdin started ends the module’s servers', async () => {
  const { child, exited } = await start(['serve']);
  child.stdin?.end();
  // The server's stdin closed: serve is shutting down and waits for the server to exit.
  await until(() => logged('stdin-closed'), 'the server saw its stdin close');
  child.kill('SIGTERM');
  await exited;
  await noneLeft();
}, 60_000);

test('serve: one SIGTERM while serving ends serve and the module’s servers', async () => {
  const { child, exited } = await start(['serve']);
  child.kill('SIGTERM');
  await exited;
  await noneLeft();
}, 60_000);
