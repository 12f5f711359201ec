/**
 * `npm run bench -- fleet`: `toolpact serve --http --stateless` replicas, alone and behind HAProxy, with
 * the audit log in SQLite or in the shared PostgreSQL store, on this machine.
 *
 * The stack is the fleet tests' own: a private PostgreSQL cluster (`startPostgres()` from
 * test/support/postgres.ts, with its settings: fsync=off, full_page_writes=off, loopback only; as root
 * it runs as nobody) and Debian's HAProxy, round robin, no stickiness (`startHaproxy()` from
 * test/support/haproxy.ts). Each replica is `node bin/toolpact.js serve bench/fixtures/fleet/tools.ts
 * --http --stateless --port <free> --policy bench/fixtures/fleet/policy.json` (the CLI runs the
 * TypeScript sources through tsx), with `--audit <file>.db` (SQLite) or `--store <postgres URL>`, and
 * serves one trivial read tool (`status {service}`) that the policy allows, so a call's cost is the
 * server's: HTTP, MCP, validation, the gate and the audit record.
 *
 * The load generator is this process: K concurrent clients, each a loop of revision 2026-07-28
 * `tools/call` requests (the `_meta` envelope and the MCP-Protocol-Version, Mcp-Method and Mcp-Name
 * headers) as raw HTTP POSTs over keep-alive connections (node:http), until a fixed number of calls is
 * done. Raw, not the v2 SDK `Client`: the generator shares the cores with what it measures, so its own
 * CPU per call must stay small beside a replica's. The bench first measures both generators against the
 * same replica and prints their CPU per call; one call through the SDK client checks that the fleet
 * answers a real client.
 *
 * Each replica first answers a few thousand untimed calls (a fresh Node process under tsx costs over a
 * millisecond of CPU per call at first). Then the cases, in interleaved rounds (the order rotates each
 * round), each a fixed number of calls from K clients at once, then again from one client calling one
 * at a time (no queueing; every audit record committed alone):
 * 1. one replica, no audit, direct (the baseline);
 * 2. one replica + SQLite, direct;
 * 3. one replica + PostgreSQL, direct;
 * 4. one replica + PostgreSQL through HAProxy;
 * 5. three replicas + PostgreSQL through HAProxy.
 * For each: calls/s, p50 and p99 latency (every call of the timed rounds), and where the time went: the
 * CPU time (utime+stime from /proc/<pid>/stat, 10 ms ticks, summed over the rounds) of the replicas,
 * of the PostgreSQL processes, of HAProxy and of this generator, per call; the machine's busy time from
 * /proc/stat shows what other work took meanwhile. For the PostgreSQL cases the rows are counted after
 * each turn (one per call) and so are the commits (the rows one INSERT wrote share its xmin).
 *
 * From that the bench prints what the audit adds per call, which cost grows from one replica to three,
 * and the throughput it expects at 8 and 32 cores: the cores divided by the server's CPU per call
 * (toolpact + PostgreSQL + HAProxy), between the one-replica and the three-replica figures. No figure
 * is checked against a threshold. The figures also go, as JSON, to `FLEET_BENCH_JSON` (default
 * .toolpact-tmp/bench/fleet.json). Every process started is stopped and followed to its end; one still
 * running is reported, then killed.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as PgClient } from 'pg';
import { type HaproxyServer, haproxyAvailable, startHaproxy } from '../test/support/haproxy.js';
import {
  freePort,
  killTree,
  logTail,
  type PostgresServer,
  postgresAvailable,
  processAlive,
  processTree,
  type Running,
  registerLeftover,
  spawnLogged,
  startPostgres,
  unregisterLeftover,
} from '../test/support/postgres.js';
import { printRows } from './measure.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join('bin', 'toolpact.js');
const FIXTURE = join('bench', 'fixtures', 'fleet', 'tools.ts');
const POLICY = join('bench', 'fixtures', 'fleet', 'policy.json');
const OUTPUT = resolve(ROOT, process.env.FLEET_BENCH_JSON ?? join('.toolpact-tmp', 'bench', 'fleet.json'));
const MODERN = '2026-07-28';

/** Concurrent clients of the load generator. */
const CLIENTS = 32;
/** Calls per case in each timed round. */
const CALLS = 2_500;
const ROUNDS = 3;
/**
 * Calls each replica answers before anything is timed: a fresh Node process under tsx needs thousands
 * of calls before its CPU per call settles (over a millisecond at first).
 */
const WARMUP_CALLS = 4_000;
/**
 * Calls per case and round from a single client, one at a time: the latency of a call that does not
 * queue, and the audit's cost when every record has a commit of its own.
 */
const SINGLE_CALLS = 350;
/** Calls per generator when the raw and the SDK generators are compared. */
const GENERATOR_CALLS = 600;
/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;
/** PostgreSQL connections each replica's pool may open (the store's default). */
const POOL_SIZE = 10;

type Group = 'toolpact' | 'postgres' | 'haproxy' | 'generator';
const GROUPS: readonly Group[] = ['toolpact', 'postgres', 'haproxy', 'generator'];

interface Replica {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  readonly running: Running;
  readonly log: string;
}

interface Target {
  readonly key: string;
  readonly label: string;
  readonly url: string;
  /** The replicas that answer this case. */
  readonly replicas: readonly Replica[];
  readonly postgres: boolean;
  readonly haproxy: boolean;
}

interface Turn {
  readonly calls: number;
  readonly wallNs: number;
  readonly latenciesNs: readonly number[];
  /** CPU ticks of each group in the turn. */
  readonly ticks: Record<Group, number>;
  /** Busy ticks of the whole machine (every CPU) in the turn. */
  readonly machineTicks: number;
  readonly rows?: number;
  readonly commits?: number;
}

interface Stack {
  readonly dir: string;
  readonly replicas: Replica[];
  postgres?: PostgresServer;
  readonly balancers: HaproxyServer[];
  /** Processes that outlived their stop (then killed). */
  readonly leftover: { pid: number; command: string }[];
}

export default async function run(): Promise<void> {
  const missing = postgresAvailable() ?? haproxyAvailable();
  if (missing !== undefined) {
    process.stdout.write(
      `skipped: ${missing}. Install them (Debian: apt-get install postgresql haproxy) to run the fleet bench.\n`,
    );
    return;
  }
  const began = Date.now();
  const loadBefore = loadavg();
  const stack: Stack = {
    dir: mkdtempSync(join(tmpdir(), 'toolpact-fleet-bench-')),
    replicas: [],
    balancers: [],
    leftover: [],
  };
  try {
    const postgres = await startPostgres();
    stack.postgres = postgres;
    const settings = await serverSettings(postgres.url);
    const stateKey = randomBytes(32).toString('hex');
    const [none, sqlite, pg1, pg2, pg3] = await Promise.all([
      startReplica(stack, 'none', [], stateKey),
      startReplica(stack, 'sqlite', ['--audit', join(stack.dir, 'audit.db')], stateKey),
      startReplica(stack, 'pg1', ['--store', postgres.url], stateKey),
      startReplica(stack, 'pg2', ['--store', postgres.url], stateKey),
      startReplica(stack, 'pg3', ['--store', postgres.url], stateKey),
    ]);
    const backend = (replica: Replica) => ({ host: '127.0.0.1', port: replica.port });
    const one = await startHaproxy([backend(pg1!)]);
    stack.balancers.push(one);
    const three = await startHaproxy([pg1!, pg2!, pg3!].map(backend));
    stack.balancers.push(three);

    process.stdout.write(
      `PostgreSQL ${settings.server_version}, the harness's private cluster: ${Object.entries(settings)
        .filter(([name]) => name !== 'server_version')
        .map(([name, value]) => `${name}=${value}`)
        .join(', ')}; each replica's pool up to ${POOL_SIZE} connections.\n`,
    );
    const checked = await sdkCall(three.url('/mcp'));
    process.stdout.write(`A v2 SDK Client pinned to ${MODERN} through HAProxy: ${checked}.\n\n`);

    const generators = await compareGenerators(none!);

    const targets: Target[] = [
      {
        key: 'none',
        label: '1 replica, no audit, direct',
        url: none!.url,
        replicas: [none!],
        postgres: false,
        haproxy: false,
      },
      {
        key: 'sqlite',
        label: '1 replica + SQLite, direct',
        url: sqlite!.url,
        replicas: [sqlite!],
        postgres: false,
        haproxy: false,
      },
      {
        key: 'pg-direct',
        label: '1 replica + PostgreSQL, direct',
        url: pg1!.url,
        replicas: [pg1!],
        postgres: true,
        haproxy: false,
      },
      {
        key: 'pg-1',
        label: '1 replica + PostgreSQL, HAProxy',
        url: one.url('/mcp'),
        replicas: [pg1!],
        postgres: true,
        haproxy: true,
      },
      {
        key: 'pg-3',
        label: '3 replicas + PostgreSQL, HAProxy',
        url: three.url('/mcp'),
        replicas: [pg1!, pg2!, pg3!],
        postgres: true,
        haproxy: true,
      },
    ];
    process.stdout.write(
      `${CLIENTS} concurrent clients (raw HTTP POSTs of ${MODERN} tools/call, keep-alive); ${CALLS} calls per case in each of ${ROUNDS} interleaved rounds, after ${WARMUP_CALLS} untimed calls to each replica; then ${ROUNDS} more rounds of ${SINGLE_CALLS} calls per case from one client, one at a time\n\n`,
    );
    await Promise.all(
      stack.replicas.map(async (replica) => {
        const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
        try {
          await drive(WARMUP_CALLS, () => rawCall(replica.url, agent), 8);
        } finally {
          agent.destroy();
        }
      }),
    );
    const turns = new Map<string, Turn[]>();
    const single = new Map<string, Turn[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (let step = 0; step < targets.length; step++) {
        const target = targets[(step + round) % targets.length]!;
        const turn = await timeTurn(stack, target, CALLS, CLIENTS);
        turns.set(target.key, [...(turns.get(target.key) ?? []), turn]);
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (let step = 0; step < targets.length; step++) {
        const target = targets[(step + round) % targets.length]!;
        const turn = await timeTurn(stack, target, SINGLE_CALLS, 1);
        single.set(target.key, [...(single.get(target.key) ?? []), turn]);
      }
    }

    const figures: CaseFigures[] = targets.map((target) => ({
      case: target.label,
      replicas: target.replicas.length,
      loaded: summarize(turns.get(target.key)!, CLIENTS),
      single: summarize(single.get(target.key)!, 1),
    }));
    printCases(figures);
    const estimate = estimateCores(figures);
    printEstimate(figures, estimate);

    const output = {
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model ?? 'unknown',
        node: process.version,
        loadAverage: { before: loadBefore.map(round1), after: loadavg().map(round1) },
        date: new Date().toISOString(),
      },
      replicasRunFrom: 'bin/toolpact.js: the TypeScript sources through tsx',
      postgresSettings: settings,
      clients: CLIENTS,
      callsPerTurn: CALLS,
      rounds: ROUNDS,
      generators,
      cases: figures,
      estimate,
      elapsedSeconds: 0,
      leftoverProcesses: stack.leftover,
    };
    await stopStack(stack);
    output.elapsedSeconds = Math.round((Date.now() - began) / 1000);
    mkdirSync(dirname(OUTPUT), { recursive: true });
    writeFileSync(OUTPUT, `${JSON.stringify(output, null, 2)}\n`);
    process.stdout.write(
      `\n${stack.leftover.length === 0 ? 'Every process started here ended when it was stopped.' : `${stack.leftover.length} processes outlived their stop and were killed: ${stack.leftover.map((each) => `${each.pid} ${each.command}`).join('; ')}`}\n` +
        `${cpus().length} CPUs, shared with whatever else runs here (load average ${loadBefore.map((value) => value.toFixed(1)).join(' ')} before, ${loadavg()
          .map((value) => value.toFixed(1))
          .join(' ')} after); ${output.elapsedSeconds} s in all.\nFigures written to ${OUTPUT}\n`,
    );
  } finally {
    await stopStack(stack);
    rmSync(stack.dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// The stack

/** Starts one replica and waits for the line that says where it listens. */
async function startReplica(
  stack: Stack,
  name: string,
  flags: readonly string[],
  stateKey: string,
): Promise<Replica> {
  const dir = join(stack.dir, name);
  mkdirSync(dir);
  const log = join(dir, 'replica.log');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, TOOLPACT_STATE_KEY: stateKey };
  delete env.TOOLPACT_STORE;
  const running = spawnLogged(
    process.execPath,
    [CLI, 'serve', FIXTURE, '--http', '--stateless', '--port', String(port), '--policy', POLICY, ...flags],
    log,
    { cwd: ROOT, env },
  );
  registerLeftover(dir, () => (running.done ? undefined : running.pid));
  const replica: Replica = { name, port, url: `http://127.0.0.1:${port}/mcp`, running, log };
  stack.replicas.push(replica);
  for (;;) {
    if (running.done) {
      throw new Error(
        `replica ${name} exited (${await running.exited}) before it listened:\n${logTail(log)}`,
      );
    }
    let text = '';
    try {
      text = readFileSync(log, 'utf8');
    } catch {}
    if (text.includes(` at ${replica.url} `)) return replica;
    await sleep(50);
  }
}

/** Stops the replicas (SIGTERM), the balancers and the cluster; anything still running is killed. */
async function stopStack(stack: Stack): Promise<void> {
  const replicas = stack.replicas.splice(0);
  await Promise.all(
    replicas.map(async (replica) => {
      const { running } = replica;
      const tree = processTree(running.pid);
      if (!running.done) {
        try {
          process.kill(running.pid, 'SIGTERM');
        } catch {}
      }
      const deadline = Date.now() + 10_000;
      while ((!running.done || tree.some(processAlive)) && Date.now() < deadline) await sleep(25);
      for (const pid of tree.filter(processAlive)) {
        stack.leftover.push({ pid, command: commandOf(pid).replace(ROOT, '.') });
        killTree(pid);
      }
      unregisterLeftover(dirname(replica.log));
    }),
  );
  for (const balancer of stack.balancers.splice(0)) await balancer.stop();
  const postgres = stack.postgres;
  stack.postgres = undefined;
  await postgres?.stop();
}

// ---------------------------------------------------------------------------------------------------------
// Load

const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'fleet-bench', version: '1.0.0' },
};
let nextId = 0;

/** One revision 2026-07-28 tools/call as a raw POST; resolves when the answer is read and checked. */
function rawCall(url: string, agent: Agent): Promise<void> {
  const id = ++nextId;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'status', arguments: { service: `s${id}` }, _meta: META },
  });
  return new Promise((resolvePromise, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'status',
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('error', reject);
        response.on('end', () => {
          const problem = checkAnswer(response.statusCode, response.headers['content-type'], text, id);
          if (problem) reject(new Error(`${url}: ${problem}`));
          else resolvePromise();
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Undefined when the answer is the tool's successful result, else what is wrong with it. */
function checkAnswer(status: number | undefined, type: string | undefined, text: string, id: number) {
  if (status !== 200) return `HTTP ${status}: ${text.slice(0, 300)}`;
  const payloads = type?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
    : [text];
  for (const payload of payloads) {
    let message: { id?: unknown; result?: { structuredContent?: { up?: unknown } } };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      continue;
    }
    if (message.id !== id) continue;
    return message.result?.structuredContent?.up === true
      ? undefined
      : `the call did not succeed: ${payload.slice(0, 300)}`;
  }
  return `no answer to request ${id}: ${text.slice(0, 300)}`;
}

/** `calls` calls from {@link CLIENTS} loops; each call's latency in nanoseconds. */
async function drive(calls: number, call: (client: number) => Promise<void>, clients = CLIENTS) {
  const latencies: number[] = [];
  let issued = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (issued < calls) {
        issued++;
        const started = process.hrtime.bigint();
        await call(client);
        latencies.push(Number(process.hrtime.bigint() - started));
      }
    }),
  );
  return latencies;
}

/** One call through the v2 SDK client, to check that the fleet answers a real client. */
async function sdkCall(url: string): Promise<string> {
  const client = new Client(
    { name: 'fleet-bench', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const result = await client.callTool({ name: 'status', arguments: { service: 'api' } });
    if (result.isError || (result.structuredContent as { up?: unknown } | undefined)?.up !== true) {
      throw new Error(`the SDK client's call failed: ${JSON.stringify(result)}`);
    }
    return `era ${client.getProtocolEra()}, ${JSON.stringify(result.structuredContent)}`;
  } finally {
    await client.close();
  }
}

/**
 * The generator's own CPU per call, raw POSTs against the v2 SDK client (one Client per loop), each
 * against the replica with no audit, with the replica's CPU per call beside it.
 */
async function compareGenerators(replica: Replica) {
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const client = new Client(
        { name: 'fleet-bench', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: MODERN } } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(replica.url)));
      return client;
    }),
  );
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const sdk = async () => {
    await drive(GENERATOR_CALLS, async (index) => {
      const result = await clients[index]!.callTool({ name: 'status', arguments: { service: 'api' } });
      if (result.isError) throw new Error(`the SDK client's call failed: ${JSON.stringify(result)}`);
    });
  };
  const raw = () => drive(GENERATOR_CALLS, () => rawCall(replica.url, agent));
  const figures: Record<'raw' | 'sdk', { generator: number[]; replica: number[] }> = {
    raw: { generator: [], replica: [] },
    sdk: { generator: [], replica: [] },
  };
  try {
    await raw();
    await sdk();
    for (let round = 0; round < 2; round++) {
      for (const [kind, load] of [
        ['raw', raw],
        ['sdk', sdk],
      ] as const) {
        const before = process.cpuUsage();
        const replicaBefore = ticksOf(processTree(replica.running.pid));
        await load();
        const used = process.cpuUsage(before);
        const replicaTicks = ticksBetween(replicaBefore, ticksOf(processTree(replica.running.pid)));
        figures[kind].generator.push((used.user + used.system) / 1000 / GENERATOR_CALLS);
        figures[kind].replica.push((replicaTicks * (1000 / TICKS_PER_SECOND)) / GENERATOR_CALLS);
      }
    }
  } finally {
    agent.destroy();
    await Promise.all(clients.map((client) => client.close()));
  }
  const summary = {
    rawGeneratorCpuMsPerCall: round3(median(figures.raw.generator)),
    sdkGeneratorCpuMsPerCall: round3(median(figures.sdk.generator)),
    replicaCpuMsPerCallUnderRaw: round3(median(figures.raw.replica)),
    replicaCpuMsPerCallUnderSdk: round3(median(figures.sdk.replica)),
  };
  process.stdout.write(
    `Load generator, ${GENERATOR_CALLS} calls from ${CLIENTS} clients to the replica with no audit, 2 rounds: the generator's CPU per call ` +
      `${summary.rawGeneratorCpuMsPerCall.toFixed(3)} ms with raw POSTs, ${summary.sdkGeneratorCpuMsPerCall.toFixed(3)} ms with the v2 SDK Client ` +
      `(the replica's: ${summary.replicaCpuMsPerCallUnderRaw.toFixed(3)} and ${summary.replicaCpuMsPerCallUnderSdk.toFixed(3)} ms). ` +
      `${summary.sdkGeneratorCpuMsPerCall > summary.replicaCpuMsPerCallUnderSdk ? 'The SDK client would cost more than the server it drives on the same two cores, so the load is raw POSTs of the same requests.' : 'The load is raw POSTs of the same requests, the lighter of the two.'}\n\n`,
  );
  return summary;
}

/** Runs one case's calls and reads every group's CPU time around them. */
async function timeTurn(stack: Stack, target: Target, calls: number, clients: number): Promise<Turn> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const lastRow = target.postgres ? await auditMark(stack.postgres!.url) : 0;
  const before = readGroups(stack);
  const cpuStarted = process.cpuUsage();
  const started = process.hrtime.bigint();
  let latenciesNs: number[];
  try {
    latenciesNs = await drive(calls, () => rawCall(target.url, agent), clients);
  } finally {
    agent.destroy();
  }
  const wallNs = Number(process.hrtime.bigint() - started);
  const used = process.cpuUsage(cpuStarted);
  const after = readGroups(stack);
  const ticks = {
    toolpact: ticksBetween(before.toolpact, after.toolpact),
    postgres: ticksBetween(before.postgres, after.postgres),
    haproxy: ticksBetween(before.haproxy, after.haproxy),
    generator: ((used.user + used.system) / 1e6) * TICKS_PER_SECOND,
  };
  const turn: Turn = {
    calls,
    wallNs,
    latenciesNs,
    ticks,
    machineTicks: after.machine - before.machine,
  };
  if (!target.postgres) return turn;
  const [row] = await query<{ records: number; commits: number }>(
    stack.postgres!.url,
    'SELECT count(*)::int AS records, count(DISTINCT xmin::text)::int AS commits FROM audit_log WHERE id > $1',
    [lastRow],
  );
  if (row!.records !== calls) {
    throw new Error(`${target.label}: ${row!.records} audit rows for ${calls} calls`);
  }
  return { ...turn, rows: row!.records, commits: row!.commits };
}

async function auditMark(url: string): Promise<number> {
  const [row] = await query<{ last: string | null }>(url, 'SELECT max(id) AS last FROM audit_log');
  return Number(row!.last ?? 0);
}

// ---------------------------------------------------------------------------------------------------------
// CPU time

interface GroupReading {
  readonly toolpact: Map<number, number>;
  readonly postgres: Map<number, number>;
  readonly haproxy: Map<number, number>;
  readonly machine: number;
}

function readGroups(stack: Stack): GroupReading {
  return {
    toolpact: ticksOf(stack.replicas.flatMap((replica) => processTree(replica.running.pid))),
    postgres: ticksOf(stack.postgres?.processes() ?? []),
    haproxy: ticksOf(stack.balancers.flatMap((balancer) => balancer.processes())),
    machine: machineBusyTicks(),
  };
}

/** utime + stime, in clock ticks, of each of `pids` that can still be read. */
function ticksOf(pids: readonly number[]): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {}
  }
  return ticks;
}

/** Ticks used between two readings; a process that started in between counts from zero. */
function ticksBetween(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let total = 0;
  for (const [pid, ticks] of after) total += ticks - (before.get(pid) ?? 0);
  return total;
}

/** Busy ticks of every CPU together (user, nice, system, irq, softirq, steal), from /proc/stat. */
function machineBusyTicks(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return user! + nice! + system! + irq! + softirq! + (steal ?? 0);
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------------------
// Figures

/** What one kind of load measured on one case. */
interface LoadFigures {
  readonly clients: number;
  readonly callsPerSecond: number;
  /** Min and max over the rounds (the same as the median with one round). */
  readonly callsPerSecondRange: readonly [number, number];
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** CPU milliseconds per call in each group, over every timed call. */
  readonly cpuMsPerCall: Record<Group, number>;
  /** The whole machine's busy CPU per call, and the part of it none of the groups used. */
  readonly machineCpuMsPerCall: number;
  readonly otherCpuMsPerCall: number;
  /** Cores busy on average meanwhile (of the machine's all, whoever used them). */
  readonly coresBusy: number;
  readonly recordsPerCommit?: number;
}

interface CaseFigures {
  readonly case: string;
  readonly replicas: number;
  /** {@link CLIENTS} clients at once, in interleaved rounds. */
  readonly loaded: LoadFigures;
  /** One client, one call at a time. */
  readonly single: LoadFigures;
}

function summarize(turns: readonly Turn[], clients: number): LoadFigures {
  const calls = turns.reduce((sum, turn) => sum + turn.calls, 0);
  const wallNs = turns.reduce((sum, turn) => sum + turn.wallNs, 0);
  const rates = turns.map((turn) => (turn.calls * 1e9) / turn.wallNs);
  const latencies = turns.flatMap((turn) => turn.latenciesNs);
  const perCall = (ticks: number) => round3((ticks * (1000 / TICKS_PER_SECOND)) / calls);
  const sumOf = (group: Group) => turns.reduce((sum, turn) => sum + turn.ticks[group], 0);
  const cpuMsPerCall = Object.fromEntries(GROUPS.map((group) => [group, perCall(sumOf(group))])) as Record<
    Group,
    number
  >;
  const machine = turns.reduce((sum, turn) => sum + turn.machineTicks, 0);
  const ours = GROUPS.reduce((sum, group) => sum + sumOf(group), 0);
  const rows = turns.reduce((sum, turn) => sum + (turn.rows ?? 0), 0);
  const commits = turns.reduce((sum, turn) => sum + (turn.commits ?? 0), 0);
  return {
    clients,
    callsPerSecond: Math.round(median(rates)),
    callsPerSecondRange: [Math.round(Math.min(...rates)), Math.round(Math.max(...rates))],
    p50Ms: round2(quantile(latencies, 0.5) / 1e6),
    p99Ms: round2(quantile(latencies, 0.99) / 1e6),
    cpuMsPerCall,
    machineCpuMsPerCall: perCall(machine),
    otherCpuMsPerCall: perCall(Math.max(0, machine - ours)),
    coresBusy: round2(machine / TICKS_PER_SECOND / (wallNs / 1e9)),
    ...(commits > 0 ? { recordsPerCommit: round1(rows / commits) } : {}),
  };
}

function printCases(figures: readonly CaseFigures[]): void {
  for (const load of ['loaded', 'single'] as const) {
    process.stdout.write(
      load === 'loaded'
        ? `${CLIENTS} clients at once: calls/s median over the rounds [min–max]; latency over every timed call; CPU ms per call, summed over the rounds\n`
        : `\nOne client, one call at a time (${ROUNDS} rounds of ${SINGLE_CALLS} calls): latency without queueing, each audit record committed alone\n`,
    );
    printRows(
      [
        'case',
        'calls/s',
        '[min–max]',
        'p50 ms',
        'p99 ms',
        'toolpact',
        'postgres',
        'haproxy',
        'generator',
        'other work',
        'cores busy',
        'records/commit',
      ],
      figures.map(({ case: label, [load]: figure }) => [
        label,
        String(figure.callsPerSecond),
        `[${figure.callsPerSecondRange[0]}–${figure.callsPerSecondRange[1]}]`,
        figure.p50Ms.toFixed(2),
        figure.p99Ms.toFixed(2),
        figure.cpuMsPerCall.toolpact.toFixed(3),
        figure.cpuMsPerCall.postgres.toFixed(3),
        figure.cpuMsPerCall.haproxy.toFixed(3),
        figure.cpuMsPerCall.generator.toFixed(3),
        figure.otherCpuMsPerCall.toFixed(3),
        figure.coresBusy.toFixed(2),
        figure.recordsPerCommit === undefined ? '' : figure.recordsPerCommit.toFixed(1),
      ]),
      { numbers: true },
    );
  }
}

interface AuditCost {
  /** The replica's CPU per call against the replica with no audit, ms. */
  readonly replicaMs: number;
  /** The database's CPU per call, ms (SQLite's is in the replica). */
  readonly databaseMs: number;
  /** p50 latency against no audit, ms. */
  readonly p50Ms: number;
  readonly recordsPerCommit?: number;
}

interface Estimate {
  /** What the audit adds per call, with one client (a commit per call) and with {@link CLIENTS}. */
  readonly audit: {
    readonly postgres: { readonly single: AuditCost; readonly loaded: AuditCost };
    readonly sqlite: { readonly single: AuditCost; readonly loaded: AuditCost };
  };
  /** PostgreSQL's CPU per call fitted as a part per record plus a part per commit (least squares). */
  readonly postgresModel?: {
    readonly perRecordMs: number;
    readonly perCommitMs: number;
    readonly points: number;
  };
  /**
   * Server CPU per call (toolpact + PostgreSQL + HAProxy) with {@link CLIENTS} clients: `low` from one
   * replica behind HAProxy with every call in flight on it, `high` from three replicas sharing them.
   */
  readonly serverCpuMsPerCall: { readonly low: number; readonly high: number };
  readonly cores: readonly {
    readonly cores: number;
    /** Calls/s from the high and from the low CPU per call. */
    readonly callsPerSecond: readonly [number, number];
    readonly replicas: number;
    readonly postgresCores: number;
    readonly postgresConnections: number;
  }[];
}

const serverCpu = (figure: LoadFigures) =>
  figure.cpuMsPerCall.toolpact + figure.cpuMsPerCall.postgres + figure.cpuMsPerCall.haproxy;

function estimateCores(figures: readonly CaseFigures[]): Estimate {
  const [none, sqlite, direct, one, three] = figures as [
    CaseFigures,
    CaseFigures,
    CaseFigures,
    CaseFigures,
    CaseFigures,
  ];
  const cost = (with_: LoadFigures, without: LoadFigures, database: boolean): AuditCost => ({
    replicaMs: round3(with_.cpuMsPerCall.toolpact - without.cpuMsPerCall.toolpact),
    databaseMs: database ? with_.cpuMsPerCall.postgres : 0,
    p50Ms: round2(with_.p50Ms - without.p50Ms),
    ...(with_.recordsPerCommit !== undefined ? { recordsPerCommit: with_.recordsPerCommit } : {}),
  });
  // PostgreSQL's CPU per call = a (per record) + b (per commit) / records per commit, fitted over every
  // PostgreSQL case and load: their batches run from one record per commit to a dozen or more.
  const points = [direct, one, three]
    .flatMap((figure) => [figure.single, figure.loaded])
    .filter((figure) => figure.recordsPerCommit !== undefined)
    .map((figure) => ({ x: 1 / figure.recordsPerCommit!, y: figure.cpuMsPerCall.postgres }));
  let postgresModel: Estimate['postgresModel'];
  const meanX = points.reduce((sum, point) => sum + point.x, 0) / points.length;
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / points.length;
  const spread = points.reduce((sum, point) => sum + (point.x - meanX) ** 2, 0);
  if (points.length >= 2 && spread > 0) {
    const perCommit = points.reduce((sum, point) => sum + (point.x - meanX) * (point.y - meanY), 0) / spread;
    const perRecord = meanY - perCommit * meanX;
    if (perCommit > 0 && perRecord > 0) {
      postgresModel = {
        perRecordMs: round3(perRecord),
        perCommitMs: round3(perCommit),
        points: points.length,
      };
    }
  }
  const high = Math.max(serverCpu(one.loaded), serverCpu(three.loaded));
  const low = Math.min(serverCpu(one.loaded), serverCpu(three.loaded));
  const cpu = three.loaded.cpuMsPerCall;
  const cores = [8, 32].map((count) => {
    const replicas = Math.max(1, Math.round((count * cpu.toolpact) / serverCpu(three.loaded)));
    return {
      cores: count,
      callsPerSecond: [Math.round((count * 1000) / high), Math.round((count * 1000) / low)] as const,
      replicas,
      postgresCores: round1((count * cpu.postgres) / serverCpu(three.loaded)),
      postgresConnections: replicas * POOL_SIZE,
    };
  });
  return {
    audit: {
      postgres: {
        single: cost(direct.single, none.single, true),
        loaded: cost(direct.loaded, none.loaded, true),
      },
      sqlite: {
        single: cost(sqlite.single, none.single, false),
        loaded: cost(sqlite.loaded, none.loaded, false),
      },
    },
    ...(postgresModel ? { postgresModel } : {}),
    serverCpuMsPerCall: { low: round3(low), high: round3(high) },
    cores,
  };
}

function printEstimate(figures: readonly CaseFigures[], estimate: Estimate): void {
  const [none, sqliteCase, direct, one, three] = figures as [
    CaseFigures,
    CaseFigures,
    CaseFigures,
    CaseFigures,
    CaseFigures,
  ];
  const ms = (value: number) => value.toFixed(3);
  const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
  const share = (part: number, whole: number) => `${Math.round((part / whole) * 100)}%`;
  const grows = (name: string, from: number, to: number) =>
    `${name} ${ms(from)} → ${ms(to)} (${signed(to - from)})`;
  const audit = (name: string, cost: AuditCost, latency: boolean) =>
    `replica CPU ${signed(cost.replicaMs)} ms${name === 'PostgreSQL' ? `, database CPU ${ms(cost.databaseMs)} ms` : ''}` +
    (latency ? `, p50 ${signed(cost.p50Ms)} ms` : '') +
    (cost.recordsPerCommit !== undefined
      ? ` (${cost.recordsPerCommit} record${cost.recordsPerCommit === 1 ? '' : 's'} per commit)`
      : '');
  const { postgres, sqlite } = estimate.audit;
  const loaded = (figure: CaseFigures) => figure.loaded.cpuMsPerCall;
  const lines = [
    '',
    'What the audit adds per call, against the replica with no audit (direct, no HAProxy):',
    `  PostgreSQL, one client: ${audit('PostgreSQL', postgres.single, true)}; ${CLIENTS} clients: ${audit('PostgreSQL', postgres.loaded, false)}, ${direct.loaded.callsPerSecond} calls/s against ${none.loaded.callsPerSecond}.`,
    `  SQLite, one client: ${audit('SQLite', sqlite.single, true)}; ${CLIENTS} clients: ${audit('SQLite', sqlite.loaded, false)}, ${sqliteCase.loaded.callsPerSecond} calls/s.`,
    estimate.postgresModel
      ? `  PostgreSQL's CPU per call, fitted over the ${estimate.postgresModel.points} PostgreSQL measurements: ${ms(estimate.postgresModel.perRecordMs)} ms per record + ${ms(estimate.postgresModel.perCommitMs)} ms per commit / records per commit.`
      : '  (The PostgreSQL measurements do not separate its cost per record from its cost per commit: too few, or the 10 ms ticks too coarse.)',
    `  HAProxy in front of one replica: ${ms(loaded(one).haproxy)} ms of its CPU per call; one client: p50 ${direct.single.p50Ms.toFixed(2)} → ${one.single.p50Ms.toFixed(2)} ms.`,
    '',
    `Where the time goes (CPU ms per call, ${CLIENTS} clients), one replica → three, through HAProxy:`,
    `  ${grows('toolpact', loaded(one).toolpact, loaded(three).toolpact)}, ${grows('PostgreSQL', loaded(one).postgres, loaded(three).postgres)}, ${grows('HAProxy', loaded(one).haproxy, loaded(three).haproxy)}.`,
    `  Records per commit ${one.loaded.recordsPerCommit} → ${three.loaded.recordsPerCommit}: each replica batches only its own calls, about ${Math.round(CLIENTS / 3)} in flight on each instead of ${CLIENTS}.`,
    `  The rest of the ${three.loaded.coresBusy.toFixed(2)} busy cores: the load generator ${ms(loaded(three).generator)} ms per call, other work on the machine ${ms(three.loaded.otherCpuMsPerCall)} ms per call.`,
    '',
    `Expected throughput on N cores running everything but the clients, CPU-bound at ${ms(estimate.serverCpuMsPerCall.high)} to ${ms(estimate.serverCpuMsPerCall.low)} ms of server CPU per call (three replicas sharing ${CLIENTS} clients; one replica with all of them):`,
    ...estimate.cores.map(
      (entry) =>
        `  ${entry.cores} cores: about ${entry.callsPerSecond[0]} to ${entry.callsPerSecond[1]} calls/s, with about ${entry.replicas} replicas, ${entry.postgresCores.toFixed(1)} cores of PostgreSQL, and up to ${entry.postgresConnections} PostgreSQL connections at ${POOL_SIZE} per replica.`,
    ),
    `  Why: toolpact is ${share(loaded(three).toolpact, serverCpu(three.loaded))} of the server's CPU per call and each replica is one Node process, about one core, so throughput grows with replicas until the cores run out; the range is toolpact's CPU per call, which was higher with three replicas than with one.`,
    '  A replica with more calls in flight shares its audit INSERTs among more of them; on two cores, three replicas also take turns with everything else on the same cores, a cost a core per replica would not have.',
    "  PostgreSQL's cost per call is its per-record part plus a commit shared by the batch: it grows with replicas as each replica's batches shrink. With fsync on (as in production; this cluster has it off), each commit also flushes the WAL to disk, a wait and some CPU that the batch shares too (policy-audit measures both).",
    `  HAProxy's cost per call is small and grows little with replicas. At ${POOL_SIZE} connections per replica, a few dozen replicas reach PostgreSQL's max_connections (100 by default): give each replica a smaller pool, or put a pooler in front.`,
    `  The limits of these figures: ${cpus().length} cores shared with the load generator and with other work, CPU time in 10 ms ticks, one PostgreSQL on the same machine.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function serverSettings(url: string): Promise<Record<string, string>> {
  const names = [
    'server_version',
    'fsync',
    'synchronous_commit',
    'full_page_writes',
    'max_connections',
    'shared_buffers',
  ];
  const values: Record<string, string> = {};
  for (const name of names) {
    const [row] = await query<Record<string, string>>(url, `SHOW ${name}`);
    values[name] = row![name]!;
  }
  return values;
}

async function query<T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new PgClient({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

const round1 = (value: number) => Math.round(value * 10) / 10;
const round2 = (value: number) => Math.round(value * 100) / 100;
const round3 = (value: number) => Math.round(value * 1000) / 1000;

if (import.meta.url === `file://${process.argv[1]}`) await run();
