import { Agent, Runner } from '@openai/agents';
import { describe, expect, test } from 'vitest';
import { createTool, Registry, resolveEffects } from '../../src/index.js';
import { approvalBridge, toOpenAIAgentsTools } from '../../src/openai-agents/index.js';
import { echoTool } from '../policy/support.js';
import { outputsSent, ScriptedModel } from './agents-support.js';
import { notesWorkspace } from './support.js';

const runner = new Runner({ tracingDisabled: true });

describe('toOpenAIAgentsTools through the Runner', () => {
  test('the model is offered the strict adapter’s schema; valid, invalid and denied calls answer envelopes', async () => {
    const { registry, approvals, runs } = notesWorkspace();
    const model = new ScriptedModel([
      [
        // Strict mode: the model sends null for the optional `append`; toolpact makes it absent again.
        { id: 'c1', name: 'read_note', arguments: { name: 'todo.md' } },
        { id: 'c2', name: 'read_note', arguments: { name: 42 } },
        { id: 'c3', name: 'delete_note', arguments: { name: 'todo.md' } },
      ],
      'The note says: buy milk.',
    ]);
    const agent = new Agent({
      name: 'notes',
      instructions: 'Help with notes.',
      model,
      tools: toOpenAIAgentsTools(registry, { approvals }),
    });
    const result = await runner.run(agent, 'What is in todo.md?');
    expect(result.finalOutput).toBe('The note says: buy milk.');
    expect(runs).toEqual(['read_note todo.md']);

    const offered = model.requests[0]!.tools.find(
      (entry) => entry.type === 'function' && entry.name === 'write_note',
    );
    const strict = registry.schemas('openai-responses', { strict: true, returns: 'description' })[1]!;
    expect(offered).toMatchObject({ name: 'write_note', strict: true, parameters: strict.parameters });
    expect(strict.parameters).toMatchObject({
      required: ['name', 'text', 'append'],
      additionalProperties: false,
    });

    const sent = outputsSent(model);
    expect(sent.get('c1')).toEqual({ ok: true, result: 'buy milk' });
    expect(sent.get('c2')).toMatchObject({ ok: false, error: { type: 'invalid_arguments' } });
    expect((sent.get('c2') as { error: { issues: { path: string }[] } }).error.issues[0]!.path).toBe(
      '$.name',
    );
    expect(sent.get('c3')).toMatchObject({
      ok: false,
      error: { type: 'permission_denied', rule: 'no-deletes' },
    });
  });

  test('strict nulls are restored to "absent" before validation, so the contract’s optional field is left out', async () => {
    const { registry, runs, notes } = notesWorkspace();
    // A registry whose gate allows writes, to see the arguments the tool receives.
    const open = new Registry({ ...approvalBridge(() => undefined).registryOptions }).register(
      registry.get('write_note')!,
    );
    const model = new ScriptedModel([
      [{ id: 'w1', name: 'write_note', arguments: { name: 'todo.md', text: ' and bread', append: null } }],
      'ok',
    ]);
    const agent = new Agent({ name: 'notes', model, tools: toOpenAIAgentsTools(open) });
    await runner.run(agent, 'x');
    expect(outputsSent(model).get('w1')).toEqual({ ok: true, result: { written: 'todo.md', chars: 10 } });
    expect(runs).toEqual(['write_note todo.md']);
    // `append: null` was dropped before validation: the contract's boolean would have refused a null.
    expect(notes.get('todo.md')).toBe(' and bread');
  });

  for (const stream of [false, true]) {
    const label = stream ? 'streamed run' : 'run';
    test(`${label}: the gate's ask interrupts; approved, the call runs once; rejected, never`, async () => {
      for (const decision of ['approve', 'reject'] as const) {
        const { registry, approvals, runs, notes } = notesWorkspace();
        const model = new ScriptedModel([
          [{ id: 'w1', name: 'write_note', arguments: { name: 'todo.md', text: 'buy bread', append: null } }],
          'Changed.',
        ]);
        const agent = new Agent({
          name: 'notes',
          model,
          tools: toOpenAIAgentsTools(registry, { approvals }),
        });
        const first = stream
          ? await runner.run(agent, 'Change it.', { stream: true })
          : await runner.run(agent, 'Change it.');
        if (stream) await (first as { completed: Promise<void> }).completed;
        expect(first.interruptions).toHaveLength(1);
        expect(first.interruptions[0]!.rawItem).toMatchObject({ callId: 'w1', name: 'write_note' });
        expect(runs).toEqual([]);
        const state = first.state;
        if (decision === 'approve') state.approve(first.interruptions[0]!);
        else state.reject(first.interruptions[0]!);
        const second = stream
          ? await runner.run(agent, state, { stream: true })
          : await runner.run(agent, state);
        if (stream) await (second as { completed: Promise<void> }).completed;
        expect(second.finalOutput).toBe('Changed.');
        if (decision === 'approve') {
          expect(runs).toEqual(['write_note todo.md']);
          expect(notes.get('todo.md')).toBe('buy bread');
          expect(outputsSent(model).get('w1')).toEqual({
            ok: true,
            result: { written: 'todo.md', chars: 9 },
          });
          // The grant was for that call: the same call id outside the run is refused by the gate.
          const again = await registry.call('write_note', { name: 'todo.md', text: 'x' }, { callId: 'w1' });
          expect(again).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
        } else {
          expect(runs).toEqual([]);
          expect(notes.get('todo.md')).toBe('buy milk');
        }
      }
    });
  }

  test('a schema strict mode cannot express goes non-strict, and the diagnostics say why', async () => {
    const anyValue = createTool(
      {
        name: 'tag_note',
        description:
          'Attach one tag to a note. `value` is any JSON value to store with the tag. It changes the note.',
        category: 'write',
        parameters: { type: 'object', properties: { value: {} }, required: ['value'] },
        effects: resolveEffects('write'),
      },
      { execute: () => 'tagged' },
    );
    const { registry } = notesWorkspace();
    registry.register(anyValue);
    const seen: string[] = [];
    const tools = toOpenAIAgentsTools(registry, {
      onDiagnostics: (diagnostics) =>
        seen.push(...diagnostics.map((entry) => `${entry.tool}:${entry.severity}:${entry.code}`)),
    });
    expect(seen).toContain('tag_note:error:strict_unsupported');
    expect(tools.map((entry) => [entry.name, entry.strict])).toEqual([
      ['read_note', true],
      ['write_note', true],
      ['delete_note', true],
      ['tag_note', false],
    ]);
    expect(tools[3]!.parameters).toEqual(anyValue.contract.parameters);
  });

  test('options are checked, and names the SDK would merge are refused', async () => {
    const { registry } = notesWorkspace();
    expect(() => toOpenAIAgentsTools(registry, { only: ['nope'] })).toThrow(
      /"nope" in only is not registered/,
    );
    expect(toOpenAIAgentsTools(registry, { only: ['read_note'] }).map((entry) => entry.name)).toEqual([
      'read_note',
    ]);
    expect(toOpenAIAgentsTools(registry, { strict: false }).every((entry) => entry.strict === false)).toBe(
      true,
    );
    const merged = new Registry().register(echoTool('read-note', 'read'), echoTool('read_note', 'read'));
    expect(() => toOpenAIAgentsTools(merged)).toThrow(/would both be called "read_note" in the Agents SDK/);
  });
});
