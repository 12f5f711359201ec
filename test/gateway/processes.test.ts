import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { fixtureArgs, toolpactArgs } from '../support/cli-build.js';
import { catchesTerm, processesWith as survivors, until, workspace } from './support.js';

// However a gateway ends, or restarts a server, no process it started is left: not the server (which
// ignores stdin's close), not the grandchild it forks (which ignores SIGTERM). Every process of a test
// carries its marker in its argv (the gateway through its config's path), so what is left is counted
// through /proc/*/cmdline.

const STUBBORN = resolve('test/fixtures/gateway/stubborn-server.mjs');
const TIMEOUT = 60_000;
/** How long the processes of a test may take to be gone once their gateway ended. */
const GONE_WITHIN_MS = 10_000;

let marker = '';
let dir = '';
beforeEach(() => {
  marker = `toolpact-procs-${randomUUID()}`;
  dir = mkdtempSync(join(tmpdir(), `${marker}-`));
});
afterEach(() => {
  // Whatever a failed test left is killed, so that it does not outlive the run.
  for (const each of survivors(marker)) {
    try {
      process.kill(each.pid, 'SIGKILL');
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Waits (bounded) until no process carries the marker but `except`; fails listing the survivors. */
async function noneLeft(except: readonly number[] = []): Promise<void> {
  const deadline = Date.now() + GONE_WITHIN_MS;
  for (;;) {
    const left = survivors(marker, except);
    if (left.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(
        `${left.length} processes left after ${GONE_WITHIN_MS / 1000} s:\n${left.map((each) => `  ${each.pid} ${each.argv}`).join('\n')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The era of a stubborn server's entry, as a lock keeps it: its gateway starts it without a probe, so
 * once rather than twice (the 2026-07-28 test keeps the probe).
 */
const LEGACY_LOCK = {
  version: 1,
  servers: { stubborn: { era: 'legacy', prior: { kind: 'legacy' }, tools: {} } },
};

/** The config of one stubborn server (with the marker), every tool allowed; its lock too, if `locked`. */
function writeConfig(locked = true): { config: string; log: string } {
  const log = join(dir, 'stubborn.log');
  const config = join(dir, 'gateway.json');
  if (locked) writeFileSync(join(dir, 'gateway.lock.json'), JSON.stringify(LEGACY_LOCK));
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        stubborn: { command: process.execPath, args: [STUBBORN, marker], env: { STUBBORN_LOG: log } },
      },
      toolpact: { policy: { rules: [{ id: 'all', action: 'allow' }] } },
    }),
  );
  return { config, log };
}

/** Starts `toolpact gateway` as a host does, and waits until it serves on stdio. */
async function startGateway(config: string): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child = spawn(process.execPath, toolpactArgs('gateway', '--config', config), {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdout?.resume();
  // As a host does: the servers start at the client's first message other than server/discover.
  child.stdin?.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'host', version: '1.0.0' } } })}\n`,
  );
  try {
    await until(() => / on stdio\./.test(stderr), 'the gateway serves on stdio', 30_000);
    // The gateway, its server and the server's grandchild: the count below can see what it must not find.
    // ...and its server is up (started at the initialize above, after the gateway serves), with the
    // grandchild's SIGTERM handler in place (the signal's bit in its caught set): the ways below that
    // rely on it ignoring SIGTERM do not race its start.
    await until(
      () =>
        /: up: /.test(stderr) &&
        survivors(marker).some(({ pid, argv }) => argv.includes('term-ignored') && catchesTerm(pid)),
      'the server is up and its grandchild runs',
      30_000,
    );
    expect(survivors(marker).length).toBeGreaterThanOrEqual(3);
  } catch (error) {
    throw new Error(`${(error as Error).message}; it wrote:\n${stderr}`);
  }
  return { child, exited };
}

/** Whether the stubborn server's log has a line starting with `event`. */
const logged = (log: string, event: string) =>
  existsSync(log) && readFileSync(log, 'utf8').includes(`${event} `);

describe('a gateway ended by its host leaves no process', () => {
  const ways: { way: string; end: (child: ChildProcess, log: string) => Promise<void> }[] = [
    { way: 'stdin closed', end: async (child) => void child.stdin?.end() },
    { way: 'SIGTERM', end: async (child) => void child.kill('SIGTERM') },
    { way: 'SIGINT', end: async (child) => void child.kill('SIGINT') },
    {
      way: 'SIGTERM during the shutdown that stdin’s close started',
      end: async (child, log) => {
        child.stdin?.end();
        // The server's stdin closed: the gateway is shutting down and waits for the server to exit.
        await until(() => logged(log, 'stdin-closed'), 'the server saw its stdin close');
        child.kill('SIGTERM');
      },
    },
    {
      way: 'a second SIGTERM while the first ends the servers',
      end: async (child, log) => {
        child.kill('SIGTERM');
        // The grandchild outlived the group's SIGTERM: the gateway waits to send SIGKILL.
        await until(() => logged(log, 'term-ignored'), 'the grandchild ignored SIGTERM');
        child.kill('SIGTERM');
      },
    },
  ];
  test.each(ways)(
    '$way',
    async ({ end }) => {
      const { config, log } = writeConfig();
      const { child, exited } = await startGateway(config);
      await end(child, log);
      await exited;
      await noneLeft();
    },
    TIMEOUT,
  );
});

test(
  '`gateway check` interrupted by SIGINT ends its servers, then itself',
  async () => {
    const { config, log } = writeConfig();
    const child = spawn(process.execPath, toolpactArgs('gateway', 'check', '--config', config), {
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await until(() => logged(log, 'start'), 'the server started', 30_000);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    await noneLeft();
  },
  TIMEOUT,
);

test(
  'a process that exits without closing its connection kills the server’s group as it exits',
  async () => {
    const child = spawn(
      process.execPath,
      [...fixtureArgs(resolve('test/fixtures/gateway/exit-without-close.ts')), STUBBORN, marker],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    expect(code, output).toBe(0);
    expect(output).toContain('connected');
    await noneLeft();
  },
  TIMEOUT,
);

describe('a gateway closed by the v2 client leaves no process', () => {
  test.each(['legacy', 'modern'] as const)(
    '%s era',
    async (era) => {
      // Unlocked on 2026-07-28: each gateway also probes its server's era, in a process of its own.
      const { config } = writeConfig(era === 'legacy');
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: toolpactArgs('gateway', '--config', config),
        stderr: 'pipe',
      });
      transport.stderr?.on('data', () => {});
      const client = new Client(
        { name: 'processes-test', version: '1.0.0' },
        { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } },
      );
      await client.connect(transport);
      expect(client.getProtocolEra()).toBe(era);
      const pids = (await client.callTool({ name: 'pids', arguments: {} })).structuredContent as {
        server: number;
        grandchild: number;
      };
      const gateway = transport.pid ?? 0;
      expect(survivors(marker).map((each) => each.pid)).toEqual(
        expect.arrayContaining([gateway, pids.server, pids.grandchild]),
      );
      // On 2026-07-28 the client first started a gateway of its own to probe, and that one started the
      // server too: all of them are gone once the probe is over, and only the session's remain.
      await noneLeft([gateway, pids.server, pids.grandchild]);
      await client.close();
      await noneLeft();
    },
    TIMEOUT,
  );
});

describe('a server restarted by the gateway leaves no process', () => {
  const ws = workspace();

  test(
    'after a crash, and after a change of its config',
    async () => {
      const entry = (generation: string) => ({
        mcpServers: {
          stubborn: { command: process.execPath, args: [STUBBORN, marker], env: { GENERATION: generation } },
        },
      });
      ws.write('config.json', entry('1'));
      ws.write('config.lock.json', LEGACY_LOCK);
      const gateway = await ws.start({ restart: { maxFailures: 5 } });
      const pids = async () => {
        const called = await gateway.registry.call('pids', {});
        if (!called.ok) throw new Error(`pids failed: ${called.error.message}`);
        return called.result as { server: number; grandchild: number };
      };
      // The pids of a server other than `before`, once one answers.
      const next = async (before: number, what: string) => {
        let found: { server: number; grandchild: number } | undefined;
        await until(async () => {
          found = await pids().catch(() => undefined);
          return found !== undefined && found.server !== before;
        }, what);
        return found as { server: number; grandchild: number };
      };
      const first = await pids();

      const crashed = await gateway.registry.call('crash', {});
      expect(crashed).toMatchObject({ ok: false, error: { type: 'mcp_server_unavailable' } });
      const second = await next(first.server, 'the server is back up');
      // The crashed server's grandchild went with it; the new server and its grandchild run.
      await noneLeft([second.server, second.grandchild]);

      ws.write('config.json', entry('2'));
      await gateway.reload();
      const third = await next(second.server, 'the changed server is up');
      await noneLeft([third.server, third.grandchild]);

      await gateway.close();
      await noneLeft();
    },
    TIMEOUT,
  );
});
