import { request } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import { createToolIndex } from '../../src/search/index.js';
import { type RunningStudio, searchStudioTools, startStudio } from '../../src/studio/index.js';
import { notesTools } from '../fixtures/studio/notes-tools.js';

function get(url: string): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    request(url, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          json: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        }),
      );
    })
      .on('error', reject)
      .end();
  });
}

let studio: RunningStudio;
let registry: Registry;
beforeAll(async () => {
  studio = await startStudio({
    label: 'notes',
    load: (options) => {
      registry = new Registry(options).register(notesTools());
      return { registry };
    },
  });
});
afterAll(() => studio.close());

const search = async (query: string) =>
  (await get(`${studio.url}api/search?q=${encodeURIComponent(query)}`)).json as {
    engine: string;
    names: string[];
  };

test('the studio page knows the search index is there', async () => {
  const overview = (await get(`${studio.url}api/overview`)).json as { searchIndex: boolean };
  expect(overview.searchIndex).toBe(true);
});

test("the studio's search answers with toolpact/search's ranking, exactly as createToolIndex ranks", async () => {
  const index = createToolIndex(registry);
  for (const query of ['note read', 'delete a note for good', 'file_path', 'pinned author']) {
    const answer = await search(query);
    expect(answer.engine, query).toBe('index');
    expect(answer.names, query).toEqual(index.search(query, { k: registry.size }).map((hit) => hit.name));
    expect(answer.names.length, query).toBeGreaterThan(0);
  }
  expect((await search('delete a note for good')).names[0]).toBe('delete_note');
  expect((await search('pinned author')).names[0]).toBe('write_note');
  index.close();
});

test('the index follows the registry: a tool registered later is found, one removed is not', async () => {
  registry.register(
    defineTool({
      name: 'archive_notes',
      category: 'write',
      description: 'Move every note into a zip archive. It changes the note files.',
      input: z.object({ archive: z.string().describe('The zip file to write') }),
      execute: () => 'archived',
    }),
  );
  expect((await search('zip archive')).names).toEqual(['archive_notes']);
  registry.unregister('archive_notes');
  expect((await search('zip archive')).names).toEqual([]);
});

test('an empty query lists every tool, and an empty registry falls back to the text filter', async () => {
  expect(await search('  ')).toEqual({
    engine: 'text',
    names: registry.list().map((tool) => tool.contract.name),
  });
  expect(await searchStudioTools(new Registry(), 'note')).toEqual({ engine: 'text', names: [] });
});
