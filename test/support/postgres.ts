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
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';

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
 * The directory holding `initdb`, `postgres` and `pg_ctl`: `TOOLPACT_POSTGRES_BIN` when set, else the
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
  /** SIGKILL to the postmaster and every backend at once, as a crash; `start()` then runs crash recovery. */
  kill(): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

/** Settings passed to `postgres` with `-c`; they override the defaults below. */
export interface PostgresOptions {
  readonly settings?: Readonly<Record<string, string>>;
}

const ROLE = 'toolpact';
const DATABASE = 'toolpact';
const SUPERUSER = 'postgres';

/** The user that runs the cluster: `nobody` when this process is root (PostgreSQL refuses root). */
interface ClusterUser {
  readonly uid: number;
  readonly gid: number;
}

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

/** A port that was free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** The live (not zombie) processes of process group `group`, read from /proc; empty where there is none. */
export function processGroup(group: number): number[] {
  if (!existsSync('/proc')) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'Z' && fields[0] !== 'X' && Number(fields[2]) === group) found.push(Number(entry));
  }
  return found;
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

/** Waits until no live process is left in `group` (after the leader has been reaped). */
export async function processGroupGone(group: number): Promise<void> {
  while (processGroup(group).length > 0) await sleep(20);
}

/** A child process and the promise of its exit. */
export interface Running {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<number | string | null>;
  done: boolean;
}

/** Spawns a detached (own process group) child whose output goes to `log`. */
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

/** Everything the harness started, killed and removed if the test process exits without stopping it. */
const leftovers = new Map<string, () => number | undefined>();
let exitHookInstalled = false;

/** Registers a started server so an exiting test process does not leave it behind. */
export function registerLeftover(dir: string, group: () => number | undefined): void {
  leftovers.set(dir, group);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [path, pid] of leftovers) {
      const group = pid();
      if (group !== undefined) {
        try {
          process.kill(-group, 'SIGKILL');
        } catch {}
      }
      rmSync(path, { recursive: true, force: true });
    }
  });
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
    try {
      process.kill(signal === 'SIGKILL' ? -running.pid : running.pid, signal);
    } catch {}
    await running.exited;
    await processGroupGone(running.pid);
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
    processes: () => (current && !current.done ? processGroup(current.pid) : []),
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
