import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createDelegateTask } from '../../examples/workspace/delegate-task.js';
import { createWorkspaceTools } from '../../examples/workspace/tools.js';
import { Registry } from '../../src/index.js';
import { createPolicyGate, definePolicy, openAuditLog, readAuditLog } from '../../src/policy/index.js';

let workspace: string;
beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'toolpact-delegate-'));
  writeFileSync(join(workspace, 'notes.md'), 'first line\n');
});
afterEach(() => rmSync(workspace, { recursive: true, force: true }));

const policy = definePolicy({
  rules: [
    { id: 'delegation-ok', action: 'allow', tool: 'delegate_task' },
    { id: 'no-writes', action: 'deny', tool: 'write_file', reason: 'this session is read-only' },
  ],
});

function parent(maxDepth = 2) {
  const audit = openAuditLog(join(workspace, 'audit.jsonl'));
  const gate = createPolicyGate(policy, { observe: audit.observe });
  const registry = new Registry({ ...gate.registryOptions }).register(
    ...createWorkspaceTools(workspace),
    createDelegateTask(maxDepth),
  );
  return { registry, audit };
}

type Steps = { tool: string; envelope: { ok: boolean; error?: { type: string; rule?: string } } }[];

describe('delegation', () => {
  test('a delegate uses the tools it was given', async () => {
    const { registry } = parent();
    const envelope = await registry.call('delegate_task', {
      task: 'Read the notes.',
      tools: ['read_file'],
      steps: [{ tool: 'read_file', arguments: { path: 'notes.md' } }],
    });
    expect(envelope).toMatchObject({ ok: true, result: { completed: true } });
  });

  test('a delegated call asking for a tool the parent denies is refused by the parent’s rule', async () => {
    const { registry, audit } = parent();
    const envelope = await registry.call('delegate_task', {
      task: 'Overwrite the notes.',
      tools: ['write_file'],
      steps: [{ tool: 'write_file', arguments: { path: 'notes.md', content: 'gone' } }],
    });
    audit.close();
    const steps = (envelope as unknown as { result: { completed: boolean; steps: Steps } }).result;
    expect(steps.completed).toBe(false);
    expect(steps.steps[0]?.envelope.error).toMatchObject({ type: 'permission_denied', rule: 'no-writes' });
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('first line\n');
    const { entries } = readAuditLog(join(workspace, 'audit.jsonl'));
    expect(entries.map((entry) => [entry.tool, entry.delegationDepth, entry.outcome])).toEqual([
      ['write_file', 1, 'permission_denied'],
      ['delegate_task', 0, 'ok'],
    ]);
  });

  test('a delegate cannot use a tool outside its subset, nor one the parent lacks', async () => {
    const { registry } = parent();
    const outside = await registry.call('delegate_task', {
      task: 'List then read.',
      tools: ['list_dir'],
      steps: [{ tool: 'read_file', arguments: { path: 'notes.md' } }],
    });
    const steps = (outside as unknown as { result: { steps: Steps } }).result.steps;
    expect(steps[0]?.envelope.error?.type).toBe('unknown_tool');
    const missing = await registry.call('delegate_task', {
      task: 'Run a shell.',
      tools: ['run_command'],
      steps: [{ tool: 'run_command', arguments: { command: 'id' } }],
    });
    expect(missing).toMatchObject({ ok: false, error: { type: 'unknown_delegate_tool' } });
  });

  test('delegation depth is bounded', async () => {
    const { registry } = parent(2);
    const nested = (depth: number): unknown => ({
      tool: 'delegate_task',
      arguments: {
        task: `level ${depth}`,
        tools: depth < 3 ? ['delegate_task', 'read_file'] : ['read_file'],
        steps: depth < 3 ? [nested(depth + 1)] : [{ tool: 'read_file', arguments: { path: 'notes.md' } }],
      },
    });
    const envelope = await registry.call('delegate_task', (nested(1) as { arguments: unknown }).arguments);
    const text = JSON.stringify(envelope);
    expect(text).toContain('delegation_too_deep');
    expect(text).not.toContain('first line');
  });
});
