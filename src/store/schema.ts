import { auditTableSql } from '../audit/audit-rows.js';

// The tables of the shared store, created and migrated on start (docs/deploy.md describes each).

/** The advisory lock replicas take to migrate one at a time. */
export const SCHEMA_LOCK = 0x7001_9ac7;

/** Each step from one schema version to the next, applied in order in one transaction. */
export const MIGRATIONS: readonly { readonly version: number; readonly sql: string }[] = [
  {
    version: 1,
    sql: `
${auditTableSql('postgres')}
CREATE TABLE approvals (
  id TEXT PRIMARY KEY,
  tool TEXT NOT NULL,
  arguments JSONB,
  arguments_digest TEXT NOT NULL,
  principal TEXT NOT NULL,
  client JSONB,
  rule TEXT,
  reason TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'used')),
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  expires_at TIMESTAMPTZ NOT NULL,
  decided_by TEXT,
  decided_at TIMESTAMPTZ,
  decision_reason TEXT,
  used_at TIMESTAMPTZ,
  reported BOOLEAN NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX approvals_open ON approvals (tool, arguments_digest, principal) WHERE status IN ('pending', 'approved');
CREATE INDEX approvals_status ON approvals (status, created_at);
CREATE TABLE used_request_states (
  id TEXT PRIMARY KEY,
  expires_at BIGINT NOT NULL
);`,
  },
  {
    // Who called, as the approvals table spells it. The first migration builds audit_log from the
    // current column list, so a store created now already has the column.
    version: 2,
    sql: 'ALTER TABLE audit_log ADD COLUMN IF NOT EXISTS principal TEXT;',
  },
  {
    // The authenticated caller's parts, queried by subject; who may decide a queued approval (its
    // rule's `decidedBy`), who did (their principal key), and the decisions refused.
    version: 3,
    sql: `ALTER TABLE audit_log ADD COLUMN IF NOT EXISTS subject TEXT;
ALTER TABLE audit_log ADD COLUMN IF NOT EXISTS client_id TEXT;
ALTER TABLE audit_log ADD COLUMN IF NOT EXISTS issuer TEXT;
CREATE INDEX IF NOT EXISTS audit_log_subject_time ON audit_log (subject, time_ms);
ALTER TABLE IF EXISTS approvals ADD COLUMN IF NOT EXISTS deciders JSONB;
ALTER TABLE IF EXISTS approvals ADD COLUMN IF NOT EXISTS decider_principal TEXT;
ALTER TABLE IF EXISTS approvals ADD COLUMN IF NOT EXISTS refusals JSONB NOT NULL DEFAULT '[]'::jsonb;`,
  },
  {
    // The gateway's sign-ins to remote MCP servers, sealed as the token file seals them: the name is
    // an HMAC of server and principal, the row holds no token in clear (postgres-token-store.ts).
    version: 4,
    sql: `CREATE TABLE IF NOT EXISTS mcp_tokens (
  name TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  iv TEXT NOT NULL,
  tag TEXT NOT NULL,
  data TEXT NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);`,
  },
];

/** The version this toolpact writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
