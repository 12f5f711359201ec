import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import * as z from 'zod';
import { AUDIT_COLUMNS, auditTableSql } from '../../src/audit/audit-rows.js';
import { defineTool, Registry } from '../../src/index.js';
import { openSqliteAuditLog, queryAuditLog, querySqliteAuditLog } from '../../src/policy/index.js';
import { MIGRATIONS } from '../../src/store/index.js';

interface Database {
  prepare(sql: string): { all(): { name: string; type: string; notnull: number }[] };
  exec(sql: string): void;
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

// The table as the first release made it, written out here as any older file holds it.
const FIRST_RELEASE_TABLE = `CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  v INTEGER NOT NULL, time TEXT NOT NULL, time_ms INTEGER NOT NULL, tool TEXT NOT NULL,
  category TEXT, source TEXT, call_id TEXT, arguments_digest TEXT, arguments TEXT,
  decision_action TEXT, decision_rule TEXT, decision_reason TEXT, decision_approval TEXT,
  outcome TEXT NOT NULL, duration_ms REAL NOT NULL, delegation_depth INTEGER NOT NULL
);
INSERT INTO audit_log (v, time, time_ms, tool, category, call_id, arguments_digest, outcome, duration_ms, delegation_depth)
VALUES (1, '2026-05-01T12:00:00.000Z', 1777636800000, 'search', 'read', 'old-call', 'sha256:00', 'ok', 3, 0);`;

const note = defineTool({
  name: 'note',
  category: 'read',
  description: 'Read a note (an audit test tool).',
  input: z.object({}),
  execute: () => 'a note',
});

test('a SQLite audit log from before the principal opens, gains the column, and its old rows read back with none', async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-audit-table-'));
  const file = join(folder, 'old.db');
  const raw = new Driver(file);
  raw.exec(FIRST_RELEASE_TABLE);
  raw.close();

  // Read-only, as another process reads it: the missing column reads as null, and filters on it.
  expect(querySqliteAuditLog(file)).toEqual([
    expect.objectContaining({ callId: 'old-call', principal: null }),
  ]);
  expect(querySqliteAuditLog(file, { principal: 'local' })).toEqual([]);

  const log = openSqliteAuditLog(file);
  await new Registry({ observe: log.observe }).register(note).call('note', {}, { callId: 'new-call' });
  log.close();
  const database = new Driver(file);
  const columns = database.prepare('PRAGMA table_info(audit_log)').all();
  database.close();
  expect(columns.map((column) => column.name)).toEqual(['id', ...AUDIT_COLUMNS]);
  expect(columns.find((column) => column.name === 'principal')).toMatchObject({ type: 'TEXT', notnull: 0 });

  expect(querySqliteAuditLog(file).map((entry) => [entry.callId, entry.principal])).toEqual([
    ['old-call', null],
    ['new-call', 'local'],
  ]);
  expect(querySqliteAuditLog(file, { principal: 'local' }).map((entry) => entry.callId)).toEqual([
    'new-call',
  ]);
  // Opening it again finds the column there and adds nothing.
  openSqliteAuditLog(file).close();
});

test('a JSON Lines line from before the principal reads back with none', () => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-audit-table-'));
  const file = join(folder, 'old.jsonl');
  const old = {
    v: 1,
    time: '2026-05-01T12:00:00.000Z',
    tool: 'search',
    category: 'read',
    source: null,
    callId: 'old-call',
    argumentsDigest: 'sha256:00',
    decision: null,
    outcome: 'ok',
    durationMs: 3,
    delegationDepth: 0,
  };
  writeFileSync(
    file,
    `${JSON.stringify(old)}\n${JSON.stringify({ ...old, callId: 'new-call', principal: 'auth:alice' })}\n`,
  );
  expect(queryAuditLog(file)).toEqual([
    { ...old, principal: null },
    { ...old, callId: 'new-call', principal: 'auth:alice' },
  ]);
  expect(queryAuditLog(file, { principal: 'auth:alice' }).map((entry) => entry.callId)).toEqual(['new-call']);
});
