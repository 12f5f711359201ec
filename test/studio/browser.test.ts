import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTool, Registry } from '../../src/index.js';
import { definePolicy } from '../../src/policy/index.js';
import { mcpStudioSource, type RunningStudio, STUDIO_FORMATS, startStudio } from '../../src/studio/index.js';
import { type NotesState, notesOfferings, notesTools } from '../fixtures/studio/notes-tools.js';
import { EVERYTHING, launchBrowser, ROOT, skipWithoutBrowser } from './support.js';

// Screenshots go to a temp dir; TOOLPACT_SCREENSHOTS=<dir> keeps them (docs/images holds the chosen ones).
const SHOTS = process.env.TOOLPACT_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'toolpact-studio-shots-'));

const skip = skipWithoutBrowser('test/studio/browser.test.ts');

describe.skipIf(skip)('toolpact studio in Chromium', () => {
  let studio: RunningStudio;
  let registry: Registry;
  let context: BrowserContext;
  let closeBrowser: () => Promise<void>;
  let page: Page;
  const state: NotesState = { notes: new Map([['todo.md', 'buy milk']]), deletes: 0 };

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, name) });
  const row = (name: string) => page.locator(`.tool-list li[data-tool="${name}"]`);
  // A fresh document each time: a change of hash alone would keep the last test's filters.
  const open = async (hash: string) => {
    await page.goto('about:blank');
    await page.goto(`${studio.url}#${hash}`);
    await page.locator('.studio main').waitFor();
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    studio = await startStudio({
      label: 'test/fixtures/studio/notes-module.ts',
      policy: definePolicy({
        rules: [
          { id: 'no-deletes', action: 'deny', tool: 'delete_note', reason: 'notes are kept for good here' },
          { id: 'no-private', action: 'deny', target: 'resource', uri: 'notes://private/**' },
        ],
      }),
      load: (options) => {
        const { resources, prompts } = notesOfferings(state);
        registry = new Registry(options)
          .register(notesTools(state))
          .registerResource(resources)
          .registerPrompt(prompts);
        return { registry };
      },
    });
    ({ context, close: closeBrowser } = await launchBrowser());
    page = await context.newPage();
  });
  afterAll(async () => {
    await closeBrowser?.();
    await studio?.close();
  });

  test('the list shows each tool with its category, risk and permission badges, effects and tokens', async () => {
    await open('');
    await expect.poll(() => row('read_note').count()).toBe(1);
    expect(await page.locator('.tool-list li').count()).toBe(4);
    const badges = async (name: string) =>
      (await row(name).locator('.badges .badge').allTextContents()).map((text) => text.trim());
    expect(await badges('read_note')).toEqual(['read', 'low risk', 'allow']);
    expect(await badges('write_note')).toEqual(['write', 'medium risk', 'ask']);
    // The policy's rule, not the write category's default ask.
    expect(await badges('delete_note')).toEqual(['write', 'medium risk', 'deny']);
    expect(await row('delete_note').locator('.effect').allTextContents()).toContain('destructive');
    expect(await row('read_note').locator('.row-tokens [data-format]').count()).toBe(STUDIO_FORMATS.length);
    await shot('studio-list.png');
  });

  test('a lint finding is marked in the description where it points, and the list filters by it', async () => {
    await open('tool/search_notes');
    const mark = page.locator(
      '.tool-page[data-tool="search_notes"] mark[data-rule="no-manipulative-wording"]',
    );
    await expect.poll(() => mark.textContent()).toBe('ALWAYS use');
    await shot('studio-tool.png');
    await page.locator('.filter-finding').selectOption('no-manipulative-wording');
    await expect.poll(() => page.locator('.tool-list li').count()).toBe(1);
    expect(await page.locator('.tool-list li').getAttribute('data-tool')).toBe('search_notes');
    await page.locator('.filter-finding').selectOption('');
    await page.locator('.filter-text').fill('pinned');
    await expect.poll(() => page.locator('.tool-list li').count()).toBe(1);
    expect(await page.locator('.tool-list li').getAttribute('data-tool')).toBe('write_note');
  });

  test("each provider's payload on the page is exactly registry.schemas(format), with a diff against canonical", async () => {
    await open('tool/write_note');
    const index = registry.schemas().findIndex((contract) => contract.name === 'write_note');
    for (const format of STUDIO_FORMATS) {
      const text = await page.locator(`.provider[data-format="${format}"] pre.payload`).textContent();
      expect(JSON.parse(text!)).toEqual(registry.schemas(format)[index]);
    }
    await page.locator('.providers').scrollIntoViewIfNeeded();
    await page.getByRole('button', { name: 'diff vs canonical' }).click();
    const added = page.locator('.provider[data-format="anthropic"] .diff-added');
    await expect.poll(() => added.allTextContents()).toContain('+   "input_schema": {');
    await shot('studio-providers.png');
  });

  test('a call from the generated form succeeds and shows the envelope the model reads, with its tokens', async () => {
    await open('tool/read_note');
    await page.locator('.call-form input[name="path"]').fill('todo.md');
    await page.locator('.call-button').click();
    const envelope = page.locator('.envelope.ok .envelope-text');
    await expect
      .poll(() => envelope.textContent())
      .toBe(JSON.stringify({ ok: true, result: { path: 'todo.md', text: 'buy milk' } }));
    expect(await page.locator('.envelope-tokens').textContent()).toMatch(/^\d+ tokens$/);
    await page.locator('.playground').scrollIntoViewIfNeeded();
    await shot('studio-call.png');
  });

  test('raw arguments with broken JSON come back as invalid_json with the position', async () => {
    await open('tool/read_note');
    await page.getByRole('button', { name: 'raw JSON' }).click();
    await page.locator('.raw-arguments').fill('{"path": "todo.md",}');
    await page.locator('.call-button').click();
    const envelope = page.locator('.envelope.failed .envelope-text');
    await expect.poll(() => envelope.textContent()).toContain('"type":"invalid_json"');
    const error = JSON.parse((await envelope.textContent())!).error;
    expect(error).toMatchObject({ type: 'invalid_json', line: 1, column: 20 });
    expect(await page.locator('.envelope header .badge').textContent()).toBe('invalid_json');
  });

  test('an ask opens the approval dialog: one call allowed once, one denied with a reason, both audited', async () => {
    await open('tool/write_note');
    const form = page.locator('.call-form');
    await form.locator('input[name="file_path"]').fill('ideas.md');
    await form.locator('textarea[name="text"]').fill('plant trees');
    expect(await form.locator('select[name="mode"]').inputValue()).toBe('0'); // the default, "replace"
    await form.getByRole('button', { name: 'add item' }).click();
    await form.locator('[data-field=".tags[0]"] input').fill('garden');
    await page.locator('.call-button').click();
    const dialog = page.locator('.approval');
    await dialog.waitFor();
    expect(await dialog.locator('h2').textContent()).toBe('Allow write_note?');
    expect(JSON.parse((await dialog.locator('.approval-arguments').textContent())!)).toEqual({
      file_path: 'ideas.md',
      text: 'plant trees',
      mode: 'replace',
      tags: ['garden'],
    });
    await shot('studio-approval.png');
    await dialog.getByRole('button', { name: 'Allow once' }).click();
    await page.locator('.envelope.ok').waitFor();
    expect(state.notes.get('ideas.md')).toBe('plant trees');

    await form.locator('textarea[name="text"]').fill('cut them down');
    await page.locator('.call-button').click();
    await dialog.waitFor();
    await dialog.locator('.deny-reason').fill('not this one');
    await dialog.getByRole('button', { name: 'Deny' }).click();
    const denied = page.locator('.envelope.failed .envelope-text');
    await expect.poll(() => denied.textContent()).toContain('not this one');
    expect(JSON.parse((await denied.textContent())!).error.type).toBe('permission_denied');
    expect(state.notes.get('ideas.md')).toBe('plant trees');

    await page.getByRole('button', { name: /^Audit/ }).click();
    const rows = page.locator('table.audit tbody tr[data-tool="write_note"]');
    await expect.poll(() => rows.count()).toBe(2);
    const cells = async (index: number) =>
      (await rows.nth(index).locator('td').allTextContents()).slice(1, 7);
    // Newest first.
    expect(await cells(0)).toEqual([
      'write_note',
      'write',
      'deny',
      'default:write',
      'declined: not this one',
      'permission_denied',
    ]);
    expect(await cells(1)).toEqual(['write_note', 'write', 'allow', 'default:write', 'once', 'ok']);
    await shot('studio-audit.png');
  });

  test('"allow for the session" holds for the next calls, and the list shows the remembered decision', async () => {
    await open('tool/write_note');
    const form = page.locator('.call-form');
    await form.locator('input[name="file_path"]').fill('b.md');
    await form.locator('textarea[name="text"]').fill('one');
    await page.locator('.call-button').click();
    await page.locator('.approval').getByRole('button', { name: 'Allow for this session' }).click();
    await page.locator('.envelope.ok').waitFor();
    await expect.poll(() => row('write_note').locator('.permission').textContent()).toBe('allow');
    await form.locator('textarea[name="text"]').fill('two');
    await page.locator('.call-button').click();
    await expect.poll(() => page.locator('.envelope-text').textContent()).toContain('"characters":3');
    expect(await page.locator('.approval').count()).toBe(0);
  });

  test('the set view shows cross-tool findings, totals per provider and the heaviest tools', async () => {
    await open('set');
    await page.locator('.set-view').waitFor();
    expect(await page.locator('.totals .total').count()).toBe(STUDIO_FORMATS.length);
    expect(await page.locator('.bars li').count()).toBe(4);
    expect(await page.locator('.set-findings code.rule').allTextContents()).toContain(
      'consistent-parameter-names',
    );
    const resources = page.locator('table.resources tbody tr');
    expect(await resources.count()).toBe(2);
    expect(await resources.nth(1).locator('code').textContent()).toBe('notes://private/index');
    expect(await resources.nth(1).locator('.permission').textContent()).toBe('deny');
    expect(await page.locator('table.prompts tbody tr td').allTextContents()).toEqual(
      expect.arrayContaining(['summarize_note', 'name, tone?', 'allow']),
    );
    await shot('studio-set.png');
  });

  test('without the token the page is refused, saying what to open', async () => {
    const response = await page.goto(new URL(studio.url).origin);
    expect(response?.status()).toBe(403);
    expect(await page.locator('body').textContent()).toContain('needs the token of its URL');
  });

  test('a page from another origin cannot make a call, even knowing the URL', async () => {
    const calls = registryCalls(studio);
    const before = (await calls()).length;
    const foreign = await serveHtml(`<script>
      fetch(${JSON.stringify(`${studio.url}api/call`)}, { method: 'POST', mode: 'no-cors',
        body: JSON.stringify({ tool: 'delete_note', arguments: { path: 'todo.md' } }) })
        .then(() => { document.title = 'sent'; }, () => { document.title = 'failed'; });
    </script>`);
    try {
      await page.goto(foreign.url);
      await expect.poll(() => page.title()).toMatch(/sent|failed/);
      expect((await calls()).length).toBe(before);
      expect(state.deletes).toBe(0);
      expect(foreign.origin).not.toBe(new URL(studio.url).origin);
    } finally {
      await foreign.close();
    }
  });

  test('editing the generated contracts updates an open page', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolpact-studio-live-'));
    const file = join(folder, 'contracts.json');
    const contract = (name: string) => ({
      name,
      description: `Return the word "${name}". Use it to check reloads. It changes nothing.`,
      category: 'read',
      parameters: { type: 'object', properties: {} },
    });
    writeFileSync(file, JSON.stringify([contract('first_tool')]));
    const live = await startStudio({
      label: 'contracts.json',
      watch: [file],
      load: (options) => {
        const contracts = JSON.parse(readFileSync(file, 'utf8')) as ReturnType<typeof contract>[];
        const tools = contracts.map((entry) => createTool(entry as never, { execute: () => entry.name }));
        return { registry: new Registry(options).register(tools) };
      },
    });
    try {
      await page.goto(live.url);
      await page.locator('.tool-list li[data-tool="first_tool"]').waitFor();
      await page.locator('.live.on').waitFor();
      writeFileSync(file, JSON.stringify([contract('first_tool'), contract('second_tool')]));
      await page.locator('.tool-list li[data-tool="second_tool"]').waitFor();
      expect(await page.locator('.reloaded').textContent()).toMatch(/^reloaded /);
    } finally {
      await live.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  test("an MCP server's tools (server-everything) are listed, linted and priced like local ones", async () => {
    const mcp = await startStudio({
      label: 'server-everything',
      kind: 'mcp',
      load: mcpStudioSource({ command: process.execPath, args: [EVERYTHING], cwd: ROOT }),
    });
    try {
      await page.goto(`${mcp.url}#tool/get-sum`);
      await page.locator('.tool-list li[data-tool="get-sum"]').waitFor();
      expect(await page.locator('.source-label').textContent()).toBe('MCP server-everything');
      expect(await page.locator('.tool-list li').count()).toBeGreaterThan(5);
      await page.locator('.tool-page[data-tool="get-sum"]').waitFor();
      // An imported tool falls to the stricter default for imported sources until a rule covers it.
      expect(await row('get-sum').locator('.permission').textContent()).toBe('ask');
      expect(await page.locator('.tool-page .muted').first().textContent()).toContain('source: mcp:');
      await shot('studio-mcp.png');
    } finally {
      await mcp.close();
    }
  });
});

/** The calls the studio made so far, read from its own history. */
function registryCalls(studio: RunningStudio): () => Promise<unknown[]> {
  return async () => (await (await fetch(`${studio.url}api/history`)).json()) as unknown[];
}

/** A page on another loopback port: the origin a hostile local page would have. */
async function serveHtml(body: string): Promise<{ url: string; origin: string; close: () => Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html' });
    response.end(`<!doctype html><title>foreign</title>${body}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/`,
    origin,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
