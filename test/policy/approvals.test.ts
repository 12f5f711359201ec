import { describe, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import {
  type ApprovalRequest,
  ApprovalSession,
  createPolicyGate,
  definePolicy,
  type PolicyApprover,
} from '../../src/policy/index.js';
import { echoTool } from './support.js';

const policy = definePolicy({
  rules: [{ id: 'writes-ask', action: 'ask', tool: 'write_file', reason: 'writes change the workspace' }],
});

function setup(approver: PolicyApprover, session?: ApprovalSession) {
  const calls: string[] = [];
  const gate = createPolicyGate(policy, { approver, ...(session ? { session } : {}) });
  const registry = new Registry({ ...gate.registryOptions }).register(
    echoTool('write_file', 'write', calls),
    echoTool('edit_file', 'write', calls),
  );
  return { registry, calls, gate };
}

describe('approvals', () => {
  test('the approver sees the tool, category, risk, validated arguments and the rule that asked', async () => {
    const seen: ApprovalRequest[] = [];
    const { registry } = setup((request) => {
      seen.push(request);
      return { action: 'allow' };
    });
    expect(await registry.call('write_file', '{"path":"a.md"}')).toMatchObject({ ok: true });
    expect(seen[0]).toMatchObject({
      tool: 'write_file',
      category: 'write',
      risk: 'medium',
      source: 'local',
      arguments: { path: 'a.md' },
      rule: 'writes-ask',
      reason: 'writes change the workspace',
    });
  });

  test('allow once asks again on the next call', async () => {
    let asked = 0;
    const { registry, calls } = setup(() => {
      asked++;
      return { action: 'allow', scope: 'once' };
    });
    await registry.call('write_file', {});
    await registry.call('write_file', {});
    expect(asked).toBe(2);
    expect(calls).toEqual(['write_file', 'write_file']);
  });

  test('allow for the session holds for that tool and rule only, until the session is cleared', async () => {
    let asked = 0;
    const session = new ApprovalSession();
    const { registry } = setup(() => {
      asked++;
      return { action: 'allow', scope: 'session' };
    }, session);
    await registry.call('write_file', {});
    const second = await registry.call('write_file', {});
    expect(asked).toBe(1);
    expect(session.list()).toEqual([{ tool: 'write_file', rule: 'writes-ask' }]);
    expect(second).toMatchObject({ ok: true });
    await registry.call('edit_file', {}); // another tool (asked by the write default): asked again
    expect(asked).toBe(2);
    session.clear();
    await registry.call('write_file', {});
    expect(asked).toBe(3);
  });

  test('a denial carries the approver’s reason to the model', async () => {
    const { registry, calls } = setup(() => ({ action: 'deny', reason: 'not during the release freeze' }));
    const envelope = await registry.call('write_file', {});
    expect(envelope).toMatchObject({ ok: false, error: { type: 'permission_denied', rule: 'writes-ask' } });
    expect(!envelope.ok && envelope.error.message).toContain('not during the release freeze');
    expect(calls).toEqual([]);
  });

  test('an approver that throws or answers nonsense denies', async () => {
    for (const approver of [
      () => {
        throw new Error('/home/ada/.secrets/key unreadable');
      },
      () => ({ action: 'yes' }) as never,
      async () => null as never,
    ] as PolicyApprover[]) {
      const { registry, calls } = setup(approver);
      const envelope = await registry.call('write_file', {});
      expect(envelope).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
      expect(JSON.stringify(envelope)).not.toContain('/home/ada');
      expect(calls).toEqual([]);
    }
  });

  test('without a gate approver, the registry approver answers the ask', async () => {
    const gate = createPolicyGate(policy);
    const registry = new Registry({
      ...gate.registryOptions,
      approver: () => ({ action: 'allow' }),
    }).register(echoTool('write_file', 'write'));
    expect(await registry.call('write_file', {})).toMatchObject({ ok: true });
  });

  test('a registry approver’s session approval covers the tool under the rule that asked, not another rule', async () => {
    let asked = 0;
    const policy = definePolicy({
      rules: [
        { id: 'docs-ask', action: 'ask', tool: 'write_file', arguments: { path: { under: 'docs' } } },
        { id: 'config-ask', action: 'ask', tool: 'write_file', arguments: { path: { under: 'config' } } },
      ],
    });
    const registry = new Registry({
      ...createPolicyGate(policy).registryOptions,
      approver: () => {
        asked++;
        return { action: 'allow', scope: 'session' };
      },
    }).register(echoTool('write_file', 'write'));
    await registry.call('write_file', { path: 'docs/a.md' });
    await registry.call('write_file', { path: 'docs/b.md' });
    expect(asked).toBe(1);
    await registry.call('write_file', { path: 'config/app.json' });
    expect(asked).toBe(2);
  });

  test('an approver that never answers denies once approvalTimeoutMs has passed', async () => {
    const calls: string[] = [];
    const gate = createPolicyGate(policy, { approver: () => new Promise(() => {}), approvalTimeoutMs: 20 });
    const registry = new Registry({ ...gate.registryOptions }).register(
      echoTool('write_file', 'write', calls),
    );
    const envelope = await registry.call('write_file', {});
    expect(envelope).toMatchObject({ ok: false, error: { type: 'permission_denied', rule: 'writes-ask' } });
    expect(!envelope.ok && envelope.error.message).toContain('no approval came within 20 ms');
    expect(calls).toEqual([]);
    expect(() => createPolicyGate(policy, { approvalTimeoutMs: 0 })).toThrow(
      /approvalTimeoutMs must be a positive/,
    );
  });
});
