// The fleet as it is deployed: three `toolpact serve --http --store …` processes started from the bin,
// with one TOOLPACT_STATE_KEY, behind Debian's HAProxy (round robin, no stickiness), sharing a private
// PostgreSQL cluster; driven by the real v2 MCP Client over Streamable HTTP, revision 2026-07-28.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as PgClient } from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { responseMessages } from '../mcp/support/wire.js';
import { toolpactArgs } from '../support/cli-build.js';
import { type HaproxyServer, hasHaproxy, startHaproxy } from '../support/haproxy.js';
import {
  freePort,
  hasPostgres,
  killTree,
  logTail,
  type PostgresServer,
  processAlive,
  processesGone,
  processTree,
  type Running,
  registerLeftover,
  startPostgres,
  unregisterLeftover,
} from '../support/postgres.js';
import { FLEET_TOOLS, startReplica, stopReplica } from './replica-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KEY = '5eed'.repeat(16);
const run = promisify(execFile);

/** One `toolpact serve` replica: its name, its fixed port, and the process it runs as now. */
interface Replica {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  running: Running | undefined;
  starts: number;
}

/** What a tool call answered: the envelope toolpact puts in the text content. */
interface Envelope {
  readonly ok: boolean;
  readonly result?: { readonly id: string; readonly replica: string };
  readonly error?: { readonly type: string; readonly approval?: string; readonly message?: string };
}

interface Execution {
  readonly tool: string;
  readonly id: string;
  readonly replica: string;
}

interface AuditRow {
  readonly id: string | undefined;
  readonly outcome: string;
  readonly rule: string | null;
}

let postgres: PostgresServer;
let haproxy: HaproxyServer;
let dir: string;
let executions: string;
const replicas: Replica[] = [];
/** Every pid a replica ran as, for the check that none is left. */
const started: number[] = [];
const clients: Client[] = [];
const loads: Load[] = [];

function replicaDir(replica: Replica): string {
  return join(dir, replica.name);
}

/** Starts the replica's process on its port and waits until it says where it listens. */
async function start(replica: Replica): Promise<void> {
  replica.starts += 1;
  const running = await startReplica({
    name: replica.name,
    port: replica.port,
    url: replica.url,
    store: postgres.url,
    log: join(replicaDir(replica), `serve-${replica.starts}.log`),
    env: {
      ...process.env,
      TOOLPACT_STATE_KEY: KEY,
      FLEET_EXECUTIONS: executions,
      FLEET_REPLICA: replica.name,
    },
  });
  replica.running = running;
  started.push(running.pid);
}

/** SIGTERM, as an orchestrator stops a replica, and waits for the process to end. */
async function stop(replica: Replica): Promise<void> {
  const running = replica.running;
  if (!running || running.done) return;
  process.kill(running.pid, 'SIGTERM');
  const code = await running.exited;
  expect(code, logTail(join(replicaDir(replica), `serve-${replica.starts}.log`))).toBe(0);
}

/** A revision 2026-07-28 client (negotiated with server/discover), which can elicit when `elicit`. */
async function connect(
  url: string,
  name: string,
  options: { elicit?: () => void; fetch?: typeof fetch } = {},
): Promise<Client> {
  const client = new Client(
    { name, version: '1.0.0' },
    {
      capabilities: options.elicit ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: 'auto' },
    },
  );
  const elicit = options.elicit;
  if (elicit) {
    client.setRequestHandler('elicitation/create', () => {
      elicit();
      return { action: 'accept', content: { decision: 'once' } };
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), options.fetch ? { fetch: options.fetch } : {}),
  );
  expect(client.getProtocolEra()).toBe('modern');
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Envelope> {
  const result = await client.callTool({ name, arguments: args });
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return JSON.parse(content.find((block) => block.type === 'text')?.text ?? 'null') as Envelope;
}

function executed(tool: string, prefix = ''): Execution[] {
  if (!existsSync(executions)) return [];
  return readFileSync(executions, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Execution)
    .filter((each) => each.tool === tool && each.id.startsWith(prefix));
}

async function query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new PgClient({ connectionString: postgres.url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The audit rows of `tool` whose argument `key` starts with `prefix`. */
async function audited(tool: string, prefix: string, key = 'id'): Promise<AuditRow[]> {
  const rows = await query<{ arguments: string | null; outcome: string; decision_rule: string | null }>(
    'SELECT arguments, outcome, decision_rule FROM audit_log WHERE tool = $1 ORDER BY id',
    [tool],
  );
  return rows
    .map((row) => ({
      id: row.arguments === null ? undefined : (JSON.parse(row.arguments) as Record<string, string>)[key],
      outcome: row.outcome,
      rule: row.decision_rule,
    }))
    .filter((row) => row.id?.startsWith(prefix));
}

function countBy<T>(
  items: readonly T[],
  key: (item: T) => string | undefined,
): Map<string | undefined, number> {
  const counts = new Map<string | undefined, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/** An error's message and the causes under it (fetch's "fetch failed" hides why in its cause). */
function reasonOf(error: unknown): string {
  const parts: string[] = [];
  for (let each = error; each instanceof Error && parts.length < 4; each = each.cause)
    parts.push(each.message);
  return parts.length > 0 ? parts.join(': ') : String(error);
}

/** One call of a load: its id, the phases it started and ended in, what it answered, what failed. */
interface LoadCall {
  readonly id: string;
  readonly startPhase: number;
  /** Undefined while the call is unanswered. */
  endPhase: number | undefined;
  envelope: Envelope | undefined;
  readonly errors: string[];
}

/**
 * Clients calling `record_event` in a loop, each call with an id of its own, until stopped. A request
 * that fails (the connection dropped, the balancer's 502) is re-issued once, as a client may. The test
 * moves `phase` on at each event it causes, and waits on counts of answered calls, never on time.
 */
class Load {
  phase = 0;
  readonly calls: LoadCall[] = [];
  private stopped = false;
  private readonly workers: Promise<void>[];
  private release: () => void = () => {};
  /** Settled by {@link recovered}: a failed request is re-issued once the fault that failed it is over. */
  private readonly over = new Promise<void>((resolve) => {
    this.release = resolve;
  });
  private waiters: { holds: () => boolean; resolve: () => void }[] = [];

  constructor(
    loadClients: readonly Client[],
    private readonly prefix: string,
  ) {
    this.workers = loadClients.map((client, index) => this.work(client, index));
    loads.push(this);
  }

  private async work(client: Client, index: number): Promise<void> {
    for (let n = 0; !this.stopped; n++) {
      const entry: LoadCall = {
        id: `${this.prefix}-${index}-${n}`,
        startPhase: this.phase,
        endPhase: undefined,
        envelope: undefined,
        errors: [],
      };
      this.calls.push(entry);
      for (let attempt = 0; attempt < 2 && entry.envelope === undefined; attempt++) {
        if (attempt > 0) await this.over;
        try {
          entry.envelope = await call(client, 'record_event', { id: entry.id });
        } catch (error) {
          entry.errors.push(reasonOf(error));
        }
      }
      entry.endPhase = this.phase;
      this.waiters = this.waiters.filter((waiter) => {
        if (!waiter.holds()) return true;
        waiter.resolve();
        return false;
      });
    }
  }

  /** The fault the test caused is complete (the process is gone, the server back): re-issues may go. */
  recovered(): void {
    this.release();
  }

  /** Calls started in `phase` and answered ok. */
  okIn(phase: number): number {
    return this.calls.filter((each) => each.startPhase === phase && each.envelope?.ok === true).length;
  }

  /** Resolves once `holds` is true, checked after every answered call. */
  until(holds: () => boolean): Promise<void> {
    if (holds()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ holds, resolve }));
  }

  async stop(): Promise<LoadCall[]> {
    this.stopped = true;
    await Promise.all(this.workers);
    return this.calls;
  }
}

/** What a request posted, and where, as a routing fetch saw it. */
interface Routed {
  readonly replica: string;
  readonly method: string | undefined;
  readonly retry: boolean;
  readonly init: RequestInit | undefined;
  resultType?: string;
}

describe.runIf(hasPostgres && hasHaproxy)(
  'three toolpact serve replicas behind HAProxy, one PostgreSQL',
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'toolpact-fleet-'));
      registerLeftover(dir, () => undefined);
      executions = join(dir, 'executions.jsonl');
      postgres = await startPostgres();
      for (const name of ['r1', 'r2', 'r3']) {
        const port = await freePort();
        const replica: Replica = {
          name,
          port,
          url: `http://127.0.0.1:${port}/mcp`,
          running: undefined,
          starts: 0,
        };
        mkdirSync(replicaDir(replica));
        registerLeftover(replicaDir(replica), () =>
          replica.running && !replica.running.done ? replica.running.pid : undefined,
        );
        replicas.push(replica);
      }
      // All at once, as an orchestrator starts them: one of them migrates the store, under its lock.
      await Promise.all(replicas.map(start));
      haproxy = await startHaproxy(replicas.map((replica) => ({ host: '127.0.0.1', port: replica.port })));
    }, 120_000);

    afterAll(async () => {
      // A load a failed test left running ends first, then the clients.
      for (const load of loads) load.recovered();
      await Promise.allSettled(loads.map((load) => load.stop()));
      await Promise.allSettled(clients.map((client) => client.close()));
      const processes = [
        ...(haproxy?.processes() ?? []),
        ...(postgres?.processes() ?? []),
        ...started.flatMap((pid) => processTree(pid)),
        ...started,
      ];
      await haproxy?.stop();
      for (const replica of replicas) {
        await stopReplica(replica.running);
        unregisterLeftover(replicaDir(replica));
      }
      await postgres?.stop();
      expect(processes.filter(processAlive)).toEqual([]);
      // Nor any other process serving the fleet's tools from this store (another run has its own).
      const store = postgres?.url;
      const serving = readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .flatMap((pid) => {
          try {
            const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
            return args.includes(FLEET_TOOLS) && store !== undefined && args.includes(store)
              ? [`${pid}: ${args.join(' ')}`]
              : [];
          } catch {
            return [];
          }
        });
      expect(serving).toEqual([]);
      if (dir) {
        unregisterLeftover(dir);
        rmSync(dir, { recursive: true, force: true });
      }
    }, 60_000);

    test('1,000 calls through the balancer from 10 concurrent clients: each runs once, with one audit row', async () => {
      const url = haproxy.url('/mcp');
      const events = await Promise.all(
        Array.from({ length: 10 }, (_, index) => connect(url, `events-${index}`)),
      );
      const answers = await Promise.all(
        events.map(async (client, index) => {
          const answered: { id: string; envelope: Envelope }[] = [];
          for (let n = 0; n < 100; n++) {
            const id = `t1-${index}-${n}`;
            answered.push({ id, envelope: await call(client, 'record_event', { id }) });
          }
          return answered;
        }),
      );
      const all = answers.flat();
      const ids = all.map((each) => each.id).sort();
      expect(new Set(ids).size).toBe(1_000);
      expect(all.filter((each) => each.envelope.ok !== true || each.envelope.result?.id !== each.id)).toEqual(
        [],
      );

      const runs = executed('record_event', 't1-');
      expect(runs.map((each) => each.id).sort()).toEqual(ids);
      // Round robin: every replica ran some of them.
      expect([...new Set(runs.map((each) => each.replica))].sort()).toEqual(['r1', 'r2', 'r3']);

      const rows = await audited('record_event', 't1-');
      expect(rows.map((row) => row.id).sort()).toEqual(ids);
      expect(rows.filter((row) => row.outcome !== 'ok')).toEqual([]);
      const [count] = await query<{ count: string }>(
        "SELECT count(*) FROM audit_log WHERE tool = 'record_event' AND arguments::jsonb->>'id' LIKE 't1-%'",
      );
      expect(Number(count?.count)).toBe(1_000);
    }, 120_000);

    test('an in-band approval asked on one replica is completed on another, and runs once', async () => {
      const [asker, runner, third] = replicas as [Replica, Replica, Replica];
      const routed: Routed[] = [];
      const pending: Promise<void>[] = [];
      // The client posts to the asking replica; its retry (the one carrying requestState) goes to another.
      const route: typeof fetch = async (input, init) => {
        const body =
          typeof init?.body === 'string'
            ? (JSON.parse(init.body) as { method?: string; params?: { requestState?: unknown } })
            : undefined;
        const retry = body?.params?.requestState !== undefined;
        const target = retry ? runner : asker;
        const entry: Routed = { replica: target.name, method: body?.method, retry, init };
        routed.push(entry);
        const response = await fetch(String(input) === asker.url ? target.url : input, init);
        const copy = response.clone();
        pending.push(
          copy.text().then((raw) => {
            const [message] = responseMessages(copy.headers.get('content-type'), raw) as {
              result?: { resultType?: string };
            }[];
            if (message?.result?.resultType) entry.resultType = message.result.resultType;
          }),
        );
        return response;
      };
      let asked = 0;
      const client = await connect(asker.url, 'keys', { elicit: () => asked++, fetch: route });
      const envelope = await call(client, 'rotate_key', { name: 't2-billing' });
      await Promise.all(pending);

      expect(asked).toBe(1);
      expect(envelope).toMatchObject({ ok: true, result: { id: 't2-billing', replica: runner.name } });
      const calls = routed.filter((each) => each.method === 'tools/call');
      expect(calls.map(({ replica, retry, resultType }) => ({ replica, retry, resultType }))).toEqual([
        { replica: asker.name, retry: false, resultType: 'input_required' },
        { replica: runner.name, retry: true, resultType: 'complete' },
      ]);
      expect(executed('rotate_key', 't2-billing')).toEqual([
        { tool: 'rotate_key', id: 't2-billing', replica: runner.name },
      ]);

      // The same retry again, on the third replica: the state was used, in PostgreSQL, so it does not run.
      const replay = await fetch(third.url, calls[1]!.init);
      const [message] = responseMessages(replay.headers.get('content-type'), await replay.text()) as {
        result?: { content?: { text: string }[] };
      }[];
      const replayed = JSON.parse(message?.result?.content?.[0]?.text ?? 'null') as Envelope;
      expect(replayed).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
      expect(replayed.error?.message).toMatch(/already/);
      expect(executed('rotate_key', 't2-billing')).toHaveLength(1);

      // Through the balancer, where round robin sends the retry to the next replica: each runs once.
      let balancedAsks = 0;
      const balanced = await connect(haproxy.url('/mcp'), 'keys-balanced', { elicit: () => balancedAsks++ });
      for (const name of ['t2-lb-0', 't2-lb-1', 't2-lb-2']) {
        expect(await call(balanced, 'rotate_key', { name })).toMatchObject({
          ok: true,
          result: { id: name },
        });
      }
      expect(balancedAsks).toBe(3);
      expect(
        executed('rotate_key', 't2-lb-')
          .map((each) => each.id)
          .sort(),
      ).toEqual(['t2-lb-0', 't2-lb-1', 't2-lb-2']);
    }, 60_000);

    test('an out-of-band approval outlives every replica, is approved from the CLI, and two concurrent retries run it once', async () => {
      const ops = await connect(haproxy.url('/mcp'), 'ops');
      const asked = await call(ops, 'deploy', { service: 't3-api' });
      expect(asked).toMatchObject({
        ok: false,
        error: { type: 'approval_pending', approval: expect.stringMatching(/^apr_/) },
      });
      const approval = asked.error!.approval!;
      // Asked again before the decision, through the balancer (another replica): the same approval.
      expect(await call(ops, 'deploy', { service: 't3-api' })).toMatchObject({
        ok: false,
        error: { type: 'approval_pending', approval },
      });
      expect(executed('deploy', 't3-')).toEqual([]);

      // Every replica stops, then starts again: the pending approval is in PostgreSQL, not in a process.
      const before = replicas.map((replica) => replica.running!.pid);
      await Promise.all(replicas.map(stop));
      await Promise.all(replicas.map(start));
      expect(replicas.map((replica) => replica.running!.pid).filter((pid) => before.includes(pid))).toEqual(
        [],
      );
      expect(await query('SELECT tool, principal, status FROM approvals WHERE id = $1', [approval])).toEqual([
        { tool: 'deploy', principal: 'local', status: 'pending' },
      ]);

      const cli = await run(
        process.execPath,
        toolpactArgs(
          'approvals',
          'approve',
          approval,
          '--by',
          'lead',
          '--reason',
          'release window',
          '--store',
          postgres.url,
        ),
        { cwd: ROOT },
      );
      expect(cli.stdout).toContain(approval);
      expect(await query('SELECT status, decided_by FROM approvals WHERE id = $1', [approval])).toEqual([
        { status: 'approved', decided_by: 'lead' },
      ]);

      // The same client, retrying at once on two replicas, without the balancer.
      const [first, second] = await Promise.all([
        connect(replicas[0]!.url, 'ops'),
        connect(replicas[1]!.url, 'ops'),
      ]);
      const retries = await Promise.all([
        call(first, 'deploy', { service: 't3-api' }),
        call(second, 'deploy', { service: 't3-api' }),
      ]);
      const ran = retries.filter((each) => each.ok);
      const refused = retries.filter((each) => !each.ok);
      expect(ran).toHaveLength(1);
      expect(ran[0]).toMatchObject({ ok: true, result: { id: 't3-api' } });
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ ok: false, error: { type: 'approval_already_used', approval } });
      expect(executed('deploy', 't3-')).toEqual([
        { tool: 'deploy', id: 't3-api', replica: ran[0]!.result!.replica },
      ]);
      expect(await query('SELECT status FROM approvals WHERE id = $1', [approval])).toEqual([
        { status: 'used' },
      ]);
      const rows = await audited('deploy', 't3-', 'service');
      // Asked twice, run once, refused once: every request of the call is in the audit log, under its rule.
      expect(rows.map((row) => row.outcome).sort()).toEqual([
        'approval_already_used',
        'approval_pending',
        'approval_pending',
        'ok',
      ]);
      expect(rows.filter((row) => row.rule !== 'prod-deploys')).toEqual([]);
    }, 120_000);

    test('a replica killed with SIGKILL under load: only its in-flight calls fail, each re-issued once; every completed call is audited', async () => {
      const url = haproxy.url('/mcp');
      const loadClients = await Promise.all(
        Array.from({ length: 6 }, (_, index) => connect(url, `kill-${index}`)),
      );
      const load = new Load(loadClients, 't4');
      await load.until(() => load.okIn(0) >= 90);
      const victim = replicas[1]!;
      const tree = killTree(victim.running!.pid);
      await victim.running!.exited;
      await processesGone(tree);
      load.phase = 1;
      // Re-issues go now: one sent while the process was still dying could reach it again.
      load.recovered();
      await load.until(() => load.okIn(1) >= 90);
      const calls = await load.stop();

      // Every call completed, the failed ones on their one re-issue.
      expect(calls.filter((each) => each.envelope?.ok !== true)).toEqual([]);
      const reissued = calls.filter((each) => each.errors.length > 0);
      // Only requests in flight when it died failed: at most one per client, all sent before the kill.
      expect(reissued.length).toBeLessThanOrEqual(loadClients.length);
      expect(reissued.filter((each) => each.startPhase !== 0 || each.errors.length !== 1)).toEqual([]);

      const again = new Set(reissued.map((each) => each.id));
      const runs = countBy(executed('record_event', 't4-'), (each) => each.id);
      const rows = await audited('record_event', 't4-');
      const rowCounts = countBy(rows, (row) => row.id);
      for (const { id } of calls) {
        const ranTimes = runs.get(id) ?? 0;
        const rowTimes = rowCounts.get(id) ?? 0;
        // At least once: no call is missing, and no audit row lacks its execution.
        expect({ id, ran: ranTimes >= 1, audited: rowTimes >= 1 }).toEqual({ id, ran: true, audited: true });
        expect({ id, rowTimes, ranTimes }).toEqual({ id, rowTimes: Math.min(rowTimes, ranTimes), ranTimes });
        // Exactly once, where no request was re-issued.
        if (!again.has(id)) expect({ id, ranTimes, rowTimes }).toEqual({ id, ranTimes: 1, rowTimes: 1 });
        else expect(ranTimes).toBeLessThanOrEqual(2);
      }
      // A second run of a re-issued call can only come from the replica that was killed.
      for (const id of again) {
        const where = executed('record_event', id)
          .filter((each) => each.id === id)
          .map((each) => each.replica);
        if (where.length === 2) expect(where).toContain(victim.name);
      }
      expect(rows.filter((row) => row.outcome !== 'ok')).toEqual([]);

      await start(victim);
    }, 120_000);

    test('PostgreSQL stopped and started under load: outage calls answer store_unavailable, later calls succeed, nothing committed is lost', async () => {
      const url = haproxy.url('/mcp');
      const loadClients = await Promise.all(
        Array.from({ length: 6 }, (_, index) => connect(url, `outage-${index}`)),
      );
      const load = new Load(loadClients, 't5');
      await load.until(() => load.okIn(0) >= 60);
      const committed = (await audited('record_event', 't5-')).map((row) => row.id);
      expect(committed.length).toBeGreaterThan(0);

      await postgres.shutdown();
      load.phase = 1;
      const outage = () => load.calls.filter((each) => each.startPhase === 1 && each.endPhase === 1);
      await load.until(() => outage().length >= 30);
      load.phase = 2;
      await postgres.start();
      load.phase = 3;
      load.recovered();
      await load.until(() => load.okIn(3) >= 60);
      const calls = await load.stop();

      // The replicas stayed up: no request failed, each was answered.
      expect(calls.filter((each) => each.errors.length > 0)).toEqual([]);
      const during = calls.filter((each) => each.startPhase === 1 && each.endPhase === 1);
      expect(during.length).toBeGreaterThanOrEqual(30);
      expect(during.filter((each) => each.envelope?.error?.type !== 'store_unavailable')).toEqual([]);
      // Once the server is back, the pools connect again and every call succeeds.
      expect(calls.filter((each) => each.startPhase === 3 && each.envelope?.ok !== true)).toEqual([]);

      const rows = await audited('record_event', 't5-');
      const present = new Set(rows.map((row) => row.id));
      expect(committed.filter((id) => !present.has(id))).toEqual([]);
      // Every call answered ok was committed, once; an outage call, which answered store_unavailable, was not.
      const rowCounts = countBy(rows, (row) => row.id);
      const ok = calls.filter((each) => each.envelope?.ok === true);
      expect(ok.filter((each) => rowCounts.get(each.id) !== 1).map((each) => each.id)).toEqual([]);
      expect(during.filter((each) => present.has(each.id)).map((each) => each.id)).toEqual([]);
      expect(rows.filter((row) => row.outcome !== 'ok')).toEqual([]);
    }, 120_000);
  },
);
