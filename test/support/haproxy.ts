import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  freePort,
  logTail,
  processesGone,
  processTree,
  type Running,
  registerLeftover,
  spawnLogged,
  unregisterLeftover,
} from './postgres.js';

/** The command that installs what the load-balanced tests need, on Debian and Ubuntu. */
export const INSTALL_HAPROXY = 'apt-get install haproxy';

/** Debian's HAProxy, as `.ci/run` installs it (`TOOLPACT_HAPROXY` names another binary). */
export const HAPROXY = process.env.TOOLPACT_HAPROXY ?? '/usr/sbin/haproxy';

/** Undefined when HAProxy can be started here, else why not. */
export function haproxyAvailable(): string | undefined {
  return existsSync(HAPROXY) ? undefined : `no HAProxy at ${HAPROXY}`;
}

/** For a test file that needs the balancer: `describe.runIf(hasHaproxy)`; the global set-up says what was skipped. */
export const hasHaproxy: boolean = haproxyAvailable() === undefined;

/** One server behind the balancer. */
export interface Backend {
  readonly host: string;
  readonly port: number;
}

/** HAProxy in front of a set of HTTP servers, round robin, on a free port of 127.0.0.1. */
export interface HaproxyServer {
  readonly port: number;
  /** The balancer's pid while it runs, else undefined. */
  readonly pid: number | undefined;
  /** `http://127.0.0.1:port` followed by `path`. */
  url(path?: string): string;
  /** Replaces the servers behind the balancer while it runs (through its admin socket). */
  setBackends(backends: readonly Backend[]): Promise<void>;
  /** The balancer's live processes, for checks that nothing is left. */
  processes(): number[];
  /** Stops HAProxy (SIGTERM, then waits for it to exit) and removes its directory. */
  stop(): Promise<void>;
}

const BACKEND = 'replicas';

/**
 * The configuration: HTTP mode, round robin with no stickiness and no health checks, so every request
 * goes to the next server. A request that cannot connect (a server that is down) is sent to another;
 * one that reached a server is never retried, as a client's request would not be. The timeouts let a
 * response stay open for long polls and event streams.
 */
function config(port: number, socket: string, backends: readonly Backend[]): string {
  return [
    'global',
    '  maxconn 4096',
    `  stats socket ${socket} mode 600 level admin`,
    '',
    'defaults',
    '  mode http',
    '  maxconn 4096',
    '  option http-keep-alive',
    '  option redispatch 1',
    '  retries 3',
    '  timeout connect 5s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout tunnel 1h',
    '  timeout http-request 30s',
    '  timeout http-keep-alive 10s',
    '  timeout queue 30s',
    '',
    'frontend front',
    `  bind 127.0.0.1:${port}`,
    `  default_backend ${BACKEND}`,
    '',
    `backend ${BACKEND}`,
    '  balance roundrobin',
    ...backends.map((backend, index) => `  server s${index + 1} ${backend.host}:${backend.port}`),
    '',
  ].join('\n');
}

/** Sends one command to HAProxy's admin socket and returns its answer. */
async function admin(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = connect(socket);
    let answer = '';
    connection.setEncoding('utf8');
    connection.on('data', (chunk: string) => {
      answer += chunk;
    });
    connection.on('error', reject);
    connection.on('end', () => resolve(answer.trim()));
    connection.end(`${command}\n`);
  });
}

/** True when `port` on 127.0.0.1 accepts a connection. */
async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = connect(port, '127.0.0.1');
    connection.once('connect', () => {
      connection.destroy();
      resolve(true);
    });
    connection.once('error', () => resolve(false));
  });
}

/** Starts Debian's HAProxy in the foreground with `backends` behind it; stop it with `stop()`. */
export async function startHaproxy(backends: readonly Backend[]): Promise<HaproxyServer> {
  const reason = haproxyAvailable();
  if (reason !== undefined) throw new Error(`${reason}; install it with: ${INSTALL_HAPROXY}`);
  if (backends.length === 0) throw new Error('HAProxy needs at least one backend');
  const dir = mkdtempSync(join(tmpdir(), 'toolpact-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  const socket = join(dir, 'admin.sock');
  const log = join(dir, 'haproxy.log');
  let current: Running | undefined;
  let port = 0;
  let slots = backends.length;
  registerLeftover(dir, () => (current && !current.done ? current.pid : undefined));

  const halt = async (): Promise<void> => {
    const running = current;
    if (!running || running.done) return;
    const tree = processTree(running.pid);
    try {
      process.kill(running.pid, 'SIGTERM');
    } catch {}
    await running.exited;
    await processesGone(tree);
  };

  try {
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      writeFileSync(file, config(port, socket, backends));
      const started = spawnLogged(HAPROXY, ['-db', '-f', file], log, { cwd: dir });
      current = started;
      while (!started.done && !(await accepts(port))) await sleep(20);
      if (!started.done) break;
      const status = await started.exited;
      const output = logTail(log);
      if (attempt >= 5 || !/cannot bind|address already in use/i.test(output)) {
        throw new Error(`HAProxy exited (${status}) before it accepted connections:\n${output}`);
      }
    }
  } catch (error) {
    await halt();
    unregisterLeftover(dir);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const command = async (line: string, expected: RegExp): Promise<void> => {
    const answer = await admin(socket, line);
    if (!expected.test(answer)) throw new Error(`HAProxy refused "${line}": ${answer}`);
  };

  return {
    port,
    get pid() {
      return current && !current.done ? current.pid : undefined;
    },
    url: (path = '') => `http://127.0.0.1:${port}${path}`,
    async setBackends(next) {
      if (next.length === 0) throw new Error('HAProxy needs at least one backend');
      for (const [index, backend] of next.entries()) {
        const server = `${BACKEND}/s${index + 1}`;
        if (index < slots) {
          await command(`set server ${server} addr ${backend.host} port ${backend.port}`, /changed|no need/i);
          await command(`set server ${server} state ready`, /^$/);
        } else {
          await command(`add server ${server} ${backend.host}:${backend.port}`, /New server registered/i);
          await command(`enable server ${server}`, /^$/);
          slots = index + 1;
        }
      }
      for (let index = next.length; index < slots; index++) {
        await command(`set server ${BACKEND}/s${index + 1} state maint`, /^$/);
      }
    },
    processes: () => (current && !current.done ? processTree(current.pid) : []),
    async stop() {
      await halt();
      unregisterLeftover(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
