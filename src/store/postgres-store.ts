import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Client, ClientConfig, Pool, PoolClient, PoolConfig } from 'pg';
import { type AuditEntry, type AuditLogOptions, toEntry } from '../audit/audit-log.js';
import { type AuditQuery, resolveAuditQuery } from '../audit/audit-query.js';
import {
  AUDIT_COLUMNS,
  type AuditRow,
  auditEntryFromRow,
  auditRow,
  auditWhere,
} from '../audit/audit-rows.js';
import type { AuditSink } from '../audit/audit-sink.js';
import { brandedContextOf } from '../dispatch/context-brand.js';
import type { ApprovalAnswer, ApprovalQueue, PauseAnswer, PendingApproval } from '../dispatch/gate.js';
import { inBandRefusal } from '../dispatch/in-band.js';
import { type Principal, principalKey } from '../dispatch/principal.js';
import { principalKeyOf, toolIdentity } from '../dispatch/tool-identity.js';
import type { DeciderCondition, Policy } from '../policy/policy.js';
import { deciderRefusal } from '../policy/principal-condition.js';
import type { CallRecord } from '../registry/registry.js';
import { digestOf } from '../util/digest.js';
import { redactValue } from '../util/redact.js';
import { type PostgresEventBus, postgresEventBus } from './event-bus.js';
import { MIGRATIONS, SCHEMA_LOCK, SCHEMA_VERSION } from './schema.js';
import { StoreError } from './store-error.js';

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions extends AuditLogOptions {
  /** Connections in the pool (default 10). */
  readonly poolSize?: number;
  /** Longest wait for a connection, at start and for every query, in milliseconds (default 5,000). */
  readonly connectTimeoutMs?: number;
  /**
   * When an audit record cannot be committed: `fail` (default) rejects the observer's promise, so the
   * call answers `store_unavailable`; `warn` tells `onWarning` and lets the result go out.
   */
  readonly auditFailure?: 'fail' | 'warn';
  /** Told of what the store could not do but did not fail a call for (a lost record under `warn`). */
  readonly onWarning?: (message: string) => void;
  /** Most records in one audit insert (default 500). */
  readonly maxBatch?: number;
}

/** One approval of the queue, as the store keeps it. */
export interface Approval {
  readonly id: string;
  readonly tool: string;
  /** The validated arguments, secrets redacted. */
  readonly arguments: unknown;
  readonly argumentsDigest: string;
  /**
   * Who asked, as `principalOf` tells it: `auth:<client id>` for a caller the transport authenticated
   * (`authInfo`), else `local`. Rows written before this spelling say `client:<name>`, the name the MCP
   * client reported about itself; they stay readable, and no retry matches them.
   */
  readonly principal: string;
  /** The MCP client's `clientInfo` as it reported it (never trusted as an identity), when over MCP. */
  readonly client: unknown;
  readonly rule: string | null;
  readonly reason: string | null;
  /** `pending`, then `approved` or `denied` (or `expired`); an approved call that ran is `used`. */
  readonly status: 'pending' | 'approved' | 'denied' | 'expired' | 'used';
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly decidedBy: string | null;
  readonly decidedAt: string | null;
  readonly decisionReason: string | null;
  readonly usedAt: string | null;
  /** Who may decide it: its rule's `decidedBy`, when the rule has one. */
  readonly deciders?: DeciderCondition;
  /** The key of who decided (`auth:<subject>@<issuer>`, or `local`), when decided by this version. */
  readonly deciderPrincipal?: string;
  /** Decisions refused because the decider was not one the rule allows, oldest first (absent when none). */
  readonly refusals?: readonly ApprovalRefusal[];
}

/** A decision refused by an approval's `decidedBy`, as the store records it. */
export interface ApprovalRefusal {
  /** Who tried, as recorded (`by`, else the decider's subject, else the operating-system user). */
  readonly by: string;
  /** Their principal key, or `local`. */
  readonly principal: string;
  readonly action: 'approve' | 'deny';
  readonly reason: string;
  readonly at: string;
}

/** A decision on a queued approval. */
export interface ApprovalDecision {
  /** Who decided, as recorded (default: the decider's subject, else the operating-system user). */
  readonly by?: string;
  readonly reason?: string;
  /**
   * The signed-in decider, as their authentication established them; undefined is the local process
   * (the CLI on this machine), which is in no group and is never the caller. Checked against the
   * approval's `deciders` (its rule's `decidedBy`; without one, anyone signed in but the caller who
   * asked): a decision by anyone else is refused (`StoreError` `not_allowed`) and recorded in the
   * approval's `refusals`.
   */
  readonly decider?: Principal;
}

/** The queue of out-of-band approvals in the store. */
export interface ApprovalStore {
  list(options?: {
    readonly status?: Approval['status'] | 'all';
    readonly limit?: number;
  }): Promise<Approval[]>;
  get(id: string): Promise<Approval | undefined>;
  /** Approves a pending approval; the same call, retried, then runs once. */
  approve(id: string, decision?: ApprovalDecision): Promise<Approval>;
  /** Denies a pending approval; the retry is refused with the reason. Final. */
  deny(id: string, decision?: ApprovalDecision): Promise<Approval>;
}

/** Options of {@link PostgresStore.approvalQueue}. */
export interface ApprovalQueueOptions {
  /**
   * How long after an approved call ran a concurrent retry of it is told `approval_already_used`
   * rather than asked anew (default 60,000 ms).
   */
  readonly reuseWindowMs?: number;
}

/** A store of what a fleet of toolpact servers shares: the audit log and the approvals, in PostgreSQL. */
export interface PostgresStore {
  /** The server, without the password: `postgres://user@host:port/db`. */
  readonly where: string;
  /**
   * The audit log: `observe` resolves once the record is committed (records of concurrent calls go
   * in one insert), so a registry holds each result until then.
   */
  readonly audit: AuditSink & { readonly observe: (record: CallRecord) => Promise<void> };
  readonly approvals: ApprovalStore;
  /** The entries a query selects, oldest first (the same answers as the SQLite log's). */
  queryAudit(query?: AuditQuery): Promise<AuditEntry[]>;
  /**
   * The registry's `approvalQueue` for `policy`: an ask whose rule says `approver: "queue"` (or, with
   * `approvals.whenClientCannotAsk: "queue"`, any ask from a client that cannot elicit) goes to the
   * queue; the call answers `approval_pending` with the approval's id, and the same call by the same
   * principal after the approval runs once, whichever replica it reaches.
   */
  approvalQueue(policy: Policy, options?: ApprovalQueueOptions): ApprovalQueue;
  /**
   * The change-event bus every replica's `subscriptions/listen` streams share (PostgreSQL
   * `LISTEN`/`NOTIFY` on a dedicated connection), for `serveHttp`'s `bus`. Closed with the store.
   */
  eventBus(): Promise<PostgresEventBus>;
  /** Marks a request state used, once across every replica: the fleet's `UsedStateStore`. */
  claimState(id: string, expiresAt: number): Promise<'claimed' | 'used'>;
  close(): Promise<void>;
}

const DEFAULT_EXPIRY = '24h';
const DEFAULT_REUSE_WINDOW_MS = 60_000;

/**
 * Opens the shared store at a `postgres://` URL through the optional `pg` package (node-postgres 8),
 * with a pool; creates and migrates its tables under an advisory lock (so replicas starting together
 * migrate once), and checks the connection. An unreachable server throws {@link StoreError}
 * (`unreachable`) naming the host it tried. While running, a lost connection fails only the queries
 * that needed it (`store_unavailable`), and the pool connects again on the next one.
 *
 * @example
 * const store = await openPostgresStore(process.env.TOOLPACT_STORE!);
 * const gate = createPolicyGate(policy, { observe: store.audit.observe });
 * const registry = new Registry({ ...gate.registryOptions, approvalQueue: store.approvalQueue(policy) });
 */
export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  const target = describeUrl(url);
  const pg = loadDriver();
  const timeout = options.connectTimeoutMs ?? 5_000;
  const config: PoolConfig = {
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: timeout,
    idleTimeoutMillis: 30_000,
    application_name: 'toolpact',
  };
  const pool: Pool = new pg.Pool(config);
  // A connection that dies while idle (a restarted server) is dropped from the pool, not thrown.
  pool.on('error', () => {});
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    if (error instanceof StoreError) throw error;
    throw new StoreError(
      'unreachable',
      `Cannot reach the store at ${target}: ${reasonOf(error)}. Check that PostgreSQL runs there and accepts this user, or fix --store (TOOLPACT_STORE).`,
      { cause: error },
    );
  }

  const auditFailure = options.auditFailure ?? 'fail';
  const maxBatch = options.maxBatch ?? 500;
  let written = 0;
  let failed = 0;
  let open = true;
  let queue: { row: AuditRow; resolve: () => void; reject: (error: Error) => void }[] = [];
  let scheduled = false;
  const inFlight = new Set<Promise<void>>();

  // Group commit: the records of the calls that end in one turn of the event loop go in one insert.
  const flush = () => {
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(maxBatch);
      const values: unknown[] = [];
      const tuples = batch.map(({ row }) => {
        const marks = AUDIT_COLUMNS.map((column) => {
          values.push(row[column]);
          return `$${values.length}`;
        });
        return `(${marks.join(', ')})`;
      });
      const done = pool
        .query(`INSERT INTO audit_log (${AUDIT_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`, values)
        .then(
          () => {
            written += batch.length;
            for (const each of batch) each.resolve();
          },
          (error: unknown) => {
            failed += batch.length;
            const problem = new StoreError(
              'unavailable',
              `the audit record could not be committed to ${target} (${reasonOf(error)})`,
              { cause: error },
            );
            for (const each of batch) each.reject(problem);
          },
        );
      inFlight.add(done);
      void done.finally(() => inFlight.delete(done));
    }
  };

  const observe = (record: CallRecord): Promise<void> => {
    if (!open) {
      failed++;
      return auditFailure === 'fail'
        ? Promise.reject(new StoreError('unavailable', 'the store is closed'))
        : Promise.resolve();
    }
    const row = auditRow(toEntry(record, options));
    const committed = new Promise<void>((resolve, reject) => {
      queue.push({ row, resolve, reject });
    });
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    if (auditFailure === 'fail') return committed;
    return committed.catch((error: unknown) => {
      options.onWarning?.(`an audit record of "${record.tool}" was lost: ${reasonOf(error)}`);
    });
  };

  const approvals = approvalStore(pool);
  const buses: PostgresEventBus[] = [];

  const store: PostgresStore = {
    where: target,
    audit: Object.freeze({
      observe,
      written: () => written,
      failed: () => failed,
      close: () => {
        open = false;
      },
    }),
    approvals,
    async queryAudit(query: AuditQuery = {}) {
      const resolved = resolveAuditQuery(query);
      const { where, parameters } = auditWhere(resolved, (index) => `$${index}`);
      const result = await pool.query(
        `SELECT ${AUDIT_COLUMNS.join(', ')} FROM audit_log${where} ORDER BY time_ms DESC, id DESC${resolved.limit ? ` LIMIT ${resolved.limit}` : ''}`,
        parameters,
      );
      return (result.rows as Record<string, unknown>[])
        .reverse()
        .map((row) => auditEntryFromRow(numbersOf(row) as AuditRow));
    },
    approvalQueue: (policy, queueOptions = {}) => approvalQueue(pool, policy, queueOptions),
    async eventBus() {
      const bus = await postgresEventBus(
        () =>
          new pg.Client({
            connectionString: url,
            connectionTimeoutMillis: timeout,
            application_name: 'toolpact-events',
          }),
        options.onWarning
          ? { onError: (error) => options.onWarning?.(`the event bus: ${error.message}`) }
          : {},
      );
      buses.push(bus);
      return bus;
    },
    async claimState(id, expiresAt) {
      await pool.query('DELETE FROM used_request_states WHERE expires_at < $1', [Date.now()]);
      const result = await pool.query(
        'INSERT INTO used_request_states (id, expires_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
        [id, expiresAt],
      );
      return result.rowCount === 1 ? 'claimed' : 'used';
    },
    async close() {
      await Promise.all(buses.splice(0).map((bus) => bus.close()));
      if (!open && inFlight.size === 0 && queue.length === 0) {
        await pool.end().catch(() => {});
        return;
      }
      open = false;
      flush();
      await Promise.allSettled([...inFlight]);
      await pool.end().catch(() => {});
    },
  };
  pools.set(store, pool);
  return store;
}

const pools = new WeakMap<PostgresStore, Pool>();

/** The pool of a store {@link openPostgresStore} opened, for the other tables kept in it. */
export function poolOf(store: PostgresStore): Pool {
  const pool = pools.get(store);
  if (!pool) {
    throw new StoreError(
      'invalid_url',
      'This store was not opened by openPostgresStore. Open the store with openPostgresStore(url) and pass it.',
    );
  }
  return pool;
}

/** Creates the tables, or brings them to {@link SCHEMA_VERSION}, in one transaction under a lock. */
async function migrate(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS toolpact_schema (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query('SELECT coalesce(max(version), 0) AS version FROM toolpact_schema');
    const current = Number((rows[0] as { version: unknown }).version);
    if (current > SCHEMA_VERSION) {
      throw new StoreError(
        'newer_schema',
        `The store's tables are at version ${current}, newer than this toolpact knows (${SCHEMA_VERSION}). Upgrade toolpact on this replica; it will not write to tables it does not understand.`,
      );
    }
    for (const migration of MIGRATIONS.filter((each) => each.version > current)) {
      await client.query(migration.sql);
      await client.query('INSERT INTO toolpact_schema (version) VALUES ($1)', [migration.version]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

const APPROVAL_COLUMNS =
  'id, tool, arguments, arguments_digest, principal, client, rule, reason, status, created_at, expires_at, decided_by, decided_at, decision_reason, used_at, deciders, decider_principal, refusals';

function approvalStore(pool: Pool): ApprovalStore {
  const decide = async (id: string, status: 'approved' | 'denied', decision: ApprovalDecision = {}) => {
    const decider = decision.decider;
    const by = decision.by ?? decider?.subject ?? defaultDecider();
    const deciderKey = decider === undefined ? 'local' : principalKey(decider);
    const action = status === 'approved' ? 'approve' : 'deny';
    // Who may decide is the approval's own (sealed when it was queued), checked before the decision.
    const before = await pool.query(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = $1`, [id]);
    const row = before.rows[0] as Record<string, unknown> | undefined;
    if (row !== undefined && row.status === 'pending') {
      // A rule that names no deciders still keeps a signed-in caller from deciding its own call, as an
      // authenticated caller does not approve its own call in band either.
      const named = (row.deciders as DeciderCondition | null) ?? undefined;
      const deciders = named ?? (decider === undefined ? undefined : { notCaller: true });
      const refusal = deciderRefusal(deciders, decider, String(row.principal), deciderKey);
      if (refusal !== undefined) {
        const record = { by, principal: deciderKey, action, reason: refusal, at: new Date().toISOString() };
        await pool.query(
          `UPDATE approvals SET refusals = refusals || jsonb_build_array($2::jsonb) WHERE id = $1`,
          [id, JSON.stringify(record)],
        );
        throw new StoreError(
          'not_allowed',
          `The approval "${id}" cannot be ${status === 'approved' ? 'approved' : 'denied'} by ${by} (${deciderKey}): ${refusal} (rule "${String(row.rule)}", ${named ? 'decidedBy' : 'which names no deciders, so anyone signed in but the caller may decide it'}). The attempt is recorded. Have someone the rule allows decide it.`,
        );
      }
    }
    const result = await pool.query(
      `UPDATE approvals SET status = $2, decided_by = $3, decided_at = now(), decision_reason = $4, decider_principal = $5
       WHERE id = $1 AND status = 'pending' AND expires_at > now() RETURNING ${APPROVAL_COLUMNS}`,
      [id, status, by, decision.reason ?? null, deciderKey],
    );
    if (result.rowCount === 1) return approvalOf(result.rows[0] as Record<string, unknown>);
    const existing = await pool.query(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = $1`, [id]);
    if (existing.rowCount === 0) {
      throw new StoreError(
        'not_found',
        `There is no approval "${id}". List the pending ones with toolpact approvals list.`,
      );
    }
    const found = approvalOf(existing.rows[0] as Record<string, unknown>);
    const state =
      found.status === 'pending'
        ? `expired at ${found.expiresAt}`
        : `already ${found.status}${found.decidedBy ? ` by ${found.decidedBy}` : ''}`;
    throw new StoreError(
      'not_pending',
      `The approval "${id}" cannot be ${status === 'approved' ? 'approved' : 'denied'}: it is ${state}. A decision is final; the call, made again, asks anew.`,
    );
  };
  return {
    async list(options = {}) {
      const status = options.status ?? 'pending';
      const parameters: unknown[] = [];
      let where = '';
      if (status !== 'all') {
        parameters.push(status);
        where = status === 'pending' ? ` WHERE status = $1 AND expires_at > now()` : ` WHERE status = $1`;
      }
      const limit = options.limit ?? 100;
      const result = await pool.query(
        `SELECT ${APPROVAL_COLUMNS} FROM approvals${where} ORDER BY created_at DESC LIMIT ${Math.max(1, Math.floor(limit))}`,
        parameters,
      );
      return (result.rows as Record<string, unknown>[]).map(approvalOf);
    },
    async get(id) {
      const result = await pool.query(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = $1`, [id]);
      return result.rowCount === 0 ? undefined : approvalOf(result.rows[0] as Record<string, unknown>);
    },
    approve: (id, decision) => decide(id, 'approved', decision),
    deny: (id, decision) => decide(id, 'denied', decision),
  };
}

/**
 * The queue as the registry consults it. One call is identified by its tool, the digest of its
 * validated arguments and its principal; at most one approval of it is open (pending or approved) at
 * a time, which a unique index keeps across replicas.
 */
function approvalQueue(pool: Pool, policy: Policy, options: ApprovalQueueOptions): ApprovalQueue {
  const queued = new Set(policy.rules.filter((rule) => rule.approver === 'queue').map((rule) => rule.id));
  const whenCannotAsk = policy.approvals?.whenClientCannotAsk ?? 'deny';
  const expiresIn = intervalOf(policy.approvals?.expiresIn ?? DEFAULT_EXPIRY);
  const reuseWindowMs = options.reuseWindowMs ?? DEFAULT_REUSE_WINDOW_MS;
  const deciders = new Map(
    policy.rules.flatMap((rule) =>
      rule.decidedBy === undefined ? [] : [[rule.id, rule.decidedBy] as const],
    ),
  );
  return (pending) => {
    const rule = pending.decision.rule;
    // An authenticated caller's ask that it may not approve itself goes to the queue too.
    const toQueue =
      (rule !== undefined && queued.has(rule)) ||
      (whenCannotAsk === 'queue' && !canAsk(pending)) ||
      inBandRefusal(pending) !== undefined;
    if (!toQueue) return undefined;
    const decidedBy = rule === undefined ? undefined : deciders.get(rule);
    return decideQueued(pool, pending, expiresIn, reuseWindowMs, decidedBy).catch(
      (error: unknown): ApprovalAnswer => ({
        action: 'deny',
        outcome: 'store_unavailable',
        reason: `the approvals cannot be read (${reasonOf(error)})`,
      }),
    );
  };
}

async function decideQueued(
  pool: Pool,
  pending: PendingApproval,
  expiresIn: string,
  reuseWindowMs: number,
  decidedBy: DeciderCondition | undefined,
): Promise<ApprovalAnswer | PauseAnswer> {
  const tool = pending.tool.name;
  // The call's digest covers the tool's identity with its arguments (its source, its name there, the
  // definition shown), so an approval never runs another server's tool behind the same served name,
  // nor a changed definition.
  const identity = toolIdentity(pending.tool, pending.meta, pending.state);
  const digest = digestOf({
    arguments: pending.arguments ?? null,
    tool: [identity.source, identity.name, identity.definition],
  });
  // Who asks is `principalOf`: the transport's authenticated client, else local.
  const principal = principalKeyOf(pending.state);
  const key = [tool, digest, principal];
  const client: PoolClient = await pool.connect();
  try {
    await client.query(
      `UPDATE approvals SET status = 'expired'
       WHERE tool = $1 AND arguments_digest = $2 AND principal = $3 AND status IN ('pending', 'approved') AND expires_at <= now()`,
      key,
    );
    // The claim: one UPDATE, so of two retries at once (on two replicas) exactly one finds it approved.
    const claimed = await client.query(
      `UPDATE approvals SET status = 'used', used_at = now()
       WHERE tool = $1 AND arguments_digest = $2 AND principal = $3 AND status = 'approved' RETURNING id`,
      key,
    );
    if (claimed.rowCount === 1) return { action: 'allow', scope: 'once' };
    const latest = await client.query(
      `SELECT id, status, decided_by, decision_reason, reported, expires_at,
              (used_at IS NOT NULL AND used_at > now() - ($4::double precision * interval '1 millisecond')) AS recently_used
       FROM approvals WHERE tool = $1 AND arguments_digest = $2 AND principal = $3
       ORDER BY created_at DESC LIMIT 1`,
      [...key, reuseWindowMs],
    );
    const row = latest.rows[0] as
      | {
          id: string;
          status: Approval['status'];
          decided_by: string | null;
          decision_reason: string | null;
          reported: boolean;
          expires_at: Date;
          recently_used: boolean;
        }
      | undefined;
    if (row?.status === 'pending') return pause(row.id, tool);
    if (row?.status === 'used' && row.recently_used) {
      return { action: 'deny', outcome: 'approval_already_used', approval: row.id };
    }
    // A denial or an expiry is told once, to the next call; after that the call asks anew.
    if ((row?.status === 'denied' || row?.status === 'expired') && !row.reported) {
      const told = await client.query(
        'UPDATE approvals SET reported = true WHERE id = $1 AND reported = false RETURNING id',
        [row.id],
      );
      if (told.rowCount === 1) {
        return {
          action: 'deny',
          reason:
            row.status === 'denied'
              ? `${row.decided_by ?? 'a person'} denied it (approval ${row.id})${row.decision_reason ? `: ${row.decision_reason}` : ''}`
              : `its approval ${row.id} expired without a decision; calling it again asks anew`,
        };
      }
    }
    const id = `apr_${randomBytes(9).toString('base64url')}`;
    const context = mcpContextOf(pending.state);
    const inserted = await client.query(
      `INSERT INTO approvals (id, tool, arguments, arguments_digest, principal, client, rule, reason, status, expires_at, deciders)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', now() + $9::interval, $10)
       ON CONFLICT DO NOTHING RETURNING id`,
      [
        id,
        tool,
        JSON.stringify(redactValue(pending.arguments) ?? null),
        digest,
        principal,
        context?.clientInfo ? JSON.stringify(context.clientInfo) : null,
        pending.decision.rule ?? null,
        pending.decision.reason ?? null,
        expiresIn,
        decidedBy === undefined ? null : JSON.stringify(decidedBy),
      ],
    );
    if (inserted.rowCount === 1) return pause(id, tool);
    // Another replica queued the same call a moment ago: this call waits on that approval.
    const open = await client.query(
      `SELECT id FROM approvals WHERE tool = $1 AND arguments_digest = $2 AND principal = $3 AND status = 'pending'`,
      key,
    );
    const other = (open.rows[0] as { id: string } | undefined)?.id;
    return other
      ? pause(other, tool)
      : {
          action: 'deny',
          outcome: 'store_unavailable',
          reason: 'the queue changed while the call was queued; call again',
        };
  } finally {
    client.release();
  }
}

/**
 * What the queue reads of the MCP request a call came in on: the store does not import the MCP
 * server's module (nor so the MCP SDK), it reads these fields of the branded context.
 */
interface RequestView {
  readonly era: 'legacy' | 'modern';
  readonly canElicit: boolean;
  readonly clientInfo?: { readonly name: string };
  readonly clientCapabilities?: { readonly elicitation?: unknown };
}

function mcpContextOf(state: unknown): RequestView | undefined {
  return brandedContextOf<RequestView>(state);
}

function pause(id: string, tool: string): PauseAnswer {
  return {
    action: 'pause',
    approval: id,
    message: `The call to "${tool}" is waiting for a person's decision (approval ${id}) and has not run. It may take a while: tell the user it is waiting for approval ${id}. Once it is approved, calling "${tool}" again with the same arguments runs it, once; until then, do not assume it had any effect.`,
  };
}

function canAsk(pending: PendingApproval): boolean {
  const context = mcpContextOf(pending.state);
  if (!context) return false;
  if (context.era === 'legacy') return context.canElicit;
  return context.clientCapabilities?.elicitation !== undefined;
}

function defaultDecider(): string {
  return process.env.USER ?? process.env.LOGNAME ?? 'unknown';
}

function approvalOf(row: Record<string, unknown>): Approval {
  const time = (value: unknown) =>
    value instanceof Date ? value.toISOString() : value === null ? null : String(value);
  return {
    id: String(row.id),
    tool: String(row.tool),
    arguments: row.arguments ?? null,
    argumentsDigest: String(row.arguments_digest),
    principal: String(row.principal),
    client: row.client ?? null,
    rule: (row.rule as string | null) ?? null,
    reason: (row.reason as string | null) ?? null,
    status: row.status as Approval['status'],
    createdAt: time(row.created_at) ?? '',
    expiresAt: time(row.expires_at) ?? '',
    decidedBy: (row.decided_by as string | null) ?? null,
    decidedAt: time(row.decided_at),
    decisionReason: (row.decision_reason as string | null) ?? null,
    usedAt: time(row.used_at),
    ...(row.deciders == null ? {} : { deciders: row.deciders as DeciderCondition }),
    ...(row.decider_principal == null ? {} : { deciderPrincipal: String(row.decider_principal) }),
    ...(Array.isArray(row.refusals) && row.refusals.length > 0
      ? { refusals: row.refusals as ApprovalRefusal[] }
      : {}),
  };
}

// PostgreSQL gives BIGINT as text; the audit rows hold numbers there.
function numbersOf(row: Record<string, unknown>): Record<string, unknown> {
  return {
    ...row,
    time_ms: Number(row.time_ms),
    duration_ms: Number(row.duration_ms),
    delegation_depth: Number(row.delegation_depth),
  };
}

function intervalOf(duration: string): string {
  const match = /^(\d+)(m|h|d)$/.exec(duration);
  if (!match) return '24 hours';
  const unit = match[2] === 'm' ? 'minutes' : match[2] === 'h' ? 'hours' : 'days';
  return `${match[1]} ${unit}`;
}

/** The URL without its password, for messages. */
export function describeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreError(
      'invalid_url',
      'The store must be a URL such as postgres://user:password@host:5432/database; the one given does not parse.',
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new StoreError(
      'invalid_url',
      `The store must be a postgres:// URL, received a ${parsed.protocol.replace(/:$/, '')} URL. Embedded stores (SQLite, JSON Lines) are given with --audit instead.`,
    );
  }
  return `postgres://${parsed.username ? `${decodeURIComponent(parsed.username)}@` : ''}${parsed.host}${parsed.pathname}`;
}

/** What went wrong, with the driver's error code, for messages. */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

type PgModule = {
  Pool: new (config: PoolConfig) => Pool;
  Client: new (config: ClientConfig) => Client;
};
let driver: PgModule | undefined;

// Loaded on first use, so only a process given a store needs the optional package.
function loadDriver(): PgModule {
  if (driver) return driver;
  try {
    driver = createRequire(import.meta.url)('pg') as PgModule;
    return driver;
  } catch (error) {
    throw new StoreError(
      'missing_dependency',
      'The PostgreSQL store needs the optional package pg (node-postgres 8), which is not installed. Install it: npm install pg@8.',
      { cause: error },
    );
  }
}
