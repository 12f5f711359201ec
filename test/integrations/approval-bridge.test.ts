import { expect, test } from 'vitest';
import { approvalBridge } from '../../src/ai-sdk/index.js';
import { Registry, ToolDefinitionError } from '../../src/index.js';
import { notesWorkspace } from './support.js';

test('an ask the framework did not approve goes to the fallback approver, once per call', async () => {
  const base = notesWorkspace();
  const asked: (string | undefined)[] = [];
  const approvals = approvalBridge(base.gate, {
    fallback: (request) => {
      asked.push(request.callId);
      return { action: 'allow' };
    },
  });
  const registry = new Registry({ ...approvals.registryOptions }).register(base.registry.get('write_note')!);
  expect(
    await approvals.call(registry, 'write_note', { name: 'a.md', text: 'x' }, { callId: 'k1' }),
  ).toMatchObject({
    ok: true,
  });
  // Approved through the framework: the fallback is not asked.
  expect(
    await approvals.call(
      registry,
      'write_note',
      { name: 'b.md', text: 'y' },
      { callId: 'k2', approved: true },
    ),
  ).toMatchObject({ ok: true });
  expect(asked).toEqual(['k1']);
  expect(base.runs).toEqual(['write_note a.md', 'write_note b.md']);
});

test('a grant is for one tool and one call id, and is gone after the call', async () => {
  const { registry, approvals, runs } = notesWorkspace();
  const denied = await approvals.call(registry, 'write_note', { name: 'a.md', text: 'x' }, { callId: 'z1' });
  expect(denied).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
  expect(
    await approvals.call(
      registry,
      'write_note',
      { name: 'a.md', text: 'x' },
      { callId: 'z1', approved: true },
    ),
  ).toMatchObject({ ok: true });
  expect(await registry.call('write_note', { name: 'a.md', text: 'x' }, { callId: 'z1' })).toMatchObject({
    ok: false,
    error: { type: 'permission_denied' },
  });
  // An approval without a call id cannot be tied to a call, so it grants nothing.
  expect(
    await approvals.call(registry, 'write_note', { name: 'a.md', text: 'x' }, { approved: true }),
  ).toMatchObject({
    ok: false,
    error: { type: 'permission_denied' },
  });
  expect(runs).toEqual(['write_note a.md']);
});

test('needsApproval: unknown tools, bad arguments and a throwing gate need none; the registry refuses them', async () => {
  const { registry, approvals } = notesWorkspace();
  expect(await approvals.needsApproval(registry, 'no_such_tool', {})).toBe(false);
  expect(await approvals.needsApproval(registry, 'write_note', '{"name":')).toBe(false);
  expect(await approvals.needsApproval(registry, 'write_note', '{"name":"a","text":"b"}')).toBe(true);
  const throwing = approvalBridge(() => {
    throw new Error('broken');
  });
  const guarded = new Registry({ ...throwing.registryOptions }).register(registry.get('read_note')!);
  expect(await throwing.needsApproval(guarded, 'read_note', { name: 'todo.md' })).toBe(false);
  expect(await guarded.call('read_note', { name: 'todo.md' })).toMatchObject({
    ok: false,
    error: { type: 'permission_denied', rule: 'gate-error' },
  });
  expect(() => approvalBridge(null as never)).toThrow(ToolDefinitionError);
});

test('an approval brought back a second time in the same process does not run the call again', async () => {
  const { registry, approvals, runs } = notesWorkspace();
  const args = { name: 'todo.md', text: 'buy bread' };
  expect(await approvals.call(registry, 'write_note', args, { callId: 'r1', approved: true })).toMatchObject({
    ok: true,
  });
  const replay = await approvals.call(registry, 'write_note', args, { callId: 'r1', approved: true });
  expect(replay).toMatchObject({
    ok: false,
    error: { type: 'approval_already_used', tool: 'write_note', rule: 'default:write' },
  });
  // Another call id is another approval; a call the gate allows outright needs none.
  expect(await approvals.call(registry, 'write_note', args, { callId: 'r2', approved: true })).toMatchObject({
    ok: true,
  });
  expect(
    await approvals.call(registry, 'read_note', { name: 'todo.md' }, { callId: 'r1', approved: true }),
  ).toMatchObject({ ok: true });
  expect(runs).toEqual(['write_note todo.md', 'write_note todo.md', 'read_note todo.md']);
});
