import { closeSync, existsSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { CallRecord } from '../registry/registry.js';
import { type AuditEntry, type AuditLogOptions, toEntry } from './audit-log.js';
import { type AuditQuery, type ResolvedAuditQuery, resolveAuditQuery } from './audit-query.js';
import {
  AUDIT_COLUMNS,
  type AuditRow,
  auditAddedColumnsSql,
  auditEntryFromRow,
  auditMissingColumns,
  auditRow,
  auditTableSql,
  auditWhere,
} from './audit-rows.js';
import { type AuditSink, AuditSinkError } from './audit-sink.js';

/** Options of {@link openSqliteAuditLog}. */
export interface SqliteAuditLogOptions extends AuditLogOptions {
  /** How long a write waits for another process holding the database, in milliseconds (default 5,000). */
  readonly busyTimeoutMs?: number;
}

/** An open SQLite audit log: an {@link AuditSink} with a query helper. */
export interface SqliteAuditLog extends AuditSink {
  readonly file: string;
  /** The entries a query selects, oldest first. */
  readonly query: (query?: AuditQuery) => AuditEntry[];
}

/** The table every SQLite audit log holds, one row per call (the docs describe each column). */
export const SQLITE_AUDIT_SCHEMA = auditTableSql('sqlite', { ifNotExists: true });

/** The part of better-sqlite3's API this module uses. */
interface Statement {
  run(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
}
interface Database {
  pragma(source: string, options?: { simple?: boolean }): unknown;
  exec(source: string): unknown;
  prepare(source: string): Statement;
  close(): unknown;
}
type DatabaseConstructor = new (
  file: string,
  options?: { readonly?: boolean; fileMustExist?: boolean; timeout?: number },
) => Database;

/**
 * Opens (or creates, mode 0600) a SQLite audit log through the optional `better-sqlite3` package
 * (version 12), loaded only now. One row per call, inserted in its own transaction before the call's
 * result is returned, in WAL mode: a process killed mid-write loses nothing it committed, readers
 * never block the writer, and several processes on one host may share the file (a writer waits up
 * to `busyTimeoutMs` for another). `synchronous=NORMAL` by default: committed rows survive a crash
 * of the process; with `fsync: true` (`synchronous=FULL`) they survive a power cut too.
 *
 * @example
 * const audit = openSqliteAuditLog('audit.db');
 * const gate = createPolicyGate(policy, { observe: audit.observe });
 * audit.query({ tool: 'write_file', since: '1h' });
 */
export function openSqliteAuditLog(file: string, options: SqliteAuditLogOptions = {}): SqliteAuditLog {
  const Driver = loadDriver();
  const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
  if (!(Number.isInteger(busyTimeoutMs) && busyTimeoutMs >= 0)) {
    throw new RangeError(
      `busyTimeoutMs must be a whole number of milliseconds, received ${String(options.busyTimeoutMs)}.`,
    );
  }
  // SQLite gives its -wal and -shm files the database file's mode, so creating it 0600 covers all three.
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  let database: Database;
  try {
    database = new Driver(file, { timeout: busyTimeoutMs });
    database.pragma('journal_mode = WAL');
    database.pragma(`synchronous = ${options.fsync ? 'FULL' : 'NORMAL'}`);
    database.exec(SQLITE_AUDIT_SCHEMA);
    addMissingColumns(database);
  } catch (error) {
    throw new AuditSinkError(
      'cannot_open',
      `Cannot open the SQLite audit log "${file}": ${describe(error)}. Give a new file or one written by openSqliteAuditLog.`,
      { cause: error },
    );
  }
  const insert = database.prepare(
    `INSERT INTO audit_log (${AUDIT_COLUMNS.join(', ')}) VALUES (${AUDIT_COLUMNS.map((column) => `@${column}`).join(', ')})`,
  );
  let open = true;
  let written = 0;
  let failed = 0;
  return Object.freeze({
    file,
    observe: (record: CallRecord) => {
      if (!open) {
        failed++;
        return;
      }
      try {
        insert.run(auditRow(toEntry(record, options)));
        written++;
      } catch {
        failed++;
      }
    },
    written: () => written,
    failed: () => failed,
    query: (query: AuditQuery = {}) => selectEntries(database, resolveAuditQuery(query)),
    close: () => {
      if (!open) return;
      open = false;
      database.close();
    },
  });
}

/**
 * The entries a query selects from a SQLite audit log file, read-only (another process may be
 * writing it).
 *
 * @example
 * const denied = querySqliteAuditLog('audit.db', { decision: 'deny', since: '1d' });
 */
export function querySqliteAuditLog(file: string, query: AuditQuery = {}): AuditEntry[] {
  const resolved = resolveAuditQuery(query);
  const Driver = loadDriver();
  let database: Database;
  try {
    database = new Driver(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new AuditSinkError(
      'cannot_open',
      `Cannot open the SQLite audit log "${file}": ${describe(error)}.`,
      {
        cause: error,
      },
    );
  }
  try {
    return selectEntries(database, resolved);
  } catch (error) {
    throw new AuditSinkError(
      'not_an_audit_log',
      `"${file}" is a SQLite database but not an audit log written by toolpact (${describe(error)}).`,
      { cause: error },
    );
  } finally {
    database.close();
  }
}

/** The columns the file's `audit_log` has (none when there is no such table). */
function columnsOf(database: Database): string[] {
  return (database.prepare('PRAGMA table_info(audit_log)').all() as { name: string }[]).map(
    (column) => column.name,
  );
}

// A file written by an older toolpact lacks the newer columns: add them, in one write transaction so
// two processes opening it at once do not both add a column.
function addMissingColumns(database: Database): void {
  if (auditMissingColumns(columnsOf(database)).length === 0) return;
  database.exec('BEGIN IMMEDIATE');
  try {
    for (const statement of auditAddedColumnsSql('sqlite', columnsOf(database))) database.exec(statement);
    database.exec('COMMIT');
  } catch (error) {
    database.exec('ROLLBACK');
    throw error;
  }
}

function selectEntries(database: Database, query: ResolvedAuditQuery): AuditEntry[] {
  const { where, parameters } = auditWhere(query, () => '?');
  // A file an older toolpact wrote, opened read-only, lacks the newer columns: they read as null.
  const missing = auditMissingColumns(columnsOf(database));
  const table = missing.length
    ? `(SELECT *, ${missing.map((column) => `NULL AS ${column}`).join(', ')} FROM audit_log)`
    : 'audit_log';
  const sql = `SELECT ${AUDIT_COLUMNS.join(', ')} FROM ${table}${where} ORDER BY time_ms DESC, id DESC${query.limit ? ` LIMIT ${query.limit}` : ''}`;
  return (database.prepare(sql).all(...parameters) as AuditRow[]).reverse().map(auditEntryFromRow);
}

let driver: DatabaseConstructor | undefined;

// Loaded on first use, so toolpact/policy never needs the native addon unless SQLite is asked for.
function loadDriver(): DatabaseConstructor {
  if (driver) return driver;
  try {
    driver = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;
    return driver;
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND';
    throw new AuditSinkError(
      'missing_dependency',
      missing
        ? 'The SQLite audit log needs the optional package better-sqlite3, which is not installed. Install version 12 (npm install better-sqlite3@12; version 13 needs Node 22), or use the JSON Lines log (openAuditLog).'
        : `The SQLite audit log needs better-sqlite3, which is installed but did not load (${describe(error)}). Rebuild it for this Node version: npm rebuild better-sqlite3.`,
      { cause: error },
    );
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
