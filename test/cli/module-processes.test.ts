// `toolpact serve`, `lint` and `studio` end the MCP servers their module started (importMcpTools over
// stdio) whichever way a signal comes, as the gateway does: the server ignores its stdin's close and
// forks a grandchild that ignores SIGTERM; what is left is counted through /proc.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { catchesTerm, processesWith, until } from '../gateway/support.js';
import { cliModuleArgs, toolpactArgs } from '../support/cli-build.js';

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

// lint (as inspect, schemas, search and call: one-shot commands) and studio, interrupted once the module's
// server runs: its process, and the grandchild that ignores SIGTERM, are gone, whichever step the
// command was at (loading the module, at work, or closing it, which waits out the server's grace).
test.each([['lint'], ['studio']])(
  '%s: one SIGTERM ends it and the module’s servers',
  async (command) => {
    const { child, exited } = await start([command]);
    child.kill('SIGTERM');
    await exited;
    await noneLeft();
  },
  60_000,
);

// `serve` and `run` listen for signals one way while the module loads (end its servers, then exit) and
// another once it has (stop serving, end them meanwhile). A signal that arrived just before the change
// was once given to neither: Node hands a signal to the listeners present when its event loop reaches
// it, and for a moment there were none, so serve went on serving with the module's servers. Measured
// through the CLI (a SIGTERM at a random moment of serve's start): 2 starts in 40 never ended. Here the
// moment is made certain: the signal is sent, and the listeners change before the loop reaches it.
test('a signal that arrives as a command changes how it listens reaches the new listeners', () => {
  const script = [
    'const { endProcessGroupsOnSignal, stopSignal } = MODULE;',
    "const loading = endProcessGroupsOnSignal('exit');",
    "process.kill(process.pid, 'SIGTERM');",
    '// The module has loaded: the command goes on to serve it, in the same tick.',
    'loading.dispose();',
    "const groups = endProcessGroupsOnSignal('shutdown');",
    'const stop = stopSignal();',
    "const lost = setTimeout(() => { process.stdout.write('no listener had it\\n'); process.exit(3); }, 10_000);",
    'stop.signalled.then((signal) => {',
    '  clearTimeout(lost);',
    '  groups.dispose();',
    "  process.stdout.write('stopped by ' + signal + '\\n');",
    '});',
  ].join('\n');
  const result = spawnSync(process.execPath, cliModuleArgs('cli/stop-signal.ts', script), {
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect({
    status: result.status,
    signal: result.signal,
    stdout: result.stdout,
    stderr: result.stderr,
  }).toEqual({
    status: 0,
    signal: null,
    stdout: 'stopped by SIGTERM\n',
    stderr: '',
  });
});
