import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { type CallRecord, defineTool, Registry } from '../../src/index.js';
import {
  type AuditEntry,
  type AuditSink,
  combineAuditSinks,
  createPolicyGate,
  definePolicy,
  openAuditLog,
  openSqliteAuditLog,
  queryAuditLog,
} from '../../src/policy/index.js';
import { runCli } from '../support/cli.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Calls the writer process reports as committed before it is killed, and how long it is given for them. */
const WRITES_BEFORE_KILL = 1500;
const WRITER_WAIT_MS = 45_000;
const SECRET = `ghp_${'k3Y9mQ2x'.repeat(5)}`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-sqlite-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fetchPage = defineTool({
  name: 'fetch_page',
  category: 'read',
  description: 'Fetch a page with a token (a SQLite audit test tool).',
  input: z.object({ url: z.string().describe('The URL.'), token: z.string().describe('The API token.') }),
  execute: async ({ url }) => {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 4));
    return url;
  },
});
const writeFile = defineTool({
  name: 'write_file',
  category: 'write',
  description: 'Write a file (a SQLite audit test tool).',
  input: z.object({ path: z.string().describe('The path.') }),
  execute: () => 'written',
});

/** better-sqlite3 itself, to look at or make a file as any SQLite client would. */
function rawDatabase(file: string, options: { readonly?: boolean } = { readonly: true }) {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (
    file: string,
    options?: { readonly?: boolean },
  ) => {
    pragma: (source: string, options?: { simple: boolean }) => unknown;
    prepare: (source: string) => { get: () => Record<string, unknown>; all: () => Record<string, unknown>[] };
    exec: (source: string) => void;
    close: () => void;
  };
  return new Database(file, options);
}

describe('the SQLite audit sink', () => {
  test('1,000 concurrent calls give 1,000 rows in WAL mode, with the decision columns and no secret in the file', async () => {
    const file = join(dir, 'audit.db');
    const audit = openSqliteAuditLog(file);
    const gate = createPolicyGate(
      definePolicy({ rules: [{ id: 'no-writes', action: 'deny', tool: 'write_file' }] }),
      { observe: audit.observe },
    );
    const registry = new Registry({ ...gate.registryOptions }).register(fetchPage, writeFile);
    await Promise.all(
      Array.from({ length: 1000 }, (_, index) =>
        index % 4 === 3
          ? registry.dispatch('write_file', { path: `f${index}` }, { callId: `c${index}` })
          : registry.dispatch(
              'fetch_page',
              { url: `https://example.test/${index}`, token: SECRET },
              { callId: `c${index}` },
            ),
      ),
    );
    expect(audit.written()).toBe(1000);
    expect(audit.failed()).toBe(0);
    audit.close();

    const database = rawDatabase(file);
    try {
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(
        database.prepare('SELECT count(*) AS n, count(DISTINCT call_id) AS ids FROM audit_log').get(),
      ).toEqual({
        n: 1000,
        ids: 1000,
      });
      expect(
        database
          .prepare(
            'SELECT decision_action AS action, decision_rule AS rule, outcome, count(*) AS n FROM audit_log GROUP BY 1, 2, 3 ORDER BY 4',
          )
          .all(),
      ).toEqual([
        { action: 'deny', rule: 'no-writes', outcome: 'permission_denied', n: 250 },
        { action: 'allow', rule: 'default:read', outcome: 'ok', n: 750 },
      ]);
    } finally {
      database.close();
    }
    const bytes = Buffer.concat([
      readFileSync(file),
      ...['-wal'].flatMap((suffix) => safeRead(file + suffix)),
    ]);
    expect(bytes.includes(SECRET)).toBe(false);
    expect(bytes.includes('[REDACTED]')).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const [entry] = queryAuditLog(file, { tool: 'fetch_page', limit: 1 });
    expect(entry).toMatchObject({
      v: 1,
      tool: 'fetch_page',
      arguments: { token: '[REDACTED]' },
      source: 'local',
    });
  });

  test('a process killed with SIGKILL mid-write loses nothing it committed', async () => {
    const file = join(dir, 'audit.db');
    const child = join(dir, 'writer.mts');
    // The writer reports each call's id on stdout only after the call returned, i.e. after its row committed.
    writeFileSync(
      child,
      [
        `import { defineTool, Registry } from ${JSON.stringify(join(ROOT, 'src', 'index.ts'))};`,
        `import { openSqliteAuditLog } from ${JSON.stringify(join(ROOT, 'src', 'policy', 'index.ts'))};`,
        `const audit = openSqliteAuditLog(${JSON.stringify(file)});`,
        "const tool = defineTool({ name: 'tick', category: 'read', description: 'Counts.', input: { type: 'object', properties: { n: { type: 'integer' } } }, execute: (args) => args.n });",
        'const registry = new Registry({ observe: audit.observe }).register(tool);',
        'for (let n = 0; ; n++) {',
        "  await registry.dispatch('tick', { n }, { callId: 'c' + n });",
        "  process.stdout.write(n + '\\n');",
        '}',
      ].join('\n'),
    );
    const process_ = spawn(process.execPath, ['--import', 'tsx', child], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let reported = -1;
    let errors = '';
    process_.stderr.on('data', (chunk) => {
      errors += String(chunk);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let buffer = '';
        process_.stdout.on('data', (chunk) => {
          buffer += String(chunk);
          const lines = buffer.split('\n');
          buffer = lines.pop()!;
          for (const line of lines) reported = Number(line);
          // Killed while it is writing as fast as it can: some insert is almost surely under way.
          if (reported >= WRITES_BEFORE_KILL && !process_.killed) process_.kill('SIGKILL');
        });
        process_.on('exit', (code, signal) =>
          signal === 'SIGKILL'
            ? resolve()
            : reject(
                new Error(`the writer ended by itself (${signal ?? `code ${code}`}); its stderr:\n${errors}`),
              ),
        );
        // A writer that has not got there fails the test with how far it got, before the test's timeout.
        setTimeout(
          () =>
            reject(
              new Error(
                `the writer reported ${reported + 1} calls in ${WRITER_WAIT_MS} ms; its stderr:\n${errors}`,
              ),
            ),
          WRITER_WAIT_MS,
        ).unref();
      });
    } finally {
      // Whatever happened, the writer does not outlive the test (nor write on into a removed folder).
      if (process_.exitCode === null && process_.signalCode === null) process_.kill('SIGKILL');
    }
    expect(reported).toBeGreaterThanOrEqual(WRITES_BEFORE_KILL);

    const database = rawDatabase(file);
    try {
      expect(database.pragma('integrity_check', { simple: true })).toBe('ok');
      const { n, max } = database
        .prepare('SELECT count(*) AS n, max(CAST(substr(call_id, 2) AS INTEGER)) AS max FROM audit_log')
        .get() as {
        n: number;
        max: number;
      };
      // Every reported call is there, in order, with none missing; at most the one in flight beyond.
      expect(max).toBeGreaterThanOrEqual(reported);
      expect(n).toBe(max + 1);
    } finally {
      database.close();
    }
    // The database opens and takes writes again after the kill.
    const reopened = openSqliteAuditLog(file);
    reopened.observe(record({ tool: 'tick', callId: 'after', startedAt: Date.now() + 1_000 }));
    expect(reopened.written()).toBe(1);
    expect(reopened.query({ limit: 1 })[0]?.callId).toBe('after');
    reopened.close();
  }, 60_000);
});

const NOW = Date.now();
const HOUR = 3_600_000;

function record(overrides: Partial<CallRecord>): CallRecord {
  return {
    tool: 'read_file',
    category: 'read',
    callId: undefined,
    arguments: { path: 'a.md' },
    decision: { action: 'allow', rule: 'default:read', reason: 'reads are allowed' },
    outcome: 'ok',
    startedAt: NOW,
    durationMs: 1.5,
    state: undefined,
    ...overrides,
  };
}

/** The same calls, an hour or more apart, for every query test. */
function history(): CallRecord[] {
  return [
    record({
      callId: 'old-write',
      tool: 'write_file',
      category: 'write',
      startedAt: NOW - 30 * HOUR,
      decision: { action: 'deny', rule: 'no-writes', reason: 'no writes' },
      outcome: 'permission_denied',
    }),
    record({ callId: 'old-read', startedAt: NOW - 26 * HOUR }),
    record({
      callId: 'bad-args',
      startedAt: NOW - 5 * HOUR,
      decision: undefined,
      outcome: 'invalid_arguments',
      arguments: undefined,
    }),
    record({
      callId: 'asked-write',
      tool: 'write_file',
      category: 'write',
      startedAt: NOW - 2 * HOUR,
      decision: { action: 'ask', rule: 'default:write', reason: 'writes ask' },
      outcome: 'permission_denied',
    }),
    record({
      callId: 'new-write',
      tool: 'write_file',
      category: 'write',
      startedAt: NOW - 20 * 60_000,
      decision: { action: 'allow', rule: 'docs', reason: 'docs are writable' },
    }),
    record({ callId: 'new-read', startedAt: NOW - 5 * 60_000 }),
    record({
      callId: 'newest-search',
      tool: 'grep',
      category: 'search',
      startedAt: NOW - 60_000,
      outcome: 'timeout',
    }),
  ];
}

function bothLogs(): { jsonl: string; sqlite: string } {
  const jsonl = join(dir, 'audit.jsonl');
  const sqlite = join(dir, 'audit.db');
  const sinks = combineAuditSinks(openAuditLog(jsonl), openSqliteAuditLog(sqlite));
  for (const each of history()) sinks.observe(each);
  expect(sinks.written()).toBe(7);
  sinks.close();
  return { jsonl, sqlite };
}

describe('the query helper', () => {
  const ids = (entries: AuditEntry[]) => entries.map((entry) => entry.callId);

  test.each([
    [{}, ['old-write', 'old-read', 'bad-args', 'asked-write', 'new-write', 'new-read', 'newest-search']],
    [{ tool: 'write_file' }, ['old-write', 'asked-write', 'new-write']],
    [{ tool: ['write_file', 'grep'], since: '3h' }, ['asked-write', 'new-write', 'newest-search']],
    [{ tool: 'write_file', since: '1h' }, ['new-write']],
    [{ since: '1d' }, ['bad-args', 'asked-write', 'new-write', 'new-read', 'newest-search']],
    [{ since: '2d', until: '1d' }, ['old-write', 'old-read']],
    [{ since: new Date(NOW - 3 * HOUR), until: NOW - 10 * 60_000 }, ['asked-write', 'new-write']],
    [
      { since: new Date(NOW - 6 * HOUR).toISOString() },
      ['bad-args', 'asked-write', 'new-write', 'new-read', 'newest-search'],
    ],
    [{ outcome: 'permission_denied' }, ['old-write', 'asked-write']],
    [{ decision: 'deny' }, ['old-write']],
    [{ decision: 'ask' }, ['asked-write']],
    [{ decision: 'none' }, ['bad-args']],
    [{ tool: 'read_file', decision: 'allow', outcome: 'ok' }, ['old-read', 'new-read']],
    [{ limit: 2 }, ['new-read', 'newest-search']],
    [{ tool: 'write_file', limit: 2 }, ['asked-write', 'new-write']],
    [{ tool: 'nothing' }, []],
  ] as const)('%j selects the same calls from SQLite and from JSON Lines', (query, expected) => {
    const { jsonl, sqlite } = bothLogs();
    expect(ids(queryAuditLog(sqlite, query))).toEqual(expected);
    expect(ids(queryAuditLog(jsonl, query))).toEqual(expected);
    // Every field comes back from SQLite as it was written to JSON Lines.
    expect(queryAuditLog(sqlite, query)).toEqual(queryAuditLog(jsonl, query));
  });

  test.each([
    [{ since: 'yesterday' }, /since takes a duration back from now .* received "yesterday"/],
    [{ until: '5' }, /until takes a duration .* received "5"/],
    [{ decision: 'maybe' }, /decision must be one of allow, deny, ask, none, received "maybe"/],
    [{ limit: 0 }, /limit must be a positive whole number, received 0/],
  ])('%j is refused with what came and what is accepted', (query, message) => {
    const { sqlite } = bothLogs();
    expect(() => queryAuditLog(sqlite, query as never)).toThrow(message);
  });
});

describe('toolpact audit query', () => {
  test('--tool write_file --since 1h prints the matching calls as a table', async () => {
    bothLogs();
    for (const file of ['audit.db', 'audit.jsonl']) {
      const { code, stdout, stderr } = await runCli(
        ['audit', 'query', file, '--tool', 'write_file', '--since', '3h'],
        { cwd: dir },
      );
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const lines = stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^time\s+tool\s+decision\s+rule\s+outcome\s+ms\s+call id$/);
      expect(lines.slice(2, -1).map((line) => line.split(/\s+/).slice(1, 5))).toEqual([
        ['write_file', 'ask', 'default:write', 'permission_denied'],
        ['write_file', 'allow', 'docs', 'ok'],
      ]);
      expect(lines.at(-1)).toBe('2 calls');
    }
  });

  test('--format json gives every field, --decision and --limit narrow', async () => {
    bothLogs();
    const { code, stdout } = await runCli(
      ['audit', 'query', 'audit.db', '--decision', 'none', '--format', 'json'],
      { cwd: dir },
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([
      expect.objectContaining({ callId: 'bad-args', decision: null, outcome: 'invalid_arguments' }),
    ]);
    const latest = await runCli(['audit', 'query', 'audit.db', '--limit', '1', '--format', 'json'], {
      cwd: dir,
    });
    expect(JSON.parse(latest.stdout).map((entry: AuditEntry) => entry.callId)).toEqual(['newest-search']);
    const none = await runCli(['audit', 'query', 'audit.db', '--tool', 'nothing'], { cwd: dir });
    expect(none).toMatchObject({ code: 0, stdout: 'No calls match.\n' });
  });

  test.each([
    [['audit'], 'Give a subcommand: query.'],
    [['audit', 'list', 'audit.db'], 'Unknown subcommand "list"'],
    [['audit', 'query'], 'Give the audit log file to query.'],
    [['audit', 'query', 'audit.db', '--since', 'soon'], 'since takes a duration back from now'],
    [
      ['audit', 'query', 'audit.db', '--decision', 'maybe'],
      '--decision takes one of allow, deny, ask, none, received "maybe"',
    ],
    [['audit', 'query', 'audit.db', '--limit', '-3'], '--limit needs a positive whole number'],
    [['audit', 'query', 'audit.db', '--format', 'csv'], '--format takes table or json, received "csv"'],
    [['audit', 'query', 'missing.db'], 'Cannot read the audit log "missing.db": ENOENT'],
    [
      ['audit', 'query', 'other.db'],
      '"other.db" is a SQLite database but not an audit log written by toolpact',
    ],
  ])('%j is a usage error: exit 2 with what to do', async (argv, message) => {
    bothLogs();
    const other = rawDatabase(join(dir, 'other.db'), {});
    other.exec('CREATE TABLE notes (text TEXT)');
    other.close();
    const { code, stderr, stdout } = await runCli(argv, { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).not.toContain(dir);
    expect(stdout).toBe('');
  });

  test('toolpact call --audit audit.db records the call in SQLite', async () => {
    const module = join(dir, 'tools.mjs');
    writeFileSync(
      module,
      `import { defineTool } from ${JSON.stringify(join(ROOT, 'src', 'index.ts'))};\nexport const echo = defineTool({ name: 'echo', category: 'read', description: 'Echo the text back.', input: { type: 'object', properties: { text: { type: 'string', description: 'The text.' } }, required: ['text'] }, execute: ({ text }) => text });\n`,
    );
    const { code } = await runCli(['call', 'tools.mjs', 'echo', '{"text":"hi"}', '--audit', 'audit.db'], {
      cwd: dir,
    });
    expect(code).toBe(0);
    expect(queryAuditLog(join(dir, 'audit.db'))).toEqual([
      expect.objectContaining({
        tool: 'echo',
        outcome: 'ok',
        decision: expect.objectContaining({ action: 'allow' }),
      }),
    ]);
  });
});

describe('combineAuditSinks', () => {
  test('a sink that throws keeps neither the call nor the other sinks from their record', async () => {
    const kept: string[] = [];
    const broken: AuditSink = {
      observe: () => {
        throw new Error('disk full');
      },
      written: () => 0,
      failed: () => 1,
      close: () => {},
    };
    const listening: AuditSink = {
      observe: (each) => kept.push(each.tool),
      written: () => kept.length,
      failed: () => 0,
      close: () => {},
    };
    const sinks = combineAuditSinks(broken, listening);
    const registry = new Registry({ observe: sinks.observe }).register(writeFile);
    expect(await registry.call('write_file', { path: 'a' })).toEqual({ ok: true, result: 'written' });
    expect(kept).toEqual(['write_file']);
    expect(sinks.failed()).toBe(1);
  });

  test('a closed SQLite sink counts what it could not keep', () => {
    const audit = openSqliteAuditLog(join(dir, 'audit.db'));
    audit.close();
    audit.observe(record({}));
    expect([audit.written(), audit.failed()]).toEqual([0, 1]);
  });

  test('a file that is not a SQLite database is refused when opened, saying what to give instead', () => {
    const file = join(dir, 'notes.db');
    writeFileSync(file, 'just some notes\n'.repeat(20));
    chmodSync(file, 0o600);
    expect(() => openSqliteAuditLog(file)).toThrow(
      /Cannot open the SQLite audit log .*notes\.db.*Give a new file/,
    );
  });
});

function safeRead(file: string): Buffer[] {
  try {
    return [readFileSync(file)];
  } catch {
    return [];
  }
}
