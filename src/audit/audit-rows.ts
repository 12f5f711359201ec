import type { AuditEntry } from './audit-log.js';
import type { ResolvedAuditQuery } from './audit-query.js';

// The columns of `audit_log`, the same in SQLite and PostgreSQL, and the rows both read and write.

/**
 * The columns of `audit_log` besides its id, in the order rows are written, each with its kind and
 * whether it may be null. Both SQLite's table and PostgreSQL's are made from this one list.
 */
const AUDIT_TABLE = [
  ['v', 'integer', true],
  ['time', 'text', true],
  ['time_ms', 'milliseconds', true],
  ['tool', 'text', true],
  ['category', 'text', false],
  ['source', 'text', false],
  ['call_id', 'text', false],
  ['arguments_digest', 'text', false],
  ['arguments', 'text', false],
  ['decision_action', 'text', false],
  ['decision_rule', 'text', false],
  ['decision_reason', 'text', false],
  ['decision_approval', 'text', false],
  ['outcome', 'text', true],
  ['duration_ms', 'real', true],
  ['delegation_depth', 'integer', true],
  // Added after the first release: a table made before it gains it (see auditAddedColumnsSql).
  ['principal', 'text', false],
  ['subject', 'text', false],
  ['client_id', 'text', false],
  ['issuer', 'text', false],
] as const satisfies readonly (readonly [string, AuditColumnKind, boolean])[];

type AuditColumnKind = 'integer' | 'milliseconds' | 'text' | 'real';

/** The columns of `audit_log` besides its id, in the order rows are written. */
export const AUDIT_COLUMNS = AUDIT_TABLE.map(([name]) => name);

const COLUMN_TYPES: Readonly<Record<'sqlite' | 'postgres', Readonly<Record<AuditColumnKind, string>>>> = {
  sqlite: { integer: 'INTEGER', milliseconds: 'INTEGER', text: 'TEXT', real: 'REAL' },
  postgres: { integer: 'INTEGER', milliseconds: 'BIGINT', text: 'TEXT', real: 'DOUBLE PRECISION' },
};

/**
 * The statements that create `audit_log` and its indexes in one SQL dialect, from the one column list.
 * `ifNotExists` is for a store that opens an existing file (SQLite); a migration creates it once.
 *
 * @example
 * database.exec(auditTableSql('sqlite', { ifNotExists: true }));
 */
export function auditTableSql(
  dialect: 'sqlite' | 'postgres',
  options: { readonly ifNotExists?: boolean } = {},
): string {
  const guard = options.ifNotExists ? 'IF NOT EXISTS ' : '';
  const id = dialect === 'sqlite' ? 'id INTEGER PRIMARY KEY' : 'id BIGSERIAL PRIMARY KEY';
  const columns = AUDIT_TABLE.map(
    ([name, kind, required]) => `  ${name} ${COLUMN_TYPES[dialect][kind]}${required ? ' NOT NULL' : ''}`,
  );
  return [
    `CREATE TABLE ${guard}audit_log (\n  ${id},\n${columns.join(',\n')}\n);`,
    `CREATE INDEX ${guard}audit_log_time ON audit_log (time_ms);`,
    `CREATE INDEX ${guard}audit_log_tool_time ON audit_log (tool, time_ms);`,
  ].join('\n');
}

/**
 * The columns an `audit_log` made by an older toolpact may lack: those of the list that `existing`
 * does not have and that may be null (so old rows read back with null there). A missing required
 * column is not listed: that table is not an audit log.
 *
 * @example
 * auditMissingColumns(['id', 'v', 'time']); // ['category', 'source', …]
 */
export function auditMissingColumns(existing: readonly string[]): string[] {
  return AUDIT_TABLE.filter(([name, , required]) => !required && !existing.includes(name)).map(
    ([name]) => name,
  );
}

/**
 * The statements that bring an `audit_log` made by an older toolpact up to the column list: one
 * `ALTER TABLE … ADD COLUMN` for each of {@link auditMissingColumns}; none when nothing is missing.
 *
 * @example
 * database.exec(auditAddedColumnsSql('sqlite', columns).join(';'));
 */
export function auditAddedColumnsSql(dialect: 'sqlite' | 'postgres', existing: readonly string[]): string[] {
  const kinds = new Map<string, AuditColumnKind>(AUDIT_TABLE.map(([name, kind]) => [name, kind]));
  return auditMissingColumns(existing).map(
    (name) => `ALTER TABLE audit_log ADD COLUMN ${name} ${COLUMN_TYPES[dialect][kinds.get(name)!]}`,
  );
}

/** One row of `audit_log`. */
export type AuditRow = { readonly [column in (typeof AUDIT_COLUMNS)[number]]: string | number | null };

/**
 * One audit entry as a row of `audit_log`.
 *
 * @example
 * insert.run(auditRow(toEntry(record)));
 */
export function auditRow(entry: AuditEntry): AuditRow {
  return {
    v: entry.v,
    time: entry.time,
    time_ms: Date.parse(entry.time),
    tool: entry.tool,
    category: entry.category,
    source: entry.source,
    call_id: entry.callId,
    arguments_digest: entry.argumentsDigest,
    arguments: entry.arguments === undefined ? null : JSON.stringify(entry.arguments),
    decision_action: entry.decision?.action ?? null,
    decision_rule: entry.decision?.rule ?? null,
    decision_reason: entry.decision?.reason ?? null,
    decision_approval: entry.decision?.approval ?? null,
    outcome: entry.outcome,
    duration_ms: entry.durationMs,
    delegation_depth: entry.delegationDepth,
    principal: entry.principal,
    subject: entry.subject ?? null,
    client_id: entry.clientId ?? null,
    issuer: entry.issuer ?? null,
  };
}

/**
 * A row of `audit_log` back as the entry it was written from.
 *
 * @example
 * rows.map(auditEntryFromRow);
 */
export function auditEntryFromRow(row: AuditRow): AuditEntry {
  const text = (value: string | number | null) => (value === null ? null : String(value));
  return {
    v: 1,
    time: String(row.time),
    tool: String(row.tool),
    category: text(row.category),
    source: text(row.source),
    callId: text(row.call_id),
    argumentsDigest: text(row.arguments_digest),
    ...(row.arguments === null ? {} : { arguments: JSON.parse(String(row.arguments)) as unknown }),
    decision:
      row.decision_action === null
        ? null
        : {
            action: String(row.decision_action),
            rule: text(row.decision_rule),
            reason: text(row.decision_reason),
            approval: text(row.decision_approval),
          },
    outcome: String(row.outcome),
    durationMs: Number(row.duration_ms),
    delegationDepth: Number(row.delegation_depth),
    principal: text(row.principal ?? null),
    ...callerOf(row),
  };
}

// The authenticated caller's parts a row holds (none for the local process, or a row written before them).
function callerOf(row: AuditRow): Pick<AuditEntry, 'subject' | 'clientId' | 'issuer'> {
  const parts: { subject?: string; clientId?: string; issuer?: string } = {};
  if (row.subject != null) parts.subject = String(row.subject);
  if (row.client_id != null) parts.clientId = String(row.client_id);
  if (row.issuer != null) parts.issuer = String(row.issuer);
  return parts;
}

/**
 * The `WHERE` clause a query selects with, with its parameters, for either database: `placeholder(n)`
 * gives the n-th parameter's marker (`?` in SQLite, `$n` in PostgreSQL).
 *
 * @example
 * const { where, parameters } = auditWhere(resolveAuditQuery({ tool: 'write_file' }), (n) => `$${n}`);
 */
export function auditWhere(
  query: ResolvedAuditQuery,
  placeholder: (index: number) => string,
): { where: string; parameters: unknown[] } {
  const where: string[] = [];
  const parameters: unknown[] = [];
  const next = (value: unknown) => {
    parameters.push(value);
    return placeholder(parameters.length);
  };
  if (query.tools) where.push(`tool IN (${query.tools.map((tool) => next(tool)).join(', ')})`);
  if (query.sinceMs !== undefined) where.push(`time_ms >= ${next(Math.floor(query.sinceMs))}`);
  if (query.untilMs !== undefined) where.push(`time_ms < ${next(Math.ceil(query.untilMs))}`);
  if (query.outcome !== undefined) where.push(`outcome = ${next(query.outcome)}`);
  if (query.decision === 'none') where.push('decision_action IS NULL');
  else if (query.decision !== undefined) where.push(`decision_action = ${next(query.decision)}`);
  if (query.principal !== undefined) where.push(`principal = ${next(query.principal)}`);
  if (query.subject !== undefined) where.push(`subject = ${next(query.subject)}`);
  return { where: where.length ? ` WHERE ${where.join(' AND ')}` : '', parameters };
}
