// The shared store on a real PostgreSQL (a private cluster started for the file): migrations, the
// audit log committed before results go out and answering what SQLite answers, the store going away
// and coming back, the approval queue deciding each approved call exactly once across registries
// (replicas), and request states used once across sealers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import { serveHttp } from '../../src/mcp/index.js';
import { bindingFor, RequestStateSealer } from '../../src/mcp/request-state.js';
import { createPolicyGate, definePolicy, openSqliteAuditLog } from '../../src/policy/index.js';
import { openPostgresStore, type PostgresStore, StoreError } from '../../src/store/index.js';
import { runCli } from '../support/cli.js';
import { freePort, hasPostgres, type PostgresServer, startPostgres } from '../support/postgres.js';

let postgres: PostgresServer;
let dir: string;
const opened: PostgresStore[] = [];

async function open(url: string, options: Parameters<typeof openPostgresStore>[1] = {}) {
  const store = await openPostgresStore(url, options);
  opened.push(store);
  return store;
}

/** A fresh database per test, so tests do not see each other's rows. */
let databases = 0;
async function freshDatabase(): Promise<string> {
  databases++;
  return postgres.createDatabase(`t${databases}`);
}

/** One replica: a registry over the same tools, gated by the policy, with the store's audit and queue. */
function replica(store: PostgresStore, policy = queuePolicy, ran: string[] = []) {
  const gate = createPolicyGate(policy, { observe: store.audit.observe });
  return new Registry({ ...gate.registryOptions, approvalQueue: store.approvalQueue(policy) }).register(
    defineTool({
      name: 'deploy',
      description: 'Deploy a service to production. Changes what users see; not read-only.',
      category: 'write',
      input: z.object({ service: z.string().describe('The service to deploy, e.g. api.') }),
      execute: ({ service }) => {
        ran.push(service);
        return { deployed: service };
      },
    }),
    defineTool({
      name: 'status',
      description: 'Read the status of a service. Read-only.',
      category: 'read',
      input: z.object({ service: z.string().describe('The service to read.') }),
      execute: () => ({ up: true }),
    }),
  );
}

const queuePolicy = definePolicy({
  rules: [
    { id: 'prod-deploys', action: 'ask', tool: 'deploy', approver: 'queue', reason: 'production write' },
  ],
});

describe.runIf(hasPostgres)('the PostgreSQL store', () => {
  beforeAll(async () => {
    postgres = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), 'toolpact-store-'));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(opened.map((store) => store.close()));
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('replicas starting together migrate once; the version table says so', async () => {
    const url = await freshDatabase();
    await Promise.all([open(url), open(url), open(url)]);
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const versions = await client.query('SELECT version FROM toolpact_schema ORDER BY version');
      expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }]);
      const tables = await client.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
      );
      expect(tables.rows.map((row) => row.table_name)).toEqual([
        'approvals',
        'audit_log',
        'mcp_tokens',
        'toolpact_schema',
        'used_request_states',
      ]);
    } finally {
      await client.end();
    }
  });

  test('a store at schema version 1 gains the audit principal column; its old rows read back with none', async () => {
    const url = await freshDatabase();
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      // The audit table as version 1 made it, with one row, written out as an older replica left it.
      await client.query(`
        CREATE TABLE toolpact_schema (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
        INSERT INTO toolpact_schema (version) VALUES (1);
        CREATE TABLE audit_log (
          id BIGSERIAL PRIMARY KEY,
          v INTEGER NOT NULL, time TEXT NOT NULL, time_ms BIGINT NOT NULL, tool TEXT NOT NULL,
          category TEXT, source TEXT, call_id TEXT, arguments_digest TEXT, arguments TEXT,
          decision_action TEXT, decision_rule TEXT, decision_reason TEXT, decision_approval TEXT,
          outcome TEXT NOT NULL, duration_ms DOUBLE PRECISION NOT NULL, delegation_depth INTEGER NOT NULL
        );
        INSERT INTO audit_log (v, time, time_ms, tool, call_id, outcome, duration_ms, delegation_depth)
        VALUES (1, '2026-05-01T12:00:00.000Z', 1777636800000, 'deploy', 'old-call', 'ok', 3, 0);`);
      const store = await open(url);
      await replica(store, definePolicy({ rules: [{ id: 'all', action: 'allow', tool: 'deploy' }] })).call(
        'deploy',
        { service: 'api' },
        { callId: 'new-call' },
      );
      const versions = await client.query('SELECT version FROM toolpact_schema ORDER BY version');
      expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }]);
      expect((await store.queryAudit()).map((entry) => [entry.callId, entry.principal])).toEqual([
        ['old-call', null],
        ['new-call', 'local'],
      ]);
      expect((await store.queryAudit({ principal: 'local' })).map((entry) => entry.callId)).toEqual([
        'new-call',
      ]);
    } finally {
      await client.end();
    }
  });

  test('an unreachable server is refused at open, naming the host it tried, never the password', async () => {
    const port = await freePort();
    const attempt = openPostgresStore(`postgres://someone:s3cret@127.0.0.1:${port}/db`, {
      connectTimeoutMs: 2_000,
    });
    await expect(attempt).rejects.toThrow(StoreError);
    const error = (await attempt.catch((caught: unknown) => caught)) as StoreError;
    expect(error.code).toBe('unreachable');
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).not.toContain('s3cret');
    // The CLI exits 2 with the same words.
    const cli = await runCli(['audit', 'query', '--store', `postgres://someone:s3cret@127.0.0.1:${port}/db`]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(`127.0.0.1:${port}`);
    expect(cli.stderr).not.toContain('s3cret');
  });

  test('every call is committed before its result; the table answers what the SQLite log answers', async () => {
    const url = await freshDatabase();
    const store = await open(url);
    const sqlite = openSqliteAuditLog(join(dir, 'same.db'));
    const gate = createPolicyGate(
      definePolicy({ rules: [{ id: 'no-deploys', action: 'deny', tool: 'deploy' }] }),
      {
        observe: (record) => {
          sqlite.observe(record);
          return store.audit.observe(record);
        },
      },
    );
    const registry = replica(store).subset(['deploy', 'status']);
    const audited = new Registry({ ...gate.registryOptions }).register(registry.list());
    for (let index = 0; index < 20; index++) {
      const envelope = await audited.call('status', { service: `s${index}` });
      expect(envelope.ok).toBe(true);
      // Committed before the result came back: the row is there now.
      const rows = await store.queryAudit({ tool: 'status' });
      expect(rows).toHaveLength(index + 1);
    }
    await Promise.all(
      Array.from({ length: 50 }, (_, index) => audited.call('status', { service: `p${index}` })),
    );
    await audited.call('deploy', { service: 'api' });
    const fromPostgres = await store.queryAudit({});
    const fromSqlite = sqlite.query({});
    expect(fromPostgres).toHaveLength(71);
    expect(fromPostgres.map(({ durationMs: _, ...entry }) => entry)).toEqual(
      fromSqlite.map(({ durationMs: _, ...entry }) => entry),
    );
    expect(await store.queryAudit({ decision: 'deny' })).toMatchObject([
      { tool: 'deploy', outcome: 'permission_denied' },
    ]);
    // The CLI answers from the store as from a file.
    const cli = await runCli(['audit', 'query', '--store', url, '--decision', 'deny', '--format', 'json']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject([
      { tool: 'deploy', decision: { action: 'deny', rule: 'no-deploys' } },
    ]);
    sqlite.close();
  });

  test('a store that goes away fails calls with store_unavailable; nothing committed is lost; the pool reconnects', async () => {
    const url = await freshDatabase();
    const store = await open(url, { connectTimeoutMs: 1_000 });
    const registry = replica(store);
    for (let index = 0; index < 10; index++) {
      expect(await registry.call('status', { service: `before${index}` })).toMatchObject({ ok: true });
    }
    await postgres.shutdown();
    try {
      const during = await registry.call('status', { service: 'during' });
      expect(during).toMatchObject({ ok: false, error: { type: 'store_unavailable' } });
      if (!during.ok) expect(during.error.message).toContain('may have taken effect');
    } finally {
      await postgres.start();
    }
    expect(await registry.call('status', { service: 'after' })).toMatchObject({ ok: true });
    const services = (await store.queryAudit({ tool: 'status' })).map(
      (entry) => (entry.arguments as { service: string }).service,
    );
    expect(services).toEqual([...Array.from({ length: 10 }, (_, index) => `before${index}`), 'after']);
  }, 120_000);

  test('under auditFailure "warn" the result goes out and the lost record is reported', async () => {
    const url = await freshDatabase();
    const warnings: string[] = [];
    const store = await open(url, {
      auditFailure: 'warn',
      onWarning: (line) => warnings.push(line),
      connectTimeoutMs: 1_000,
    });
    const registry = replica(store);
    await postgres.shutdown();
    try {
      expect(await registry.call('status', { service: 'x' })).toMatchObject({ ok: true });
      expect(warnings.join('\n')).toContain('an audit record of "status" was lost');
    } finally {
      await postgres.start();
    }
  }, 120_000);

  test('a queued call pauses; approved from the CLI, it runs once even when two replicas get its retry at once', async () => {
    const url = await freshDatabase();
    const ran: string[] = [];
    const [storeA, storeB] = await Promise.all([open(url), open(url)]);
    const replicaA = replica(storeA, queuePolicy, ran);
    const replicaB = replica(storeB, queuePolicy, ran);

    const first = await replicaA.call('deploy', { service: 'api' });
    expect(first).toMatchObject({ ok: false, error: { type: 'approval_pending', rule: 'prod-deploys' } });
    if (first.ok || first.error.type !== 'approval_pending') return;
    const id = (first.error as { approval?: string }).approval!;
    expect(id).toMatch(/^apr_/);
    expect(first.error.message).toContain(id);
    // Asked again before a decision, on the other replica: the same approval, still pending.
    expect(await replicaB.call('deploy', { service: 'api' })).toMatchObject({ error: { approval: id } });
    expect(ran).toEqual([]);

    const listed = await runCli(['approvals', 'list', '--store', url, '--format', 'json']);
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { id, tool: 'deploy', status: 'pending', arguments: { service: 'api' } },
    ]);
    const approved = await runCli([
      'approvals',
      'approve',
      id,
      '--by',
      'lead',
      '--reason',
      'release window',
      '--store',
      url,
    ]);
    expect(approved.code, approved.stderr).toBe(0);

    const retries = await Promise.all([
      replicaA.call('deploy', { service: 'api' }),
      replicaB.call('deploy', { service: 'api' }),
    ]);
    expect(ran).toEqual(['api']);
    const types = retries.map((envelope) => (envelope.ok ? 'ok' : envelope.error.type)).sort();
    expect(types).toEqual(['approval_already_used', 'ok']);
    const shown = await runCli(['approvals', 'show', id, '--store', url, '--format', 'json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      status: 'used',
      decidedBy: 'lead',
      decisionReason: 'release window',
    });
    // A decision is final: approving again is refused, exit 1.
    const again = await runCli(['approvals', 'approve', id, '--store', url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already used');
    // Another call with other arguments is a new request.
    expect(await replicaA.call('deploy', { service: 'web' })).toMatchObject({
      error: { type: 'approval_pending' },
    });
  });

  test('a denial is told to the next call, once; the call after it asks anew', async () => {
    const url = await freshDatabase();
    const store = await open(url);
    const ran: string[] = [];
    const registry = replica(store, queuePolicy, ran);
    const first = await registry.call('deploy', { service: 'db' });
    const id = (first as { error: { approval: string } }).error.approval;
    await store.approvals.deny(id, { by: 'lead', reason: 'not during the freeze' });
    const refused = await registry.call('deploy', { service: 'db' });
    expect(refused).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
    if (!refused.ok) expect(refused.error.message).toContain('lead denied it');
    const next = await registry.call('deploy', { service: 'db' });
    expect(next).toMatchObject({ ok: false, error: { type: 'approval_pending' } });
    expect((next as { error: { approval: string } }).error.approval).not.toBe(id);
    expect(ran).toEqual([]);
    await expect(store.approvals.approve(id)).rejects.toThrow(/already denied/);
  });

  test('clients that cannot elicit go to the queue when the policy says so; others are left to the approver', async () => {
    const url = await freshDatabase();
    const store = await open(url);
    const policy = definePolicy({
      rules: [{ id: 'writes-ask', action: 'ask', category: 'write' }],
      approvals: { whenClientCannotAsk: 'queue', expiresIn: '30m' },
    });
    const registry = replica(store, policy);
    // A local call has no MCP client to ask: queued.
    const queued = await registry.call('deploy', { service: 'cache' });
    expect(queued).toMatchObject({ ok: false, error: { type: 'approval_pending' } });
    const [approval] = await store.approvals.list();
    const minutes = (Date.parse(approval!.expiresAt) - Date.parse(approval!.createdAt)) / 60_000;
    expect(Math.round(minutes)).toBe(30);
  });

  test('a request state is used once across sealers sharing the store', async () => {
    const url = await freshDatabase();
    const store = await open(url);
    const key = '11'.repeat(32);
    const sealers = [0, 1].map(
      () => new RequestStateSealer({ key, sharedClaim: (id, expiresAt) => store.claimState(id, expiresAt) }),
    );
    const binding = bindingFor('deploy', { service: 'api' }, 'prod-deploys', undefined);
    const state = sealers[0]!.seal(binding);
    const opened = await Promise.all(sealers.map((sealer) => sealer.consumeShared(state, binding)));
    expect(opened.map((each) => each.ok).sort()).toEqual([false, true]);
    expect(opened.find((each) => !each.ok)).toMatchObject({ code: 'used' });
  });

  test('the event bus carries a change published on one replica to the others, once each', async () => {
    const url = await freshDatabase();
    const [storeA, storeB] = await Promise.all([open(url), open(url)]);
    const [busA, busB] = await Promise.all([storeA.eventBus(), storeB.eventBus()]);
    const seenA: string[] = [];
    const seenB: string[] = [];
    busA.subscribe((event) => seenA.push(event.kind));
    busB.subscribe((event) => seenB.push(event.kind));
    busA.publish({ kind: 'tools_list_changed' });
    await until(() => seenB.length === 1, 'replica B heard the change');
    expect(seenA).toEqual(['tools_list_changed']);
    expect(seenB).toEqual(['tools_list_changed']);
    // Nothing echoes back to the publisher. A's connection gets notifications in commit order, so its
    // own (which it must drop) comes before the one B sends now: once B's has arrived, an echo would have too.
    busB.publish({ kind: 'prompts_list_changed' });
    await until(() => seenA.includes('prompts_list_changed'), 'replica A heard the change B sent after it');
    expect(seenA).toEqual(['tools_list_changed', 'prompts_list_changed']);
  });

  test('a tool registered on one replica reaches a subscriptions/listen stream open on another', async () => {
    const url = await freshDatabase();
    const [storeA, storeB] = await Promise.all([open(url), open(url)]);
    const registryA = replica(storeA);
    const registryB = replica(storeB);
    const [serverA, serverB] = await Promise.all([
      serveHttp(registryA, { port: 0, bus: await storeA.eventBus() }),
      serveHttp(registryB, { port: 0, bus: await storeB.eventBus() }),
    ]);
    const client = new McpClient(
      { name: 'listener', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(serverB.url)));
      let changed = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changed += 1;
      });
      const subscription = await client.listen({ toolsListChanged: true });
      registryA.register(
        defineTool({
          name: 'rollback',
          description: 'Roll a service back to its previous release. Changes production.',
          category: 'write',
          input: z.object({ service: z.string().describe('The service to roll back.') }),
          execute: () => ({ rolledBack: true }),
        }),
      );
      await until(() => changed >= 1, 'the stream on replica B was told');
      await subscription.close();
    } finally {
      await client.close().catch(() => {});
      await Promise.all([serverA.close(), serverB.close()]);
    }
  });
});

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
