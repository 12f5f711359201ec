import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import {
  createPolicyGate,
  definePolicy,
  digestOf,
  openAuditLog,
  readAuditLog,
  redactText,
  redactValue,
} from '../../src/policy/index.js';

// Secrets in the shapes the redactor knows, built at run time so no scanner mistakes this file for a leak.
const SECRETS = [
  `sk-proj-${'A1b2C3d4'.repeat(4)}`,
  `ghp_${'x9Y8z7W6'.repeat(5)}`,
  `AKIA${'QWERTYUIOP123456'}`,
  `xoxb-${'1234567890'}-abcdefghij`,
  `eyJhbGciOiJIUzI1NiJ9.${'eyJzdWIiOiIxMjM0NTY3ODkwIn0'}.${'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'}`,
  'hunter2-correct-horse',
];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-audit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const login = defineTool({
  name: 'login',
  category: 'read',
  description: 'Log in to a service and report whether it worked (an audit test tool).',
  input: z.object({
    user: z.string().describe('The user name.'),
    password: z.string().describe('The password.'),
    note: z.string().describe('Free text that may contain a token.'),
  }),
  execute: async ({ user }) => {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
    return { user, ok: true };
  },
});
const remove = defineTool({
  name: 'remove',
  category: 'write',
  description: 'Remove a file (an audit test tool, never allowed by the policy).',
  input: z.object({ path: z.string().describe('The path.') }),
  execute: () => 'removed',
});

describe('audit log', () => {
  test('1,000 concurrent calls give exactly 1,000 complete lines, none with a secret in clear', async () => {
    const file = join(dir, 'audit.jsonl');
    const audit = openAuditLog(file);
    const gate = createPolicyGate(
      definePolicy({ rules: [{ id: 'no-remove', action: 'deny', tool: 'remove' }] }),
      {
        observe: audit.observe,
      },
    );
    const registry = new Registry({ ...gate.registryOptions }).register(login, remove);
    const calls = Array.from({ length: 1000 }, (_, index) => {
      const secret = SECRETS[index % SECRETS.length]!;
      if (index % 10 === 9)
        return registry.dispatch('remove', { path: `f${index}` }, { callId: `c${index}` });
      if (index % 25 === 0) return registry.dispatch('login', '{"user": 1}', { callId: `c${index}` });
      return registry.dispatch(
        'login',
        { user: `u${index}`, password: secret, note: `token=${secret} and Bearer ${secret}` },
        { callId: `c${index}` },
      );
    });
    await Promise.all(calls);
    audit.close();

    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(1000);
    const { entries, damagedLines } = readAuditLog(file);
    expect(damagedLines).toEqual([]);
    expect(entries).toHaveLength(1000);
    expect(new Set(entries.map((entry) => entry.callId)).size).toBe(1000);
    for (const secret of SECRETS) expect(text).not.toContain(secret);

    const denied = entries.filter((entry) => entry.tool === 'remove');
    expect(denied).toHaveLength(100);
    expect(
      denied.every((entry) => entry.decision?.action === 'deny' && entry.decision.rule === 'no-remove'),
    ).toBe(true);
    expect(denied.every((entry) => entry.outcome === 'permission_denied')).toBe(true);
    const invalid = entries.filter((entry) => entry.outcome === 'invalid_arguments');
    expect(invalid.length).toBe(40);
    expect(invalid.every((entry) => entry.decision === null)).toBe(true);
    const allowed = entries.find((entry) => entry.callId === 'c1')!;
    expect(allowed).toMatchObject({
      v: 1,
      tool: 'login',
      category: 'read',
      source: 'local',
      outcome: 'ok',
      decision: { action: 'allow', rule: 'default:read' },
      arguments: { user: 'u1', password: '[REDACTED]' },
    });
    expect(allowed.argumentsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Number.isNaN(Date.parse(allowed.time))).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test('a line torn by a crash is skipped by the reader, and the next entry starts on its own line', async () => {
    const file = join(dir, 'audit.jsonl');
    const first = openAuditLog(file);
    const registry = new Registry({ observe: first.observe }).register(login);
    await registry.call('login', { user: 'a', password: 'p', note: '' });
    first.close();
    appendFileSync(file, '{"v":1,"time":"2026-12-02T00:00:00.000Z","tool":"lo');

    const second = openAuditLog(file);
    await new Registry({ observe: second.observe })
      .register(login)
      .call('login', { user: 'b', password: 'p', note: '' });
    second.close();
    const { entries, damagedLines } = readAuditLog(file);
    expect(damagedLines).toEqual([2]);
    expect(entries.map((entry) => (entry.arguments as { user: string }).user)).toEqual(['a', 'b']);
  });

  test('a process killed while calling leaves only complete lines', () => {
    const file = join(dir, 'audit.jsonl');
    const script = join(dir, 'writer.mts');
    const policyIndex = new URL('../../src/policy/index.ts', import.meta.url).href;
    const registryModule = new URL('../../src/registry/registry.ts', import.meta.url).href;
    appendFileSync(
      script,
      [
        `import { openAuditLog } from ${JSON.stringify(policyIndex)};`,
        `import { Registry } from ${JSON.stringify(registryModule)};`,
        `const audit = openAuditLog(${JSON.stringify(file)});`,
        'let n = 0;',
        'for (;;) {',
        '  audit.observe({ tool: "t", category: "read", callId: String(n), arguments: { big: "x".repeat(5000), n },',
        '    decision: undefined, outcome: "ok", startedAt: Date.now(), durationMs: 0, state: undefined });',
        '  if (++n === 300) process.kill(process.pid, "SIGKILL");',
        '}',
        'void Registry;',
      ].join('\n'),
    );
    const root = new URL('../..', import.meta.url).pathname;
    const result = spawnSync(process.execPath, ['--import', 'tsx', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.signal).toBe('SIGKILL');
    const { entries, damagedLines } = readAuditLog(file);
    expect(damagedLines).toEqual([]);
    expect(entries).toHaveLength(300);
  });
});

describe('redaction', () => {
  test('values under secret-looking keys are redacted at any depth', () => {
    expect(
      redactValue({
        user: 'ada',
        password: 'x',
        nested: { api_key: 'y', Authorization: 'z', list: [{ token: 1 }] },
      }),
    ).toEqual({
      user: 'ada',
      password: '[REDACTED]',
      nested: { api_key: '[REDACTED]', Authorization: '[REDACTED]', list: [{ token: '[REDACTED]' }] },
    });
  });

  test('a count of tokens is not a secret: maxTokens and the like are kept, their neighbours still redacted', () => {
    expect(
      redactValue({
        maxTokens: 100,
        num_tokens: 7,
        tokenCount: 3,
        accessToken: 'a',
        tokens: 'b',
        max_token: 'c',
      }),
    ).toEqual({
      maxTokens: 100,
      num_tokens: 7,
      tokenCount: 3,
      accessToken: '[REDACTED]',
      tokens: '[REDACTED]',
      max_token: '[REDACTED]',
    });
  });

  test.each(SECRETS.slice(0, 5))('the token shape %s is redacted inside text', (secret) => {
    expect(redactText(`use ${secret} now`)).toBe('use [REDACTED] now');
  });

  test('labelled values and URL passwords are redacted, the label kept', () => {
    expect(redactText('PASSWORD=abc123 curl https://ada:s3cret@example.com/x')).toBe(
      'PASSWORD=[REDACTED] curl https://ada:[REDACTED]@example.com/x',
    );
    expect(redactText('plain words stay')).toBe('plain words stay');
  });

  test('the digest does not depend on key order and an HMAC key changes it', () => {
    expect(digestOf({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(digestOf({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(digestOf({ a: 1 }, 'key')).toMatch(/^hmac-sha256:/);
    expect(digestOf({ a: 1 }, 'key')).not.toBe(digestOf({ a: 1 }, 'other'));
  });
});
