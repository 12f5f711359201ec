// One contract for every audit sink: JSON Lines, SQLite and PostgreSQL (when a private cluster can be
// started) are run through the same calls and must read back the same entries. Each backend keeps its
// own tests for what only it does (torn lines, WAL and SIGKILL, a store that goes away).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import {
  type AuditEntry,
  type AuditQuery,
  type AuditSink,
  createPolicyGate,
  definePolicy,
  openAuditLog,
  openSqliteAuditLog,
  queryAuditLog,
} from '../../src/policy/index.js';
import { openPostgresStore } from '../../src/store/index.js';
import { runCli } from '../support/cli.js';
import { connectAs as connectOverMcp } from '../support/mcp-caller.js';
import { hasPostgres, type PostgresServer, startPostgres } from '../support/postgres.js';

// Built at run time so no scanner mistakes this file for a leak.
const TOKEN = `sk-proj-${'Q7w8E9r0'.repeat(4)}`;
const PASSWORD = 'correct-horse-battery-staple';

/** What a backend gives the suite: a sink to observe with, its queries, and where its bytes are. */
interface OpenedSink {
  readonly sink: AuditSink;
  query(query?: AuditQuery): Promise<AuditEntry[]>;
  /** Every byte the backend keeps, to look for secrets in; undefined where it is not a file. */
  stored(): string | undefined;
  /** What `toolpact audit query` is given to read this backend: the file, or `--store <url>`. */
  readonly cli: readonly string[];
  close(): Promise<void>;
}

interface Backend {
  readonly name: string;
  open(): Promise<OpenedSink>;
}

const tools = () => [
  defineTool({
    name: 'login',
    category: 'read',
    description: 'Log in to a service and report whether it worked (an audit test tool).',
    input: z.object({
      user: z.string().describe('The user name.'),
      password: z.string().describe('The password.'),
      note: z.string().describe('Free text that may carry a token.'),
    }),
    execute: ({ user }) => ({ user, ok: true }),
  }),
  defineTool({
    name: 'remove',
    category: 'write',
    description: 'Remove a file (an audit test tool the policy never allows).',
    input: z.object({ path: z.string().describe('The path.') }),
    execute: () => 'removed',
  }),
];

const policy = definePolicy({
  rules: [
    { id: 'reads', action: 'allow', category: 'read' },
    { id: 'no-removal', action: 'deny', tool: 'remove', reason: 'nothing is removed here' },
  ],
});

/** 200 logins at once and 3 removals, through a gated registry observed by `sink`. */
async function drive(sink: AuditSink): Promise<void> {
  const gate = createPolicyGate(policy, { observe: sink.observe });
  const registry = new Registry({ ...gate.registryOptions }).register(tools());
  const logins = Array.from({ length: 200 }, (_, index) =>
    registry.call(
      'login',
      { user: `user${index}`, password: PASSWORD, note: `token ${TOKEN} for ${index}` },
      { callId: `login-${index}` },
    ),
  );
  const removals = Array.from({ length: 3 }, (_, index) =>
    registry.call('remove', { path: `/srv/${index}` }, { callId: `remove-${index}` }),
  );
  await Promise.all([...logins, ...removals]);
  await registry.close();
}

/**
 * Logins from three callers: one in this process; two over MCP from a client the transport
 * authenticated as alice (reporting itself as "admin"); one over MCP that nothing authenticated,
 * reporting itself as "auth:alice".
 */
async function driveCallers(sink: AuditSink): Promise<void> {
  const gate = createPolicyGate(policy, { observe: sink.observe });
  const registry = new Registry({ ...gate.registryOptions }).register(tools());
  const login = (user: string) => ({ user, password: PASSWORD, note: 'none' });
  await registry.call('login', login('in-process'));
  const alice = await connectOverMcp(registry, 'admin', 'alice');
  const anonymous = await connectOverMcp(registry, 'auth:alice');
  for (const user of ['mcp-alice-0', 'mcp-alice-1']) {
    await alice.callTool({ name: 'login', arguments: login(user) });
  }
  await anonymous.callTool({ name: 'login', arguments: login('mcp-anonymous') });
  const dana = await connectOverMcp(registry, 'console', {
    subject: 'dana',
    issuer: 'https://id.test',
    clientId: 'ops-console',
    groups: ['leads'],
  });
  await dana.callTool({ name: 'login', arguments: login('mcp-dana') });
  await alice.close();
  await anonymous.close();
  await dana.close();
  await registry.close();
}

const userOf = (entry: AuditEntry) => (entry.arguments as { user?: string } | undefined)?.user;

function conformance(backend: Backend): void {
  let opened: OpenedSink;
  beforeAll(async () => {
    opened = await backend.open();
    await drive(opened.sink);
  }, 60_000);
  afterAll(async () => {
    await opened?.close();
  });

  test('every call is one complete entry, with its decision and rule', async () => {
    const entries = await opened.query();
    expect(entries).toHaveLength(203);
    expect(new Set(entries.map((entry) => entry.callId)).size).toBe(203);
    const login = entries.find((entry) => entry.callId === 'login-7');
    expect(login).toMatchObject({
      tool: 'login',
      outcome: 'ok',
      decision: { action: 'allow', rule: 'reads' },
    });
    const removal = entries.find((entry) => entry.callId === 'remove-1');
    expect(removal).toMatchObject({
      tool: 'remove',
      outcome: 'permission_denied',
      decision: { action: 'deny', rule: 'no-removal' },
    });
    expect(opened.sink.written()).toBe(203);
    expect(opened.sink.failed()).toBe(0);
  });

  test('no secret is kept in clear, in the entries or in what the backend stores', async () => {
    const entries = await opened.query();
    const text = JSON.stringify(entries);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(PASSWORD);
    const login = entries.find((entry) => entry.callId === 'login-3');
    expect(JSON.stringify(login)).toContain('user3');
    const stored = opened.stored();
    if (stored !== undefined) {
      expect(stored).not.toContain(TOKEN);
      expect(stored).not.toContain(PASSWORD);
    }
  });

  test('queries select by decision, tool, outcome and limit alike', async () => {
    const denied = await opened.query({ decision: 'deny' });
    expect(denied.map((entry) => entry.callId).sort()).toEqual(['remove-0', 'remove-1', 'remove-2']);
    expect(await opened.query({ tool: 'remove' })).toHaveLength(3);
    expect(await opened.query({ outcome: 'ok' })).toHaveLength(200);
    expect(await opened.query({ decision: 'ask' })).toEqual([]);
    const latest = await opened.query({ limit: 5 });
    expect(latest).toHaveLength(5);
    const all = await opened.query();
    expect(latest.map((entry) => entry.callId)).toEqual(all.slice(-5).map((entry) => entry.callId));
    expect(await opened.query({ since: new Date(Date.now() + 60_000) })).toEqual([]);
  });

  test('each entry records its principal, as the transport established it, and queries select by it', async () => {
    // The calls made in this process are the local process.
    const inProcess = await opened.query({ tool: 'login', limit: 3 });
    expect(inProcess.map((entry) => entry.principal)).toEqual(['local', 'local', 'local']);

    const callers = await backend.open();
    try {
      await driveCallers(callers.sink);
      const byAlice = await callers.query({ principal: 'auth:alice' });
      expect(byAlice.map(userOf).sort()).toEqual(['mcp-alice-0', 'mcp-alice-1']);
      expect(byAlice.every((entry) => entry.principal === 'auth:alice')).toBe(true);
      // A client reporting itself as "auth:alice" without the transport saying so is the local process.
      const local = await callers.query({ principal: 'local', tool: 'login' });
      expect(local.every((entry) => entry.principal === 'local')).toBe(true);
      expect(local.map(userOf)).toEqual(expect.arrayContaining(['in-process', 'mcp-anonymous']));
      expect(local.map(userOf)).not.toContain('mcp-alice-0');
      expect(await callers.query({ principal: 'auth:admin' })).toEqual([]);

      // The subject, the client and the issuer are kept, and a subject selects its calls.
      const byDana = await callers.query({ principal: 'dana' });
      expect(byDana).toEqual([
        expect.objectContaining({
          principal: 'auth:dana@https://id.test',
          subject: 'dana',
          clientId: 'ops-console',
          issuer: 'https://id.test',
        }),
      ]);
      expect(byDana.map(userOf)).toEqual(['mcp-dana']);
      expect(await callers.query({ principal: 'auth:dana@https://id.test' })).toHaveLength(1);
      expect(byAlice[0]).toMatchObject({ subject: 'alice', clientId: 'alice' });
      expect(byAlice[0]?.issuer).toBeUndefined();
      expect(local.every((entry) => entry.subject === undefined && entry.clientId === undefined)).toBe(true);

      const cli = await runCli(
        ['audit', 'query', ...callers.cli, '--principal', 'auth:alice', '--format', 'json'],
        {},
      );
      expect(cli.stderr).toBe('');
      expect(cli.code).toBe(0);
      const printed = JSON.parse(cli.stdout) as AuditEntry[];
      expect(printed.map(userOf).sort()).toEqual(['mcp-alice-0', 'mcp-alice-1']);
      expect(printed.map((entry) => entry.principal)).toEqual(['auth:alice', 'auth:alice']);

      // A bare subject selects that subject's calls, from any issuer.
      const bySubject = await runCli(
        ['audit', 'query', ...callers.cli, '--principal', 'alice', '--format', 'json'],
        {},
      );
      expect(bySubject.stderr).toBe('');
      expect((JSON.parse(bySubject.stdout) as AuditEntry[]).map(userOf).sort()).toEqual([
        'mcp-alice-0',
        'mcp-alice-1',
      ]);
      const empty = await runCli(['audit', 'query', ...callers.cli, '--principal', 'auth:'], {});
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('received "auth:"');
      expect(empty.stderr).toContain('a subject (alice)');
    } finally {
      await callers.close();
    }
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolpact-audit-conformance-'));
  dirs.push(dir);
  return dir;
}

function fileBackend(name: string, fileName: string, open: (file: string) => AuditSink): Backend {
  return {
    name,
    open: async () => {
      const file = join(folder(), fileName);
      const sink = open(file);
      let closed = false;
      const close = () => {
        if (!closed) sink.close();
        closed = true;
      };
      return {
        sink,
        query: async (query) => {
          close();
          return queryAuditLog(file, query);
        },
        stored: () => readFileSync(file, 'latin1'),
        cli: [file],
        close: async () => close(),
      };
    },
  };
}

describe.each([
  fileBackend('JSON Lines', 'audit.jsonl', (file) => openAuditLog(file)),
  fileBackend('SQLite', 'audit.db', (file) => openSqliteAuditLog(file)),
])('the audit sink contract: $name', conformance);

describe.runIf(hasPostgres)('the audit sink contract: PostgreSQL', () => {
  let postgres: PostgresServer;
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await postgres?.stop();
  });
  conformance({
    name: 'PostgreSQL',
    open: async () => {
      const store = await openPostgresStore(postgres.url, { connectTimeoutMs: 5_000 });
      return {
        sink: store.audit,
        query: (query) => store.queryAudit(query),
        stored: () => undefined,
        cli: ['--store', postgres.url],
        close: () => store.close(),
      };
    },
  });
});
