import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { AUDIT_COLUMNS, auditTableSql } from '../../src/audit/audit-rows.js';
import { openSqliteAuditLog } from '../../src/policy/index.js';
import { MIGRATIONS } from '../../src/store/index.js';

interface Database {
  prepare(sql: string): { all(): { name: string; type: string; notnull: number }[] };
  close(): void;
}
const Driver = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => Database;

let folder: string | undefined;
afterEach(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

/** The column names a CREATE TABLE audit_log statement declares, in order. */
function declaredColumns(sql: string): string[] {
  const body = /CREATE TABLE (?:IF NOT EXISTS )?audit_log \(([^;]*)\);/.exec(sql)?.[1];
  if (!body) throw new Error(`no audit_log table in:\n${sql}`);
  return body
    .split(',\n')
    .map((line) => line.trim().split(' ')[0]!)
    .filter(Boolean);
}

test('SQLite and PostgreSQL declare audit_log with exactly the columns rows are written with, in order', () => {
  const postgres = MIGRATIONS.map((migration) => migration.sql).join('\n');
  expect(declaredColumns(postgres)).toEqual(['id', ...AUDIT_COLUMNS]);
  expect(declaredColumns(auditTableSql('sqlite'))).toEqual(['id', ...AUDIT_COLUMNS]);
  // Only one place declares the table: the migration holds the generated text, not a copy of its own.
  expect(postgres.match(/CREATE TABLE audit_log/g)).toHaveLength(1);
  expect(postgres).toContain(auditTableSql('postgres'));
});

test('a SQLite audit log file has that table: each column, its type and whether it may be null', async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-audit-table-'));
  const file = join(folder, 'audit.db');
  const log = openSqliteAuditLog(file);
  await log.close();
  const database = new Driver(file);
  const columns = database.prepare('PRAGMA table_info(audit_log)').all();
  database.close();
  expect(columns.map((column) => column.name)).toEqual(['id', ...AUDIT_COLUMNS]);
  expect(columns.find((column) => column.name === 'time_ms')).toMatchObject({ type: 'INTEGER', notnull: 1 });
  expect(columns.find((column) => column.name === 'duration_ms')).toMatchObject({ type: 'REAL', notnull: 1 });
  expect(columns.find((column) => column.name === 'category')).toMatchObject({ type: 'TEXT', notnull: 0 });
});
