/**
 * `npm run bench -- policy-audit`: what an audit log that must keep every record costs a call through
 * the registry, the PostgreSQL store against SQLite and JSON Lines (`policy.bench.ts` times the sinks'
 * `observe` alone).
 *
 * A Registry serves one trivial read tool (`status {service}`) behind a policy gate of one allow rule,
 * and the gate's `observe` is, in turn:
 *
 * - (a) none: the gate alone, the baseline;
 * - (b) the JSON Lines file (`openAuditLog`: one O_APPEND write per record, no fsync);
 * - (c) SQLite (`openSqliteAuditLog`: WAL, synchronous=NORMAL);
 * - (d) the PostgreSQL store (`openPostgresStore(url).audit.observe`) on the test harness's private
 *   cluster with its settings (`startPostgres()`: fsync=off, full_page_writes=off, everything else
 *   PostgreSQL's default, so synchronous_commit=on);
 * - and, for durability like for like: (e) the store on a second private cluster with fsync=on and
 *   full_page_writes=on (PostgreSQL's defaults), (f) the JSON Lines file with `fsync: true` and (g)
 *   SQLite with `fsync: true` (synchronous=FULL): each record on disk before the result is sent.
 *
 * Every case makes N calls twice: sequentially (one in flight), and with 64 in flight at once (64
 * loops calling back to back). The store's `observe` answers a promise that the registry awaits, so a
 * result waits for its record's commit; records of calls that end in the same turn of the event loop go
 * in one INSERT, so concurrency lets records share a commit (the records per commit are counted after
 * the run: every row an INSERT wrote has that transaction's xmin). The file sinks write synchronously,
 * so concurrency changes nothing for them. Cases run in interleaved rounds (the order rotates); the
 * figures are medians over the rounds: calls/s, µs per call, the cost per call over (a), calls/s as a
 * ratio to SQLite (c), this process's CPU per call, and for PostgreSQL the server's CPU per call (its
 * processes' utime+stime from /proc). No figure is checked against a threshold; every record must be
 * kept. The figures also go, as JSON, to `POLICY_AUDIT_BENCH_JSON` (default
 * .toolpact-tmp/bench/policy-audit.json).
 */
import { readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import * as z from 'zod';
import { type CallRecord, defineTool, Registry } from '../src/index.js';
import {
  type AuditSink,
  createPolicyGate,
  definePolicy,
  openAuditLog,
  openSqliteAuditLog,
} from '../src/policy/index.js';
import { openPostgresStore, type PostgresStore } from '../src/store/index.js';
import { type PostgresServer, postgresAvailable, startPostgres } from '../test/support/postgres.js';
import { printRows } from './measure.js';

const ROOT = join(import.meta.dirname, '..');
const OUTPUT = resolve(
  ROOT,
  process.env.POLICY_AUDIT_BENCH_JSON ?? join('.toolpact-tmp', 'bench', 'policy-audit.json'),
);
/** Calls per case in each round, sequential and concurrent alike. */
const CALLS = 2_000;
const ROUNDS = 3;
/** Calls per case in the untimed warm-up round. */
const WARMUP_CALLS = 300;
const IN_FLIGHT = 64;
/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

const policy = definePolicy({
  rules: [{ id: 'status-allowed', action: 'allow', tool: 'status', reason: 'a read, always allowed' }],
});

const status = defineTool({
  name: 'status',
  description: 'Report that the service `service` is up. Read-only; it changes nothing.',
  category: 'read',
  input: z.object({ service: z.string().min(1).describe('The service to report on, e.g. "api".') }),
  execute: ({ service }) => ({ service, up: true }),
});

type Observe = (record: CallRecord) => unknown;
type Mode = 'sequential' | 'concurrent';
const MODES: readonly Mode[] = ['sequential', 'concurrent'];

interface Case {
  readonly key: string;
  readonly label: string;
  /** One registry per mode, so that each PostgreSQL mode writes a database of its own. */
  readonly registry: Record<Mode, Registry>;
  /** The PostgreSQL cluster behind the case, for its CPU time and its commits. */
  readonly postgres?: { readonly server: PostgresServer; readonly urls: Record<Mode, string> };
  /** Records the sink kept and lost, summed over the modes. */
  readonly kept: () => number;
  readonly lost: () => number;
}

interface Turn {
  readonly wallNs: number;
  readonly cpuNs: number;
  /** The PostgreSQL processes' CPU time in the turn (ns), when the case has a cluster. */
  readonly serverCpuNs?: number;
}

export default async function run(): Promise<void> {
  const began = Date.now();
  const loadBefore = loadavg();
  const dir = await mkdtemp(join(tmpdir(), 'toolpact-bench-policy-audit-'));
  const clusters: PostgresServer[] = [];
  const stores: PostgresStore[] = [];
  const closers: (() => void)[] = [];
  try {
    const missing = postgresAvailable();
    if (missing !== undefined) {
      process.stdout.write(
        `PostgreSQL cases skipped: ${missing} (Debian: apt-get install postgresql); the local sinks alone follow.\n`,
      );
    }
    const registryWith = (observe: Observe | undefined) =>
      new Registry({ ...createPolicyGate(policy, observe ? { observe } : {}).registryOptions }).register(
        status,
      );
    const cases: Case[] = [];
    const local = (key: string, label: string, open: (mode: Mode) => AuditSink) => {
      const sinks = { sequential: open('sequential'), concurrent: open('concurrent') };
      for (const sink of Object.values(sinks)) closers.push(() => sink.close());
      cases.push({
        key,
        label,
        registry: {
          sequential: registryWith(sinks.sequential.observe),
          concurrent: registryWith(sinks.concurrent.observe),
        },
        kept: () => sinks.sequential.written() + sinks.concurrent.written(),
        lost: () => sinks.sequential.failed() + sinks.concurrent.failed(),
      });
    };
    cases.push({
      key: 'none',
      label: '(a) no audit',
      registry: { sequential: registryWith(undefined), concurrent: registryWith(undefined) },
      kept: () => 0,
      lost: () => 0,
    });
    local('jsonl', '(b) JSON Lines', (mode) => openAuditLog(join(dir, `${mode}.jsonl`)));
    local('sqlite', '(c) SQLite (WAL, synchronous=NORMAL)', (mode) =>
      openSqliteAuditLog(join(dir, `${mode}.db`)),
    );
    const settings: Record<string, Record<string, string>> = {};
    if (missing === undefined) {
      const postgresCase = async (key: string, label: string, server: PostgresServer) => {
        const urls = {
          sequential: await server.createDatabase(`${key}_sequential`),
          concurrent: await server.createDatabase(`${key}_concurrent`),
        };
        const opened = {
          sequential: await openPostgresStore(urls.sequential),
          concurrent: await openPostgresStore(urls.concurrent),
        };
        stores.push(opened.sequential, opened.concurrent);
        settings[key] = await serverSettings(server.url);
        cases.push({
          key,
          label,
          registry: {
            sequential: registryWith(opened.sequential.audit.observe),
            concurrent: registryWith(opened.concurrent.audit.observe),
          },
          postgres: { server, urls },
          kept: () => opened.sequential.audit.written() + opened.concurrent.audit.written(),
          lost: () => opened.sequential.audit.failed() + opened.concurrent.audit.failed(),
        });
      };
      const harness = await startPostgres();
      clusters.push(harness);
      await postgresCase('pg', '(d) PostgreSQL, harness cluster (fsync=off)', harness);
      const durable = await startPostgres({ settings: { fsync: 'on', full_page_writes: 'on' } });
      clusters.push(durable);
      await postgresCase('pg_fsync', '(e) PostgreSQL, fsync=on', durable);
    }
    local('jsonl_fsync', '(f) JSON Lines, fsync each record', (mode) =>
      openAuditLog(join(dir, `${mode}-fsync.jsonl`), { fsync: true }),
    );
    local('sqlite_full', '(g) SQLite (WAL, synchronous=FULL)', (mode) =>
      openSqliteAuditLog(join(dir, `${mode}-full.db`), { fsync: true }),
    );

    for (const [key, values] of Object.entries(settings)) {
      process.stdout.write(
        `${key === 'pg' ? '(d)' : '(e)'} PostgreSQL ${values.server_version}: ${Object.entries(values)
          .filter(([name]) => name !== 'server_version')
          .map(([name, value]) => `${name}=${value}`)
          .join(', ')}\n`,
      );
    }
    process.stdout.write(
      `${CALLS} calls per case and mode in each of ${ROUNDS} interleaved rounds (after a warm-up round of ${WARMUP_CALLS}); sequential = one call in flight, concurrent = ${IN_FLIGHT} in flight\n\n`,
    );

    const turns = new Map<string, Turn[]>();
    const slots = cases.flatMap((entry) => MODES.map((mode) => ({ entry, mode })));
    for (let round = -1; round < ROUNDS; round++) {
      for (let step = 0; step < slots.length; step++) {
        const { entry, mode } = slots[(step + Math.max(round, 0) * 3) % slots.length]!;
        const calls = round < 0 ? WARMUP_CALLS : CALLS;
        const turn = await timeTurn(entry, mode, calls);
        if (round < 0) continue;
        const key = `${entry.key}/${mode}`;
        turns.set(key, [...(turns.get(key) ?? []), turn]);
      }
    }

    const totalCalls = (WARMUP_CALLS + CALLS * ROUNDS) * MODES.length;
    const problems: string[] = [];
    for (const entry of cases) {
      if (entry.key === 'none') continue;
      if (entry.lost() > 0 || entry.kept() !== totalCalls) {
        problems.push(`${entry.label}: kept ${entry.kept()} of ${totalCalls} records, lost ${entry.lost()}`);
      }
    }

    // Commits: the rows one INSERT wrote share its transaction id (xmin).
    const commits: Record<string, { records: number; commits: number }> = {};
    for (const entry of cases) {
      if (!entry.postgres) continue;
      for (const mode of MODES) {
        const [row] = await query<{ records: number; commits: number }>(
          entry.postgres.urls[mode],
          'SELECT count(*)::int AS records, count(DISTINCT xmin::text)::int AS commits FROM audit_log',
        );
        commits[`${entry.key}/${mode}`] = row!;
        if (row!.records !== totalCalls / MODES.length) {
          problems.push(
            `${entry.label} ${mode}: ${row!.records} rows in audit_log for ${totalCalls / MODES.length} calls`,
          );
        }
      }
    }
    if (problems.length > 0) throw new Error(`Records were lost:\n${problems.join('\n')}`);

    const figures = summarize(cases, turns, commits);
    printFigures(cases, figures);
    const output = {
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model ?? 'unknown',
        node: process.version,
        loadAverage: { before: loadBefore.map(round1), after: loadavg().map(round1) },
        date: new Date().toISOString(),
      },
      callsPerTurn: CALLS,
      rounds: ROUNDS,
      inFlight: IN_FLIGHT,
      postgresSettings: settings,
      cases: figures,
      elapsedSeconds: Math.round((Date.now() - began) / 1000),
    };
    await mkdir(dirname(OUTPUT), { recursive: true });
    await writeFile(OUTPUT, `${JSON.stringify(output, null, 2)}\n`);
    process.stdout.write(
      `\nEvery sink kept all ${totalCalls} records of its ${totalCalls} calls. ${cpus().length} CPUs (shared with whatever else runs), load average ${loadBefore
        .map((value) => value.toFixed(1))
        .join(' ')} before and ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')} after; ${output.elapsedSeconds} s in all.\nFigures written to ${OUTPUT}\n`,
    );
  } finally {
    for (const close of closers) close();
    await Promise.allSettled(stores.map((store) => store.close()));
    for (const cluster of clusters) await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs one case's calls (one in flight, or {@link IN_FLIGHT}) and times them. */
async function timeTurn(entry: Case, mode: Mode, calls: number): Promise<Turn> {
  const registry = entry.registry[mode];
  const one = async (index: number) => {
    const envelope = await registry.call('status', { service: `s${index}` });
    if (!envelope.ok) throw new Error(`${entry.label}: the call failed: ${JSON.stringify(envelope.error)}`);
  };
  const serverBefore = entry.postgres ? cpuTicks(entry.postgres.server.processes()) : undefined;
  const cpuStarted = process.cpuUsage();
  const started = process.hrtime.bigint();
  if (mode === 'sequential') {
    for (let index = 0; index < calls; index++) await one(index);
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < calls) await one(next++);
      }),
    );
  }
  const wallNs = Number(process.hrtime.bigint() - started);
  const used = process.cpuUsage(cpuStarted);
  const turn: Turn = { wallNs, cpuNs: (used.user + used.system) * 1000 };
  if (!entry.postgres || !serverBefore) return turn;
  const serverAfter = cpuTicks(entry.postgres.server.processes());
  return { ...turn, serverCpuNs: ticksBetween(serverBefore, serverAfter) * (1e9 / TICKS_PER_SECOND) };
}

interface CaseFigures {
  readonly case: string;
  readonly mode: Mode;
  readonly callsPerSecond: number;
  readonly microsPerCall: number;
  /** µs per call more than (a) in the same mode (median of the per-round differences). */
  readonly microsOverNone: number;
  /** calls/s divided by SQLite's (c) in the same mode (median of the per-round ratios). */
  readonly ratioToSqlite: number;
  /** This process's CPU per call (the registry, the gate, the sink's client side). */
  readonly cpuMicrosPerCall: number;
  /** PostgreSQL's processes' CPU per call (10 ms clock ticks summed over the turn). */
  readonly serverCpuMicrosPerCall?: number;
  readonly recordsPerCommit?: number;
  /** The range (min–max over the rounds) of calls/s. */
  readonly callsPerSecondRange: readonly [number, number];
}

function summarize(
  cases: readonly Case[],
  turns: ReadonlyMap<string, readonly Turn[]>,
  commits: Record<string, { records: number; commits: number }>,
): CaseFigures[] {
  const figures: CaseFigures[] = [];
  for (const mode of MODES) {
    const none = turns.get(`none/${mode}`)!;
    const sqlite = turns.get(`sqlite/${mode}`)!;
    for (const entry of cases) {
      const series = turns.get(`${entry.key}/${mode}`)!;
      const perCall = series.map((turn) => turn.wallNs / CALLS);
      const rates = perCall.map((ns) => 1e9 / ns);
      const counted = commits[`${entry.key}/${mode}`];
      const serverCpu = series.every((turn) => turn.serverCpuNs !== undefined)
        ? median(series.map((turn) => turn.serverCpuNs! / CALLS / 1000))
        : undefined;
      figures.push({
        case: entry.label,
        mode,
        callsPerSecond: Math.round(median(rates)),
        microsPerCall: round1(median(perCall) / 1000),
        microsOverNone: round1(
          median(series.map((turn, index) => (turn.wallNs - none[index]!.wallNs) / CALLS / 1000)),
        ),
        ratioToSqlite: round2(median(series.map((turn, index) => sqlite[index]!.wallNs / turn.wallNs))),
        cpuMicrosPerCall: round1(median(series.map((turn) => turn.cpuNs / CALLS / 1000))),
        ...(serverCpu !== undefined ? { serverCpuMicrosPerCall: round1(serverCpu) } : {}),
        ...(counted ? { recordsPerCommit: round1(counted.records / counted.commits) } : {}),
        callsPerSecondRange: [Math.round(Math.min(...rates)), Math.round(Math.max(...rates))],
      });
    }
  }
  return figures;
}

function printFigures(cases: readonly Case[], figures: readonly CaseFigures[]): void {
  for (const mode of MODES) {
    process.stdout.write(
      `${mode === 'sequential' ? 'Sequential calls (one in flight)' : `${IN_FLIGHT} calls in flight`}: medians over ${ROUNDS} rounds\n`,
    );
    printRows(
      [
        'observe',
        'calls/s',
        '[min–max]',
        'µs/call',
        'µs over (a)',
        'vs SQLite',
        'cpu µs/call here',
        'postgres cpu µs/call',
        'records/commit',
      ],
      figures
        .filter((figure) => figure.mode === mode)
        .map((figure) => [
          figure.case,
          String(figure.callsPerSecond),
          `[${figure.callsPerSecondRange[0]}–${figure.callsPerSecondRange[1]}]`,
          figure.microsPerCall.toFixed(1),
          figure === figures.find((each) => each.mode === mode) ? '' : `${figure.microsOverNone.toFixed(1)}`,
          `${figure.ratioToSqlite.toFixed(2)}x`,
          figure.cpuMicrosPerCall.toFixed(1),
          figure.serverCpuMicrosPerCall === undefined ? '' : figure.serverCpuMicrosPerCall.toFixed(1),
          figure.recordsPerCommit === undefined ? '' : figure.recordsPerCommit.toFixed(1),
        ]),
      { numbers: true },
    );
    process.stdout.write('\n');
  }
  const of = (key: string, mode: Mode) =>
    figures.find(
      (figure) => figure.mode === mode && figure.case === cases.find((entry) => entry.key === key)?.label,
    );
  const pg = of('pg', 'concurrent');
  const pgSequential = of('pg', 'sequential');
  if (pg && pgSequential) {
    process.stdout.write(
      `With PostgreSQL each result waits for its record's commit: sequentially every call pays a round trip and a commit (${pgSequential.recordsPerCommit} record per commit); with ${IN_FLIGHT} in flight the records of calls that end together share an INSERT and its commit (${pg.recordsPerCommit} per commit here), so the store's cost per call falls from ${pgSequential.microsOverNone.toFixed(1)} to ${pg.microsOverNone.toFixed(1)} µs over no audit. The file sinks write synchronously, one record at a time, so concurrency does not change their cost.\n`,
    );
  }
}

/** utime + stime, in clock ticks, of each of `pids` that can still be read. */
function cpuTicks(pids: readonly number[]): Map<number, number> {
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

async function serverSettings(url: string): Promise<Record<string, string>> {
  const names = ['server_version', 'fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method'];
  const values: Record<string, string> = {};
  for (const name of names) {
    const [row] = await query<Record<string, string>>(url, `SHOW ${name}`);
    values[name] = row![name]!;
  }
  return values;
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const round1 = (value: number) => Math.round(value * 10) / 10;
const round2 = (value: number) => Math.round(value * 100) / 100;

if (import.meta.url === `file://${process.argv[1]}`) await run();
