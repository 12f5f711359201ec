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
