import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { toolpactArgs } from '../support/cli-build.js';
import { logTail, type Running, spawnLogged } from '../support/postgres.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The tools and policy every fleet replica serves. */
export const FLEET_TOOLS = join(ROOT, 'test', 'fixtures', 'fleet', 'tools.ts');
export const FLEET_POLICY = join(ROOT, 'test', 'fixtures', 'fleet', 'policy.json');

/** What a fleet replica is started with. */
export interface ReplicaLaunch {
  readonly name: string;
  readonly port: number;
  /** Its endpoint, `http://127.0.0.1:<port>/mcp`, which it prints once it listens. */
  readonly url: string;
  readonly store: string;
  /** The policy file (default {@link FLEET_POLICY}). */
  readonly policy?: string;
  readonly log: string;
  /** Arguments after the store and policy, e.g. `--auth <file>`. */
  readonly extra?: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Starts `toolpact serve <fleet tools> --http --port … --store … --policy …` from the bin and waits until
 * its log says where it listens; throws with the log's tail when it exits first.
 */
export async function startReplica(launch: ReplicaLaunch): Promise<Running> {
  const running = spawnLogged(
    process.execPath,
    toolpactArgs(
      'serve',
      FLEET_TOOLS,
      '--http',
      '--port',
      String(launch.port),
      '--store',
      launch.store,
      '--policy',
      launch.policy ?? FLEET_POLICY,
      ...(launch.extra ?? []),
    ),
    launch.log,
    { cwd: ROOT, env: launch.env },
  );
  const ready = `at ${launch.url} (`;
  while (!(existsSync(launch.log) && readFileSync(launch.log, 'utf8').includes(ready))) {
    if (running.done) {
      throw new Error(
        `${launch.name} exited (${await running.exited}) before listening:\n${logTail(launch.log)}`,
      );
    }
    await sleep(20);
  }
  return running;
}

/** SIGTERM to a replica still running, and its exit awaited; nothing for one already gone. */
export async function stopReplica(running: Running | undefined): Promise<void> {
  if (!running || running.done) return;
  process.kill(running.pid, 'SIGTERM');
  await running.exited;
}
