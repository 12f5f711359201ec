import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { readGatewayConfig } from '../../src/gateway/config/index.js';
import { type Gateway, type GatewayOptions, startGateway } from '../../src/gateway/gateway.js';

export const FAULT_SERVER = resolve('test/fixtures/gateway/fault-server.mjs');

/** A temporary folder per test, removed after it, with the gateways started in it closed first. */
export function workspace() {
  let dir = '';
  const gateways: Gateway[] = [];
  const logs: string[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolpact-gateway-'));
    logs.length = 0;
  });
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    logs,
    path: (name: string) => join(dir, name),
    write(name: string, content: unknown) {
      const file = join(dir, name);
      writeFileSync(file, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
      return file;
    },
    /**
     * Starts a gateway over `config.json` in the folder, logging into `logs`, with fast restarts: each
     * restart setting `options.restart` does not give.
     */
    async start(options: Partial<GatewayOptions> = {}) {
      const config = readGatewayConfig(join(dir, 'config.json'));
      const gateway = await startGateway({
        config,
        log: (line) => logs.push(line),
        watch: false,
        ...options,
        // After `options`: a test that sets some of the restart timings keeps the fast ones it did not set.
        restart: { initialDelayMs: 30, maxDelayMs: 200, jitter: 0.2, maxFailures: 3, ...options.restart },
      });
      gateways.push(gateway);
      return gateway;
    },
  };
}

/** A stdio entry that starts the fault server with this environment. */
export function faultEntry(env: Record<string, string> = {}) {
  return { command: process.execPath, args: [FAULT_SERVER], env };
}

/** The pids a fault-server log says were spawned. */
export function spawnedPids(log: string): number[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('spawn '))
    .map((line) => Number(line.slice(6)));
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` until it holds (a process to exit, a restart to finish); throws with `what` after 15 s. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The processes whose argv holds `text` (zombies have none), this one and `except` excepted. */
export function processesWith(text: string, except: readonly number[] = []): { pid: number; argv: string }[] {
  const found: { pid: number; argv: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || except.includes(pid)) continue;
    let argv: string;
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      continue;
    }
    if (argv.includes(text)) found.push({ pid, argv });
  }
  return found;
}

/** Whether a process has a handler for SIGTERM (bit 14 of SigCgt in /proc/<pid>/status). */
export function catchesTerm(pid: number): boolean {
  try {
    const caught = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return caught !== undefined && (BigInt(`0x${caught}`) & (1n << 14n)) !== 0n;
  } catch {
    return false;
  }
}
