import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { type AnyTool, defineTool, Registry, type RegistryOptions } from '../../src/index.js';
import { createMcpServer } from '../../src/mcp/index.js';
import { invalidMessages, type Recording, recordingTransport, text } from './support/wire.js';

const listing = {
  type: 'object',
  properties: {
    directory: { type: 'string' },
    entries: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, bytes: { type: 'integer', minimum: 0 } },
        required: ['name', 'bytes'],
      },
    },
    total: { type: 'integer' },
  },
  required: ['directory', 'entries', 'total'],
} as const;

/** Lists `count` entries; `bytes: -1` breaks the output schema on purpose. */
const listDir = defineTool({
  name: 'list_dir',
  description: 'List a directory (a test tool whose size and sizes the call chooses).',
  category: 'read',
  input: {
    type: 'object',
    properties: { count: { type: 'integer' }, bytes: { type: 'integer' } },
    required: ['count'],
  } as const,
  output: listing,
  execute: ({ count, bytes }) => ({
    directory: 'src',
    entries: Array.from({ length: count }, (_, index) => ({
      name: `file-${index}.ts`,
      bytes: bytes ?? index,
    })),
    total: count,
  }),
});

/** Needs at least 40 entries, so no shortened form of a long listing matches. */
const strict = defineTool({
  name: 'strict_list',
  description: 'List at least forty items (a test tool).',
  category: 'read',
  input: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] } as const,
  output: z.object({ items: z.array(z.string()).min(40) }),
  execute: ({ count }) => ({ items: Array.from({ length: count }, (_, index) => `item number ${index}`) }),
});

/** A string return contract, published wrapped as `{ result }`. */
const readText = defineTool({
  name: 'read_text',
  description: 'Return a text of the given length (a test tool).',
  category: 'read',
  input: { type: 'object', properties: { length: { type: 'integer' } }, required: ['length'] } as const,
  output: { type: 'string' },
  execute: ({ length }) => 'abcdefghij'.repeat(Math.ceil(length / 10)).slice(0, length),
});

const open: Client[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) await client.close();
});

async function serve(
  options: RegistryOptions,
  ...tools: AnyTool[]
): Promise<{ client: Client; wire: Recording }> {
  const registry = new Registry(options).register(tools.length ? tools : [listDir, strict, readText]);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const { transport, recording } = recordingTransport(serverSide);
  await createMcpServer(registry).connect(transport);
  const client = new Client({ name: 'results-test', version: '1.0.0' });
  await client.connect(clientSide);
  open.push(client);
  // The SDK Client checks structuredContent only for tools it has listed.
  await client.listTools();
  return { client, wire: recording };
}

describe('toolpact serve sends only structuredContent that matches the outputSchema', () => {
  test('a long result is shortened as a value: the SDK Client accepts it, and the cut is marked', async () => {
    const { client, wire } = await serve({ maxResultChars: 2_000 });
    const result = await client.callTool({ name: 'list_dir', arguments: { count: 500 } });
    expect(result.isError).toBeUndefined();
    const structured = result.structuredContent as { directory: string; entries: unknown[]; total: number };
    expect(structured.directory).toBe('src');
    expect(structured.total).toBe(500);
    expect(structured.entries.length).toBeGreaterThan(0);
    expect(structured.entries.length).toBeLessThan(500);
    expect(structured.entries[0]).toEqual({ name: 'file-0.ts', bytes: 0 });
    const envelope = JSON.parse(text(result));
    expect(envelope).toMatchObject({
      ok: true,
      result: structured,
      truncated: { totalChars: expect.any(Number) },
    });
    expect(envelope.truncated.message).toContain('Ask for a smaller part');
    expect(result._meta?.['toolpact/truncated']).toEqual(envelope.truncated);
    expect(text(result).length).toBeLessThanOrEqual(2_000);
    expect(invalidMessages('server', wire)).toEqual([]);
  });

  test('a wrapped string result cut for length is sent as { result } and accepted', async () => {
    const { client } = await serve({ maxResultChars: 500 });
    const result = await client.callTool({ name: 'read_text', arguments: { length: 5_000 } });
    expect(result.isError).toBeUndefined();
    const shown = (result.structuredContent as { result: string }).result;
    expect(shown.length).toBeGreaterThan(100);
    expect(shown.length).toBeLessThan(500);
    expect('abcdefghij'.repeat(500).startsWith(shown)).toBe(true);
  });

  test('a cut result with no matching shorter form is an error result the model reads, not a client exception', async () => {
    const { client, wire } = await serve({ maxResultChars: 1_000 });
    const result = await client.callTool({ name: 'strict_list', arguments: { count: 100 } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const envelope = JSON.parse(text(result));
    expect(envelope.error.type).toBe('result_too_large');
    expect(envelope.error.message).toContain('Ask for a smaller part');
    // Short enough, the same tool answers in full.
    const whole = await client.callTool({ name: 'strict_list', arguments: { count: 40 } });
    expect((whole.structuredContent as { items: string[] }).items).toHaveLength(40);
    expect(invalidMessages('server', wire)).toEqual([]);
  });

  test.each([
    ['error', undefined],
    ['warn', 'warn'],
    ['off', 'off'],
  ] as const)(
    'a result that breaks the schema is never sent as structuredContent (validateResults %s)',
    async (_, mode) => {
      const { client, wire } = await serve(mode ? { validateResults: mode } : {}, listDir);
      const result = await client.callTool({ name: 'list_dir', arguments: { count: 2, bytes: -1 } });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      const envelope = JSON.parse(text(result));
      expect(envelope.error.type).toBe('invalid_result');
      expect(text(result)).not.toContain('file-0.ts');
      const fine = await client.callTool({ name: 'list_dir', arguments: { count: 2 } });
      expect(fine.structuredContent).toMatchObject({ total: 2 });
      expect(invalidMessages('server', wire)).toEqual([]);
    },
  );
});
