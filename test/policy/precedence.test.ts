import { describe, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import { createPolicyGate, definePolicy, evaluatePolicy, type PolicyRule } from '../../src/policy/index.js';
import { echoTool, importedTool } from './support.js';

function decide(rules: PolicyRule[], tool = 'write_file', path = 'docs/a.md', category = 'write' as const) {
  return evaluatePolicy(definePolicy({ rules }), {
    tool,
    category,
    source: 'local',
    arguments: { path },
    meta: {},
    state: undefined,
  });
}

describe('precedence', () => {
  test('without rules the taxonomy decides: read allows, write asks', () => {
    expect(decide([], 'read_file', 'a', 'read' as never)).toMatchObject({
      action: 'allow',
      rule: 'default:read',
    });
    expect(decide([])).toMatchObject({ action: 'ask', rule: 'default:write' });
  });

  test('deny beats ask beats allow among equally specific rules, whatever their order', () => {
    const allow: PolicyRule = { id: 'a', action: 'allow', tool: 'write_file' };
    const ask: PolicyRule = { id: 'b', action: 'ask', tool: 'write_file' };
    const deny: PolicyRule = { id: 'c', action: 'deny', tool: 'write_file' };
    expect(decide([allow, ask, deny])).toMatchObject({ action: 'deny', rule: 'c' });
    expect(decide([deny, ask, allow])).toMatchObject({ action: 'deny', rule: 'c' });
    expect(decide([allow, ask])).toMatchObject({ action: 'ask', rule: 'b' });
  });

  test('a carve-out of a deny decides inside it; a broader rule never outranks the deny', () => {
    const general: PolicyRule = { id: 'no-writes', action: 'deny', category: 'write' };
    const glob: PolicyRule = { id: 'writes-ask', action: 'ask', tool: 'write_*' };
    const exact: PolicyRule = {
      id: 'docs',
      action: 'allow',
      tool: 'write_file',
      arguments: { path: { under: 'docs' } },
    };
    // The exact tool under docs is narrower than the deny in its one field (the category): a carve-out.
    expect(decide([general, glob, exact])).toMatchObject({ action: 'allow', rule: 'docs' });
    // A glob on the name does not pin the category, so it is no carve-out: the deny decides.
    expect(decide([general, glob])).toMatchObject({ action: 'deny', rule: 'no-writes' });
    // The exact rule does not match outside docs/, and the glob cannot outrank the deny.
    expect(decide([general, glob, exact], 'write_file', 'src/a.ts')).toMatchObject({ rule: 'no-writes' });
    // Without a deny, the most specific rule still wins between ask and allow.
    expect(decide([glob, exact])).toMatchObject({ action: 'allow', rule: 'docs' });
    expect(decide([glob, exact], 'write_file', 'src/a.ts')).toMatchObject({
      action: 'ask',
      rule: 'writes-ask',
    });
  });

  test('a broad allow by source and category does not outrank a narrow deny on a path', () => {
    const reads: PolicyRule = {
      id: 'mcp-reads',
      action: 'allow',
      source: 'mcp:*',
      category: ['read', 'search'],
    };
    const ssh: PolicyRule = { id: 'no-ssh', action: 'deny', arguments: { path: { under: '.ssh' } } };
    const verdict = evaluatePolicy(definePolicy({ rules: [reads, ssh] }), {
      tool: 'read_text_file',
      category: 'read',
      source: 'mcp:filesystem',
      arguments: { path: '.ssh/id_rsa' },
      meta: {},
      state: undefined,
    });
    expect(verdict).toMatchObject({ action: 'deny', rule: 'no-ssh' });
  });

  test('an argument test makes a rule more specific than the same rule without one', () => {
    const plain: PolicyRule = { id: 'deny-all', action: 'deny', tool: 'write_file' };
    const docs: PolicyRule = {
      id: 'docs',
      action: 'allow',
      tool: 'write_file',
      arguments: { path: { under: 'docs' } },
    };
    expect(decide([plain, docs])).toMatchObject({ action: 'allow', rule: 'docs' });
    expect(decide([plain, docs], 'write_file', 'docs2/a.md')).toMatchObject({
      action: 'deny',
      rule: 'deny-all',
    });
  });

  test('the first of equally specific rules with the same action is reported', () => {
    const first: PolicyRule = { id: 'first', action: 'deny', category: 'write' };
    const second: PolicyRule = { id: 'second', action: 'deny', category: 'write' };
    expect(decide([first, second]).rule).toBe('first');
    expect(decide([second, first]).rule).toBe('second');
  });

  test('policy defaults override the taxonomy', () => {
    const verdict = evaluatePolicy(definePolicy({ rules: [], defaults: { read: 'deny' } }), {
      tool: 'read_file',
      category: 'read',
      source: 'local',
      arguments: {},
      meta: {},
      state: undefined,
    });
    expect(verdict).toMatchObject({ action: 'deny', rule: 'default:read' });
  });
});

describe('the gate in a registry', () => {
  test('a denial reaches the model as permission_denied naming the rule, and the tool does not run', async () => {
    const calls: string[] = [];
    const gate = createPolicyGate(
      definePolicy({
        rules: [{ id: 'no-writes', action: 'deny', category: 'write', reason: 'this agent is read-only' }],
      }),
    );
    const registry = new Registry({ ...gate.registryOptions }).register(
      echoTool('write_file', 'write', calls),
    );
    const envelope = await registry.call('write_file', { path: 'a.md' });
    expect(envelope).toMatchObject({ ok: false, error: { type: 'permission_denied', rule: 'no-writes' } });
    expect(!envelope.ok && envelope.error.message).toContain('this agent is read-only');
    expect(calls).toEqual([]);
  });

  test('ask without an approver is refused, saying approval was required', async () => {
    const calls: string[] = [];
    const registry = new Registry({
      ...createPolicyGate(definePolicy({ rules: [] })).registryOptions,
    }).register(echoTool('write_file', 'write', calls));
    const envelope = await registry.call('write_file', { path: 'a.md' });
    expect(envelope).toMatchObject({
      ok: false,
      error: { type: 'permission_denied', rule: 'default:write' },
    });
    expect(!envelope.ok && envelope.error.message).toMatch(/needs approval/);
    expect(calls).toEqual([]);
  });

  test('an execute tool without a sandbox is refused even when a rule allows it', async () => {
    const calls: string[] = [];
    const gate = createPolicyGate(definePolicy({ rules: [{ id: 'shell-ok', action: 'allow', tool: 'sh' }] }));
    const registry = new Registry({ ...gate.registryOptions }).register(echoTool('sh', 'execute', calls));
    expect(await registry.call('sh', {})).toMatchObject({ ok: false, error: { rule: 'sandbox-required' } });
    expect(calls).toEqual([]);
  });

  test('an execute tool whose sandbox cannot start is refused with the reason', async () => {
    const calls: string[] = [];
    const base = echoTool('sh', 'execute', calls);
    const tool = {
      ...base,
      meta: {
        sandbox: {
          kind: 'bubblewrap',
          check: async () => ({ ok: false as const, reason: 'bwrap is missing' }),
        },
      },
    };
    const gate = createPolicyGate(definePolicy({ rules: [{ id: 'shell-ok', action: 'allow', tool: 'sh' }] }));
    const envelope = await new Registry({ ...gate.registryOptions }).register(tool).call('sh', {});
    expect(envelope).toMatchObject({
      ok: false,
      error: { type: 'permission_denied', rule: 'sandbox-unavailable' },
    });
    expect(!envelope.ok && envelope.error.message).toContain('bwrap is missing');
    expect(calls).toEqual([]);
  });
});

describe('imported tools', () => {
  test('a readOnlyHint never loosens the rule for its source', async () => {
    const calls: string[] = [];
    const gate = createPolicyGate(
      definePolicy({ rules: [{ id: 'fs-server', action: 'ask', source: 'mcp:fs' }] }),
    );
    const registry = new Registry({ ...gate.registryOptions }).register(
      importedTool('fs.read', 'mcp:fs', calls),
    );
    expect(await registry.call('fs.read', { path: 'a' })).toMatchObject({
      ok: false,
      error: { type: 'permission_denied', rule: 'fs-server' },
    });
    expect(calls).toEqual([]);
  });

  test('without a rule for its source, an imported tool in a read category still asks', async () => {
    const gate = createPolicyGate(definePolicy({ rules: [] }));
    const registry = new Registry({ ...gate.registryOptions }).register(importedTool('fs.read', 'mcp:fs'));
    expect(await registry.call('fs.read', {})).toMatchObject({
      ok: false,
      error: { rule: 'default:imported' },
    });
  });

  test('a source deny is matched by glob and beats the category default', async () => {
    const gate = createPolicyGate(
      definePolicy({ rules: [{ id: 'no-mcp', action: 'deny', source: 'mcp:*' }] }),
    );
    const registry = new Registry({ ...gate.registryOptions }).register(importedTool('x', 'mcp:other'));
    expect(await registry.call('x', {})).toMatchObject({ ok: false, error: { rule: 'no-mcp' } });
  });
});
