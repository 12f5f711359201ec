// The audit records what happened, through real sinks read back from disk: a call to a closed
// registry is a denial by `registry-closed`; an approval queue that fails before the tool runs is a
// denial by `store-unavailable`, and the model is told the call had no effect; an audit commit that
// fails after the tool ran withholds the outcome, and the model is told it may have taken effect.
// The same two store failures through the PostgreSQL store, when a private cluster can be started.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { type CallRecord, defineTool, Registry } from '../../src/index.js';
import {
  type AuditEntry,
  type AuditSink,
  createPolicyGate,
  definePolicy,
  openAuditLog,
  openSqliteAuditLog,
  queryAuditLog,
  readAuditLog,
} from '../../src/policy/index.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/index.js';
import { hasPostgres, type PostgresServer, startPostgres } from '../support/postgres.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-audit-decisions-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A deploy (asked through the queue) and a status read; `ran` lists every call that reached a function. */
function tools(ran: string[]) {
  return [
    defineTool({
      name: 'deploy',
      description: 'Deploy a service to production. Changes what users see; not read-only.',
      category: 'write',
      input: z.object({ service: z.string().describe('The service to deploy, e.g. api.') }),
      execute: ({ service }) => {
        ran.push(`deploy ${service}`);
        return { deployed: service };
      },
    }),
    defineTool({
      name: 'status',
      description: 'Read the status of a service. Read-only.',
      category: 'read',
      input: z.object({ service: z.string().describe('The service to read.') }),
      execute: ({ service }) => {
        ran.push(`status ${service}`);
        return { up: true };
      },
    }),
  ];
}

const policy = definePolicy({
  rules: [
    { id: 'prod-deploys', action: 'ask', tool: 'deploy', approver: 'queue', reason: 'production write' },
  ],
});

interface Sink {
  readonly name: string;
  open(file: string): AuditSink;
  file: string;
  read(file: string): AuditEntry[];
}

const sinks: Sink[] = [
  {
    name: 'JSON Lines',
    file: 'audit.jsonl',
    open: (file) => openAuditLog(file),
    read: (file) => readAuditLog(file).entries,
  },
  {
    name: 'SQLite',
    file: 'audit.db',
    open: (file) => openSqliteAuditLog(file),
    read: (file) => queryAuditLog(file),
  },
];

const NO_EFFECT = /was not run, and had no effect/;
const MAY_HAVE_RUN = /may have taken effect/;

describe.each(sinks)('the audit records what happened ($name)', (sink) => {
  test('a call to a closed registry is a denial by registry-closed, recorded while the sink stays open', async () => {
    const file = join(dir, sink.file);
    const audit = sink.open(file);
    const ran: string[] = [];
    const gate = createPolicyGate(policy, { observe: audit.observe });
    const registry = new Registry({ ...gate.registryOptions }).register(tools(ran));
    expect(
      JSON.parse(await registry.dispatch('status', { service: 'api' }, { callId: 'before' })),
    ).toMatchObject({
      ok: true,
    });
    await registry.close();
    const envelope = JSON.parse(await registry.dispatch('status', { service: 'api' }, { callId: 'after' }));
    expect(envelope).toMatchObject({ ok: false, error: { type: 'registry_closed' } });
    expect(ran).toEqual(['status api']);
    expect(audit.written()).toBe(2);
    audit.close();
    const entries = sink.read(file);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ callId: 'before', outcome: 'ok', decision: { action: 'allow' } });
    expect(entries[1]).toMatchObject({
      tool: 'status',
      callId: 'after',
      outcome: 'registry_closed',
      decision: { action: 'deny', rule: 'registry-closed' },
    });
    // Filtered as an operator would look for it.
    expect(queryAuditLog(file, { decision: 'deny' })).toMatchObject([
      { callId: 'after', outcome: 'registry_closed' },
    ]);
  });

  test('an approval queue that fails before the tool runs is a denial by store-unavailable; the call had no effect', async () => {
    const file = join(dir, sink.file);
    const audit = sink.open(file);
    const ran: string[] = [];
    const asked: string[] = [];
    const gate = createPolicyGate(policy, { observe: audit.observe });
    const registry = new Registry({
      ...gate.registryOptions,
      approvalQueue: (request) => {
        asked.push(request.tool.name);
        return { action: 'deny', outcome: 'store_unavailable', reason: 'the approvals table cannot be read' };
      },
    }).register(tools(ran));
    const envelope = JSON.parse(await registry.dispatch('deploy', { service: 'api' }, { callId: 'queued' }));
    expect(asked).toEqual(['deploy']);
    expect(ran).toEqual([]);
    expect(envelope).toMatchObject({ ok: false, error: { type: 'store_unavailable', tool: 'deploy' } });
    expect(envelope.error.message).toMatch(NO_EFFECT);
    expect(envelope.error.message).not.toMatch(MAY_HAVE_RUN);
    expect(envelope.error.message).toContain('the approvals table cannot be read');
    audit.close();
    expect(sink.read(file)).toMatchObject([
      {
        tool: 'deploy',
        callId: 'queued',
        outcome: 'store_unavailable',
        decision: { action: 'deny', rule: 'store-unavailable' },
      },
    ]);
  });

  test('an audit commit that fails after the tool ran withholds the outcome; the tool may have taken effect', async () => {
    const file = join(dir, sink.file);
    const audit = sink.open(file);
    const ran: string[] = [];
    const seen: CallRecord[] = [];
    const gate = createPolicyGate(policy, {
      observe: (record) => {
        seen.push(record);
        audit.observe(record);
        return Promise.reject(new Error('the shared audit table is gone'));
      },
    });
    const registry = new Registry({ ...gate.registryOptions }).register(tools(ran));
    const envelope = JSON.parse(await registry.dispatch('status', { service: 'api' }, { callId: 'lost' }));
    expect(ran).toEqual(['status api']);
    expect(envelope).toMatchObject({ ok: false, error: { type: 'store_unavailable', tool: 'status' } });
    expect(envelope.error.message).toMatch(MAY_HAVE_RUN);
    expect(envelope.error.message).not.toMatch(NO_EFFECT);
    // The result itself is withheld.
    expect(JSON.stringify(envelope)).not.toContain('"up"');
    // The local sink kept what the gate decided: the read was allowed and ran.
    expect(seen).toHaveLength(1);
    audit.close();
    expect(sink.read(file)).toMatchObject([
      { tool: 'status', callId: 'lost', outcome: 'ok', decision: { action: 'allow' } },
    ]);
  });
});

// The same two store failures through the PostgreSQL store. Each store sits on its own database, and
// the one that fails is made unreachable by refusing connections to that database alone, so the
// cluster never restarts.
describe.runIf(hasPostgres)('the same store failures through the PostgreSQL store', () => {
  let postgres: PostgresServer;
  const opened: PostgresStore[] = [];
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(opened.map((store) => store.close()));
    await postgres?.stop();
  });

  async function open(url: string) {
    const store = await openPostgresStore(url, { connectTimeoutMs: 2_000 });
    opened.push(store);
    return store;
  }

  /** Refuses new connections to `database` and ends the ones open, as a store going away. */
  async function cutOff(url: string, database: string) {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
      await client.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database],
      );
    } finally {
      await client.end();
    }
  }

  test('a queue whose store cannot be reached denies by store-unavailable, committed in the audit store; the call had no effect', async () => {
    const auditUrl = await postgres.createDatabase('decisions_audit');
    const queueUrl = await postgres.createDatabase('decisions_queue');
    const auditStore = await open(auditUrl);
    const queueStore = await open(queueUrl);
    const ran: string[] = [];
    const gate = createPolicyGate(policy, { observe: auditStore.audit.observe });
    const registry = new Registry({
      ...gate.registryOptions,
      approvalQueue: queueStore.approvalQueue(policy),
    }).register(tools(ran));
    await cutOff(auditUrl, 'decisions_queue');
    const envelope = await registry.call('deploy', { service: 'api' }, { callId: 'queued' });
    expect(ran).toEqual([]);
    expect(envelope).toMatchObject({ ok: false, error: { type: 'store_unavailable', tool: 'deploy' } });
    if (!envelope.ok) {
      expect(envelope.error.message).toMatch(NO_EFFECT);
      expect(envelope.error.message).not.toMatch(MAY_HAVE_RUN);
    }
    expect(await auditStore.queryAudit({ tool: 'deploy' })).toMatchObject([
      {
        callId: 'queued',
        outcome: 'store_unavailable',
        decision: { action: 'deny', rule: 'store-unavailable' },
      },
    ]);
  }, 60_000);

  test('an audit store that cannot be reached after the tool ran withholds the outcome; it may have taken effect', async () => {
    const auditUrl = await postgres.createDatabase('decisions_lost');
    const otherUrl = await postgres.createDatabase('decisions_other');
    const auditStore = await open(auditUrl);
    const ran: string[] = [];
    const local = openSqliteAuditLog(join(dir, 'local.db'));
    const gate = createPolicyGate(policy, {
      observe: (record) => {
        local.observe(record);
        return auditStore.audit.observe(record);
      },
    });
    const registry = new Registry({ ...gate.registryOptions }).register(tools(ran));
    expect(await registry.call('status', { service: 'before' })).toMatchObject({ ok: true });
    await cutOff(otherUrl, 'decisions_lost');
    const envelope = await registry.call('status', { service: 'during' }, { callId: 'lost' });
    expect(ran).toEqual(['status before', 'status during']);
    expect(envelope).toMatchObject({ ok: false, error: { type: 'store_unavailable', tool: 'status' } });
    if (!envelope.ok) {
      expect(envelope.error.message).toMatch(MAY_HAVE_RUN);
      expect(envelope.error.message).not.toMatch(NO_EFFECT);
    }
    local.close();
    expect(queryAuditLog(join(dir, 'local.db'))).toMatchObject([
      { outcome: 'ok' },
      { callId: 'lost', outcome: 'ok', decision: { action: 'allow' } },
    ]);
  }, 60_000);
});
