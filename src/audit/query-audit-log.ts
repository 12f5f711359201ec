import { closeSync, openSync, readSync } from 'node:fs';
import type { AuditEntry } from './audit-log.js';
import { type AuditQuery, auditEntryMatches, resolveAuditQuery } from './audit-query.js';
import { AuditSinkError } from './audit-sink.js';
import { readAuditLog } from './read-audit-log.js';
import { querySqliteAuditLog } from './sqlite-audit-log.js';

const SQLITE_HEADER = 'SQLite format 3\u0000';

/**
 * The entries a query selects from an audit log file, oldest first, whichever sink wrote it: a
 * SQLite database (known by its header) is queried in SQL, a JSON Lines log is read and filtered
 * (its torn lines skipped). What `toolpact audit query` prints.
 *
 * @example
 * const writes = queryAuditLog('audit.db', { tool: 'write_file', since: '1h' });
 */
export function queryAuditLog(file: string, query: AuditQuery = {}): AuditEntry[] {
  const resolved = resolveAuditQuery(query);
  if (isSqlite(file)) return querySqliteAuditLog(file, query);
  const selected = readAuditLog(file).entries.filter((entry) => auditEntryMatches(entry, resolved));
  return resolved.limit === undefined ? selected : selected.slice(-resolved.limit);
}

function isSqlite(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw new AuditSinkError(
      'cannot_open',
      `Cannot read the audit log "${file}": ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
      { cause: error },
    );
  }
  try {
    const header = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, header, 0, header.length, 0);
    return read === header.length && header.toString('latin1') === SQLITE_HEADER;
  } finally {
    closeSync(fd);
  }
}
