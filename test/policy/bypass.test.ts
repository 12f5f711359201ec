import { describe, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import { createPolicyGate, definePolicy, pathReadings } from '../../src/policy/index.js';
import { dispatchProviderCalls, providerToolName } from '../../src/schema/index.js';
import { echoTool } from './support.js';

const denyDelete = definePolicy({
  rules: [
    { id: 'no-delete', action: 'deny', tool: 'delete_file' },
    { id: 'reads', action: 'allow', category: 'write' },
  ],
});

describe('denied names cannot be reached by another spelling', () => {
  test.each(['Delete_File', 'DELETE_FILE', 'delete-file', 'delete.file', 'de1ete_fi1e', 'deIete_fiIe'])(
    'a tool registered as %s is denied',
    async (name) => {
      const calls: string[] = [];
      const registry = new Registry({ ...createPolicyGate(denyDelete).registryOptions }).register(
        echoTool(name, 'write', calls),
      );
      expect(await registry.call(name, {})).toMatchObject({ ok: false, error: { rule: 'no-delete' } });
      expect(calls).toEqual([]);
    },
  );

  test('a rule written with look-alike letters still denies the Latin name', async () => {
    // Cyrillic е (U+0435) and full-width ｄ (U+FF44) in the rule.
    const policy = definePolicy({ rules: [{ id: 'no-delete', action: 'deny', tool: 'ｄ\u0435lete_file' }] });
    const calls: string[] = [];
    const registry = new Registry({ ...createPolicyGate(policy).registryOptions }).register(
      echoTool('delete_file', 'read', calls),
    );
    expect(await registry.call('delete_file', {})).toMatchObject({ ok: false, error: { rule: 'no-delete' } });
    expect(calls).toEqual([]);
  });

  test.each(['d\u0435lete_file', 'ｄｅｌｅｔｅ_ｆｉｌｅ', 'delete_file ', 'DELETE_FILE'])(
    'a model calling %j reaches no tool at all',
    async (name) => {
      const calls: string[] = [];
      const registry = new Registry({ ...createPolicyGate(denyDelete).registryOptions }).register(
        echoTool('delete_file', 'write', calls),
      );
      expect(await registry.call(name, {})).toMatchObject({ ok: false, error: { type: 'unknown_tool' } });
      expect(calls).toEqual([]);
    },
  );

  test('an allow rule is read exactly: a case variant of an allowed name is not allowed', async () => {
    const policy = definePolicy({ rules: [{ id: 'ok', action: 'allow', tool: 'write_file' }] });
    const registry = new Registry({ ...createPolicyGate(policy).registryOptions }).register(
      echoTool('Write_File', 'write'),
    );
    expect(await registry.call('Write_File', {})).toMatchObject({
      ok: false,
      error: { rule: 'default:write' },
    });
  });
});

describe('path predicates hold however the path is spelled', () => {
  const policy = definePolicy({
    rules: [
      { id: 'docs-writable', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } },
      { id: 'no-secrets', action: 'deny', tool: 'write_file', arguments: { path: { under: 'secrets' } } },
    ],
  });
  const call = async (path: string) => {
    const calls: string[] = [];
    const registry = new Registry({ ...createPolicyGate(policy).registryOptions }).register(
      echoTool('write_file', 'write', calls),
    );
    const envelope = await registry.call('write_file', { path });
    return { envelope, ran: calls.length > 0 };
  };

  test('a plain path under docs is allowed', async () => {
    expect(await call('docs/guide.md')).toMatchObject({ ran: true });
    expect(await call('./docs/a/b.md')).toMatchObject({ ran: true });
  });

  test.each([
    'docs/../src/index.ts',
    'docs/../../etc/passwd',
    'docs%2F..%2F..%2Fetc%2Fpasswd',
    'docs%252F..%252Fsrc',
    'docs\\..\\src\\a.ts',
    'docs／..／src',
    'docs/．．/src',
    'docs\u2215..\u2215src',
    '/docs/a.md',
    'docs-old/a.md',
    'docs\u0000/../src',
  ])('%j does not get the docs allowance', async (path) => {
    const { envelope, ran } = await call(path);
    expect(ran).toBe(false);
    expect(envelope).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
  });

  test.each([
    'secrets/key',
    'docs/../secrets/key',
    'SECRETS/key',
    'docs%2F..%2Fsecrets%2Fkey',
    'x/..\\secrets/k',
  ])('%j is caught by the deny rule on secrets', async (path) => {
    const { envelope } = await call(path);
    expect(envelope).toMatchObject({ ok: false, error: { rule: 'no-secrets' } });
  });

  test('a reading of an encoded climb leaves the root', () => {
    const context = { roots: ['/work/ws'], home: '/home/ada', realPaths: false };
    const outside = (value: string) =>
      pathReadings(value, context).some((reading) => reading.segments.slice(0, 2).join('/') !== 'work/ws');
    expect(outside('docs%2F..%2F..%2Fetc')).toBe(true);
    expect(outside('docs/a.md')).toBe(false);
  });
});

describe('provider aliases', () => {
  // OpenAI and Anthropic refuse "." in names (and names over 64 characters), so an imported
  // "fs.delete_file" goes out as the alias "fs_delete_file"; the adapters map it back before dispatch.
  const registryWith = (rule: string, calls: string[], tool = 'fs.delete_file') =>
    new Registry({
      ...createPolicyGate(definePolicy({ rules: [{ id: 'no-delete', action: 'deny', tool: rule }] }))
        .registryOptions,
    }).register(echoTool(tool, 'write', calls));

  test('the alias itself reaches no tool; resolved, the gate sees the real name and denies', async () => {
    const calls: string[] = [];
    const registry = registryWith('fs.delete_file', calls);
    expect(await registry.call('fs_delete_file', {})).toMatchObject({
      ok: false,
      error: { type: 'unknown_tool' },
    });
    expect(await registry.call('fs.delete_file', {})).toMatchObject({
      ok: false,
      error: { rule: 'no-delete' },
    });
    expect(calls).toEqual([]);
  });

  test.each([
    ['openai', 'fs.delete_file'],
    ['anthropic', 'fs.delete_file'],
    ['openai', `fs.${'very_long_segment_'.repeat(4)}delete_file`],
  ] as const)(
    'a %s call by the alias of %s runs through the adapter, and the gate denies the real name',
    async (format, name) => {
      const calls: string[] = [];
      const registry = registryWith(name, calls, name);
      const alias = providerToolName(name, format);
      expect(alias).not.toBe(name);
      const [outcome] = await dispatchProviderCalls(
        registry,
        [{ id: 'c1', name: alias, arguments: '{}' }],
        format,
      );
      expect(outcome?.tool).toBe(name);
      expect(outcome?.envelope).toMatchObject({
        ok: false,
        error: { type: 'permission_denied', rule: 'no-delete' },
      });
      expect(calls).toEqual([]);
    },
  );

  test('a deny rule written with the alias also denies the real name', async () => {
    const calls: string[] = [];
    const registry = registryWith('fs_delete_file', calls);
    expect(await registry.call('fs.delete_file', {})).toMatchObject({
      ok: false,
      error: { rule: 'no-delete' },
    });
    expect(calls).toEqual([]);
  });
});
