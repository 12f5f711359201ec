import { MockLanguageModelV3 } from 'ai/test';
import * as z from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import { approvalBridge } from '../../src/integrations/approval-bridge.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';

/** A small notes workspace: a read tool, a write tool the gate asks about, a delete tool it denies. */
export function notesWorkspace() {
  const notes = new Map<string, string>([['todo.md', 'buy milk']]);
  const runs: string[] = [];
  const readNote = defineTool({
    name: 'read_note',
    category: 'read',
    description:
      'Read the full text of one note. `name` is the note file name, e.g. "todo.md". Use list_notes first when you do not know the name; it changes nothing.',
    input: z.object({ name: z.string().describe('The note file name, e.g. "todo.md"') }),
    execute: ({ name }) => {
      runs.push(`read_note ${name}`);
      return notes.get(name) ?? null;
    },
  });
  const writeNote = defineTool({
    name: 'write_note',
    category: 'write',
    description:
      'Replace the text of one note, creating it when it does not exist. `name` is the note file name; `text` the whole new text. It overwrites what was there.',
    input: z.object({
      name: z.string().describe('The note file name, e.g. "todo.md"'),
      text: z.string().describe('The whole new text of the note'),
      append: z.boolean().optional().describe('Add to the end instead of replacing (default false)'),
    }),
    execute: ({ name, text, append }) => {
      runs.push(`write_note ${name}`);
      notes.set(name, append ? `${notes.get(name) ?? ''}${text}` : text);
      return { written: name, chars: text.length };
    },
  });
  const deleteNote = defineTool({
    name: 'delete_note',
    category: 'write',
    description:
      'Delete one note for good. `name` is the note file name. There is no undo; prefer write_note to change a note.',
    input: z.object({ name: z.string().describe('The note file name, e.g. "todo.md"') }),
    execute: ({ name }) => {
      runs.push(`delete_note ${name}`);
      return notes.delete(name);
    },
  });
  // Reads are allowed, deletes denied, and writes fall to the category default: ask.
  const gate = createPolicyGate(
    definePolicy({
      rules: [
        { id: 'no-deletes', action: 'deny', tool: 'delete_note', reason: 'notes are never deleted here' },
      ],
    }),
  );
  const approvals = approvalBridge(gate);
  const registry = new Registry({ ...approvals.registryOptions }).register(readNote, writeNote, deleteNote);
  return { registry, approvals, gate, notes, runs };
}

/** Token usage as the AI SDK's mock model reports it. */
export const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** One tool call the mock model makes. */
export interface Call {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

/** What the model answers on each turn: tool calls, or text. */
export type Turn = readonly Call[] | string;

/** A tool call as an AI SDK language model answers it. */
export function toolCall(call: Call) {
  return {
    type: 'tool-call' as const,
    toolCallId: call.id,
    toolName: call.name,
    input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
  };
}

/** The SDK's own mock model, answering turn after turn (non-streaming). */
export function generatingModel(turns: readonly Turn[]) {
  let index = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const turn = turns[index++] ?? 'done';
      return typeof turn === 'string'
        ? {
            content: [{ type: 'text', text: turn }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
            warnings: [],
          }
        : {
            content: turn.map(toolCall),
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          };
    },
  });
}
