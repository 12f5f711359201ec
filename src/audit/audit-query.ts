import type { AuditEntry } from './audit-log.js';
import { AuditSinkError } from './audit-sink.js';

/** What {@link queryAuditLog} (and a SQLite audit log's `query`) selects. Every field narrows. */
export interface AuditQuery {
  /** Only calls to this tool (or these tools). */
  readonly tool?: string | readonly string[];
  /** Only calls started at or after this: a Date, epoch milliseconds, an ISO 8601 time, or a duration back from now (`90s`, `15m`, `1h`, `7d`, `2w`). */
  readonly since?: Date | number | string;
  /** Only calls started before this (the same forms as `since`). */
  readonly until?: Date | number | string;
  /** Only calls with this outcome: `ok` or an error type such as `permission_denied`. */
  readonly outcome?: string;
  /** Only calls the gate decided so (`none`: calls that ended before the gate, or had none). */
  readonly decision?: 'allow' | 'deny' | 'ask' | 'none';
  /**
   * Only calls by this caller: a principal key (`auth:<subject>@<issuer>`, `auth:<subject>`), `local`
   * (the local process), or a bare subject (`alice`: the calls of that subject, from any issuer).
   */
  readonly principal?: string;
  /** At most this many entries, the latest ones (default: all). */
  readonly limit?: number;
}

/** An {@link AuditQuery} with its bounds resolved, as the readers apply it. */
export interface ResolvedAuditQuery {
  readonly tools: readonly string[] | undefined;
  readonly sinceMs: number | undefined;
  readonly untilMs: number | undefined;
  readonly outcome: string | undefined;
  readonly decision: AuditQuery['decision'];
  /** The principal key to select, when `principal` was one (or `local`). */
  readonly principal: string | undefined;
  /** The subject to select, when `principal` was a bare subject. */
  readonly subject: string | undefined;
  readonly limit: number | undefined;
}

const UNIT_MS: { readonly [unit: string]: number } = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};
const DECISIONS = ['allow', 'deny', 'ask', 'none'] as const;

/**
 * Resolves a query against the clock: durations become times, names a list; a bound that does not
 * parse throws {@link AuditSinkError} (`invalid_query`) saying what came and what is accepted.
 *
 * @example
 * resolveAuditQuery({ tool: 'write_file', since: '1h' }, Date.now()).sinceMs; // an hour ago
 */
export function resolveAuditQuery(query: AuditQuery, now = Date.now()): ResolvedAuditQuery {
  if (query.decision !== undefined && !DECISIONS.includes(query.decision)) {
    throw new AuditSinkError(
      'invalid_query',
      `decision must be one of ${DECISIONS.join(', ')}, received ${JSON.stringify(query.decision)}.`,
    );
  }
  const asked = query.principal;
  if (asked !== undefined && (typeof asked !== 'string' || asked.trim() === '' || asked === 'auth:')) {
    throw new AuditSinkError(
      'invalid_query',
      `principal is a subject (alice), a principal key (auth:alice@https://id.example, auth:alice) or local (the local process), received ${JSON.stringify(asked)}.`,
    );
  }
  // A key, or `local`, selects that principal; anything else is a subject, from any issuer.
  const isKey = asked === undefined || asked === 'local' || asked.startsWith('auth:');
  const principal = isKey ? asked : undefined;
  const subject = isKey ? undefined : asked;
  const limit = query.limit;
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
    throw new AuditSinkError(
      'invalid_query',
      `limit must be a positive whole number, received ${String(limit)}.`,
    );
  }
  return {
    tools:
      query.tool === undefined ? undefined : typeof query.tool === 'string' ? [query.tool] : [...query.tool],
    sinceMs: timeBound('since', query.since, now),
    untilMs: timeBound('until', query.until, now),
    outcome: query.outcome,
    decision: query.decision,
    principal,
    subject,
    limit,
  };
}

/**
 * Whether one entry is selected (for logs read into memory; SQLite applies the same in SQL).
 *
 * @example
 * entries.filter((entry) => auditEntryMatches(entry, resolveAuditQuery({ outcome: 'permission_denied' })));
 */
export function auditEntryMatches(entry: AuditEntry, query: ResolvedAuditQuery): boolean {
  if (query.tools && !query.tools.includes(entry.tool)) return false;
  const time = Date.parse(entry.time);
  if (query.sinceMs !== undefined && !(time >= query.sinceMs)) return false;
  if (query.untilMs !== undefined && !(time < query.untilMs)) return false;
  if (query.outcome !== undefined && entry.outcome !== query.outcome) return false;
  if (query.decision !== undefined && (entry.decision?.action ?? 'none') !== query.decision) return false;
  if (query.principal !== undefined && (entry.principal ?? null) !== query.principal) return false;
  if (query.subject !== undefined && entry.subject !== query.subject) return false;
  return true;
}

function timeBound(name: string, value: Date | number | string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  if (value instanceof Date && Number.isFinite(value.getTime())) return value.getTime();
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const duration = /^(\d+(?:\.\d+)?)\s*([smhdw])$/.exec(value.trim());
    if (duration) return now - Number(duration[1]) * UNIT_MS[duration[2]!]!;
    // A date-like string only: Date.parse accepts bare numbers such as "5" as years.
    const time = /^\d{4}-\d{2}-\d{2}/.test(value.trim()) ? Date.parse(value) : Number.NaN;
    if (Number.isFinite(time)) return time;
  }
  throw new AuditSinkError(
    'invalid_query',
    `${name} takes a duration back from now (such as 90s, 15m, 1h, 7d or 2w) or an ISO 8601 time (such as 2026-05-01T12:00:00Z), received ${JSON.stringify(value instanceof Date ? 'an invalid Date' : value)}.`,
  );
}
