import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { freePort } from './free-port.js';

/** The environment variable that makes the fleet tests mandatory (`.ci/run` sets it). */
export const REQUIRE_FLEET_VARIABLE = 'TOOLPACT_REQUIRE_FLEET';

/** The command that installs what the PostgreSQL tests need, on Debian and Ubuntu. */
export const INSTALL_POSTGRES = 'apt-get install postgresql';

/** Where Debian's `postgresql` package puts each major version's server binaries. */
const DEBIAN_POSTGRES = '/usr/lib/postgresql';

/** True when the fleet tests must run: a missing PostgreSQL or HAProxy then fails the run instead of skipping. */
export function fleetRequired(): boolean {
  const value = process.env[REQUIRE_FLEET_VARIABLE];
  return value !== undefined && value !== '' && value !== '0';
}

/**
 * The directory holding `initdb` and `postgres`: `TOOLPACT_POSTGRES_BIN` when set, else the
 * newest major version under /usr/lib/postgresql.
 */
export function postgresBinDir(): string | undefined {
  const chosen = process.env.TOOLPACT_POSTGRES_BIN;
  if (chosen) return chosen;
  if (!existsSync(DEBIAN_POSTGRES)) return undefined;
  const versions = readdirSync(DEBIAN_POSTGRES)
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  for (const version of versions) {
    const bin = join(DEBIAN_POSTGRES, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'))) return bin;
  }
  return undefined;
}

/** Undefined when a private PostgreSQL cluster can be started here, else why not. */
export function postgresAvailable(): string | undefined {
  const bin = postgresBinDir();
  if (bin === undefined) return `no PostgreSQL server under ${DEBIAN_POSTGRES}`;
  for (const program of ['initdb', 'postgres']) {
    if (!existsSync(join(bin, program))) return `no ${program} in ${bin}`;
  }
  return undefined;
}

/** For a test file that needs PostgreSQL: `describe.runIf(hasPostgres)`; the global set-up says what was skipped. */
export const hasPostgres: boolean = postgresAvailable() === undefined;

/** A private PostgreSQL cluster in a temp directory, listening on 127.0.0.1 only. */
export interface PostgresServer {
  /** `postgres://role:password@127.0.0.1:port/database`, for the throwaway role, which owns the database. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly role: string;
  readonly password: string;
  readonly database: string;
  /** The postmaster's pid while the server runs, else undefined. */
  readonly pid: number | undefined;
  /** The server's live processes (the postmaster and its children), for checks that nothing is left. */
  processes(): number[];
  /** Creates another database owned by the role, and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Fast shutdown (SIGINT), keeping the data: `start()` brings the same cluster back. */
  shutdown(): Promise<void>;
  /** Starts the cluster again, on the same port and data directory, after `shutdown()` or `kill()`. */
  start(): Promise<void>;
  /** `shutdown()` then `start()`. */
  restart(): Promise<void>;
  /** SIGKILL to the postmaster and all its children at once, as a crash; `start()` then runs crash recovery. */
  kill(): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

/** Settings passed to `postgres` with `-c`, over the harness's own (fsync off, 200 connections, loopback only). */
export interface PostgresOptions {
  readonly settings?: Readonly<Record<string, string>>;
}

const ROLE = 'toolpact';
const DATABASE = 'toolpact';
const SUPERUSER = 'postgres';

interface ClusterUser {
  readonly uid: number;
  readonly gid: number;
}

/** The user that runs the cluster: `nobody` when this process is root (PostgreSQL refuses root). */
function clusterUser(): ClusterUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('nobody:'));
  const fields = line?.split(':');
  if (fields?.[2] !== undefined && fields[3] !== undefined) {
    return { uid: Number(fields[2]), gid: Number(fields[3]) };
  }
  return { uid: 65534, gid: 65534 };
}

/** A temp directory that `user` owns and can reach: every parent must let others through. */
function makeClusterDir(prefix: string, user: ClusterUser | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (user === undefined) return dir;
  for (let parent = dirname(dir); ; parent = dirname(parent)) {
    if ((statSync(parent).mode & 0o001) === 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        `${parent} cannot be searched by other users, so PostgreSQL (run as uid ${user.uid}, since it refuses root) cannot reach ${dir}; set TMPDIR to a directory such as /tmp`,
      );
    }
    if (parent === dirname(parent)) break;
  }
  chownSync(dir, user.uid, user.gid);
  chmodSync(dir, 0o711);
  return dir;
}

export { freePort };

/** Each live (not zombie) process's parent, read from /proc; empty where there is none. */
function liveParents(): Map<number, number> {
  const parents = new Map<number, number>();
  if (!existsSync('/proc')) return parents;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'Z' && fields[0] !== 'X') parents.set(Number(entry), Number(fields[1]));
  }
  return parents;
}

/** `pid` and its live descendants (PostgreSQL's children are each in a process group of their own). */
export function processTree(pid: number): number[] {
  const parents = liveParents();
  if (!parents.has(pid)) return [];
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  }
  return tree;
}

/** True while `pid` is a live process (a zombie counts as gone). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    if (existsSync('/proc')) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** Waits until none of `pids` is alive. */
export async function processesGone(pids: readonly number[]): Promise<void> {
  while (pids.some(processAlive)) await sleep(20);
}

/** A child process and the promise of its exit. */
export interface Running {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<number | string | null>;
  done: boolean;
}

/** Spawns a child, in a process group of its own, whose output goes to `log`. */
export function spawnLogged(
  command: string,
  args: readonly string[],
  log: string,
  options: { cwd: string; user?: ClusterUser | undefined; env?: NodeJS.ProcessEnv },
): Running {
  const fd = openSync(log, 'a');
  try {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ['ignore', fd, fd],
      ...(options.user === undefined ? {} : { uid: options.user.uid, gid: options.user.gid }),
    });
    const running: Running = {
      child,
      pid: child.pid ?? -1,
      done: false,
      exited: new Promise((resolve) => {
        child.once('error', (error) => {
          running.done = true;
          resolve(error.message);
        });
        child.once('exit', (code, signal) => {
          running.done = true;
          resolve(code ?? signal);
        });
      }),
    };
    return running;
  } finally {
    closeSync(fd);
  }
}

/** The end of a log file, for an error message. */
export function logTail(log: string, lines = 20): string {
  try {
    return readFileSync(log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Everything the harness started, killed and removed if the test process ends without stopping it. */
const leftovers = new Map<string, () => number | undefined>();
let exitHooksInstalled = false;

function removeLeftovers(): void {
  for (const [path, running] of leftovers) {
    const root = running();
    if (root !== undefined) killTree(root);
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {}
  }
  leftovers.clear();
}

/**
 * Registers a started server so that a test process that ends without stopping it (an exit, or the
 * SIGTERM with which vitest ends its workers) does not leave it running.
 */
export function registerLeftover(dir: string, pid: () => number | undefined): void {
  leftovers.set(dir, pid);
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on('exit', removeLeftovers);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      removeLeftovers();
      process.off(signal, onSignal);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * SIGKILL to `root` and all its descendants at once, as a crash would: the root is stopped first so it
 * starts no new child meanwhile. Returns the processes it killed.
 */
export function killTree(root: number): number[] {
  try {
    process.kill(root, 'SIGSTOP');
  } catch {}
  const tree = processTree(root);
  for (const pid of tree.length > 0 ? tree : [root]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  return tree;
}

export function unregisterLeftover(dir: string): void {
  leftovers.delete(dir);
}

function clusterEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C', TZ: 'UTC' };
}

async function run(command: string, args: readonly string[], log: string, cwd: string, user?: ClusterUser) {
  const result = await spawnLogged(command, args, log, { cwd, user, env: clusterEnv() }).exited;
  if (result !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result}):\n${logTail(log)}`);
}

/**
 * Starts a private PostgreSQL cluster: `initdb` into a temp directory, `postgres` on a free port of
 * 127.0.0.1 with its socket in that directory, and a throwaway role with a password that owns a
 * database. As root the cluster runs as `nobody`, since PostgreSQL refuses to run as root.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const reason = postgresAvailable();
  if (reason !== undefined) throw new Error(`${reason}; install it with: ${INSTALL_POSTGRES}`);
  const bin = postgresBinDir()!;
  const user = clusterUser();
  const dir = makeClusterDir('toolpact-pg-', user);
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  const password = randomBytes(12).toString('hex');
  let port = 0;
  let current: Running | undefined;
  registerLeftover(dir, () => (current && !current.done ? current.pid : undefined));

  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dir,
    fsync: 'off',
    full_page_writes: 'off',
    max_connections: '200',
    ...options.settings,
  };

  const superuserClient = () => new Client({ host: dir, port, user: SUPERUSER, database: 'postgres' });

  const launch = async (): Promise<void> => {
    if (current && !current.done) throw new Error('PostgreSQL is already running');
    const args = ['-D', data, '-c', `port=${port}`];
    for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
    const started = spawnLogged(join(bin, 'postgres'), args, log, { cwd: dir, user, env: clusterEnv() });
    current = started;
    for (;;) {
      if (started.done) {
        throw new Error(
          `PostgreSQL exited (${await started.exited}) before it accepted connections:\n${logTail(log)}`,
        );
      }
      const client = superuserClient();
      client.on('error', () => {});
      try {
        await client.connect();
        await client.query('select 1');
        await client.end();
        return;
      } catch {
        await client.end().catch(() => {});
        await sleep(50);
      }
    }
  };

  const halt = async (signal: 'SIGINT' | 'SIGKILL'): Promise<void> => {
    const running = current;
    if (!running || running.done) return;
    let tree = processTree(running.pid);
    if (signal === 'SIGKILL') tree = killTree(running.pid);
    else {
      try {
        process.kill(running.pid, signal);
      } catch {}
    }
    await running.exited;
    await processesGone(tree);
  };

  try {
    await run(
      join(bin, 'initdb'),
      [
        '-D',
        data,
        '-U',
        SUPERUSER,
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        '--no-sync',
      ],
      log,
      dir,
      user,
    );
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await launch();
        break;
      } catch (error) {
        if (attempt >= 5 || !/already in use/i.test(String(error))) throw error;
      }
    }
    const admin = superuserClient();
    await admin.connect();
    try {
      await admin.query(`create role ${ROLE} login password '${password}'`);
      await admin.query(`create database ${DATABASE} owner ${ROLE}`);
    } finally {
      await admin.end();
    }
  } catch (error) {
    await halt('SIGKILL');
    unregisterLeftover(dir);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const host = '127.0.0.1';
  const urlFor = (database: string) => `postgres://${ROLE}:${password}@${host}:${port}/${database}`;
  return {
    url: urlFor(DATABASE),
    host,
    port,
    role: ROLE,
    password,
    database: DATABASE,
    get pid() {
      return current && !current.done ? current.pid : undefined;
    },
    processes: () => (current && !current.done ? processTree(current.pid) : []),
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      const admin = superuserClient();
      await admin.connect();
      try {
        await admin.query(`create database ${name} owner ${ROLE}`);
      } finally {
        await admin.end();
      }
      return urlFor(name);
    },
    shutdown: () => halt('SIGINT'),
    start: launch,
    async restart() {
      await halt('SIGINT');
      await launch();
    },
    kill: () => halt('SIGKILL'),
    async stop() {
      await halt('SIGINT');
      unregisterLeftover(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
