import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import { definePolicy } from '../../src/policy/index.js';
import { diffJson, type RunningStudio, type StudioOverview, startStudio } from '../../src/studio/index.js';
import { notesOfferings, notesTools } from '../fixtures/studio/notes-tools.js';

/** One HTTP request with exactly the headers given (fetch would not let a test set Host). */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  send(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

let studio: RunningStudio;
let registry: Registry | undefined;
const state = { notes: new Map([['todo.md', 'buy milk']]), deletes: 0 };

beforeAll(async () => {
  studio = await startStudio({
    label: 'notes',
    policy: definePolicy({
      rules: [
        { id: 'no-deletes', action: 'deny', tool: 'delete_note', reason: 'notes are kept for good here' },
        { id: 'notes-writable', action: 'allow', tool: 'write_note' },
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
});
afterAll(() => studio.close());

describe('who may reach the studio', () => {
  test('it listens on 127.0.0.1, at a URL holding a random token', () => {
    expect(studio.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{24}\/$/);
  });

  test('without the token, or with another one, every path is refused with what to do', async () => {
    const root = new URL(studio.url).origin;
    for (const path of ['/', '/api/overview', '/ui/app.js', `/${'x'.repeat(24)}/api/overview`]) {
      const response = await send(`${root}${path}`);
      expect(response.status).toBe(403);
      expect(response.text).toContain('Open the exact URL that "toolpact studio" printed');
    }
    expect((await send(`${studio.url}api/overview`)).status).toBe(200);
  });

  test('a foreign Origin is refused before the call runs, even another local port', async () => {
    const before = state.deletes;
    for (const origin of ['http://evil.example', 'http://127.0.0.1:1', 'http://localhost:9']) {
      const response = await post(
        `${studio.url}api/call`,
        { tool: 'read_note', arguments: { path: 'todo.md' } },
        { Origin: origin },
      );
      expect(response.status).toBe(403);
      expect(response.text).toContain(JSON.stringify(origin));
    }
    expect(JSON.parse((await send(`${studio.url}api/history`)).text)).toEqual([]);
    expect(state.deletes).toBe(before);
  });

  test('a Host that is not a loopback name (DNS rebinding) is refused with 421', async () => {
    const response = await send(`${studio.url}api/overview`, { headers: { Host: 'rebind.example:80' } });
    expect(response.status).toBe(421);
    expect(response.text).toContain('not a loopback name');
  });

  test('the page has a strict CSP with a fresh nonce for its two scripts', async () => {
    const first = await send(studio.url);
    const second = await send(studio.url);
    const csp = String(first.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(first.text.split(`nonce="${nonce}"`)).toHaveLength(3);
    expect(second.headers['content-security-policy']).not.toBe(csp);
  });
});

describe('the data behind the page', () => {
  let overview: StudioOverview & { formats: string[] };
  beforeAll(async () => {
    overview = JSON.parse((await send(`${studio.url}api/overview`)).text);
  });

  test('each tool shows the real decision of the active policy, not its category default', () => {
    const permission = (name: string) => overview.tools.find((tool) => tool.name === name)?.permission;
    expect(permission('read_note')).toMatchObject({ action: 'allow', rule: 'default:read' });
    expect(permission('write_note')).toMatchObject({ action: 'allow', rule: 'notes-writable' });
    expect(permission('delete_note')).toMatchObject({ action: 'deny', rule: 'no-deletes' });
  });

  test("the registry's resources and prompts are listed, each with the gate's decision", () => {
    expect(overview.resources).toEqual([
      {
        uri: 'notes://{name}',
        kind: 'template',
        name: 'note',
        mimeType: 'text/markdown',
        description: 'One note, by its file name.',
        permission: { action: 'allow', rule: 'default:read', reason: expect.any(String) },
      },
      expect.objectContaining({
        uri: 'notes://private/index',
        kind: 'resource',
        permission: expect.objectContaining({ action: 'deny', rule: 'no-private' }),
      }),
    ]);
    expect(overview.prompts).toEqual([
      {
        name: 'summarize_note',
        arguments: ['name', 'tone?'],
        description: 'Summarize one note in three bullet points.',
        permission: expect.objectContaining({ action: 'allow', rule: 'default:read' }),
      },
    ]);
  });

  test('tokens per provider add up per tool, and the set totals are given', () => {
    for (const format of overview.formats) {
      expect(overview.totals[format as 'openai']).toBeGreaterThan(0);
      for (const tool of overview.tools) expect(tool.tokens[format as 'openai']).toBeGreaterThan(0);
    }
  });

  test('a lint finding quoting the description carries the words it points at', () => {
    const search = overview.tools.find((tool) => tool.name === 'search_notes')!;
    const finding = search.findings.find((entry) => entry.rule === 'no-manipulative-wording');
    expect(finding?.excerpt).toBe('ALWAYS use');
  });

  test('cross-tool findings (path beside file_path) are in the set view', () => {
    expect(overview.setFindings.map((finding) => finding.rule)).toContain('consistent-parameter-names');
  });

  test("a tool's page gives each provider's exact payload, and a diff against canonical", async () => {
    const detail = JSON.parse((await send(`${studio.url}api/tools/write_note`)).text);
    const index = registry!.schemas().findIndex((contract) => contract.name === 'write_note');
    for (const payload of detail.payloads) {
      expect(payload.payload).toEqual(registry!.schemas(payload.format)[index]);
    }
    const anthropic = detail.payloads.find((payload: { format: string }) => payload.format === 'anthropic');
    expect(anthropic.diff).toContainEqual({ op: '-', text: '  "parameters": {' });
    expect(anthropic.diff).toContainEqual({ op: '+', text: '  "input_schema": {' });
  });

  test('an unknown tool page is a 404 that says what to do', async () => {
    const response = await send(`${studio.url}api/tools/__proto__`);
    expect(response.status).toBe(404);
    expect(JSON.parse(response.text).error.type).toBe('unknown_tool');
  });
});

describe('calls', () => {
  test('a call runs through registry.call and answers the envelope as the model reads it, with tokens', async () => {
    const response = await post(`${studio.url}api/call`, {
      tool: 'read_note',
      arguments: { path: 'todo.md' },
    });
    const call = JSON.parse(response.text);
    expect(call.text).toBe(JSON.stringify({ ok: true, result: { path: 'todo.md', text: 'buy milk' } }));
    expect(call.tokens).toBeGreaterThan(5);
  });

  test('raw broken JSON comes back as invalid_json with its position', async () => {
    const call = JSON.parse(
      (await post(`${studio.url}api/call`, { tool: 'read_note', raw: '{"path": "todo.md",}' })).text,
    );
    const envelope = JSON.parse(call.text);
    expect(envelope.error).toMatchObject({ type: 'invalid_json', line: 1, column: 20 });
  });

  test('the gate denies by the policy, and the audit log says which rule', async () => {
    const call = JSON.parse(
      (await post(`${studio.url}api/call`, { tool: 'delete_note', arguments: { path: 'todo.md' } })).text,
    );
    expect(JSON.parse(call.text).error).toMatchObject({ type: 'permission_denied', rule: 'no-deletes' });
    expect(state.deletes).toBe(0);
    const audit = JSON.parse((await send(`${studio.url}api/audit`)).text);
    expect(audit.at(-1)).toMatchObject({
      tool: 'delete_note',
      outcome: 'permission_denied',
      decision: { rule: 'no-deletes' },
    });
  });

  test.each([
    ['not JSON', '{tool', 'not JSON'],
    ['an array', '[1]', 'Send a JSON object'],
    ['no tool', '{}', 'Give "tool"'],
    ['raw that is not text', '{"tool":"read_note","raw":{}}', '"raw" is the text'],
  ])('a malformed request (%s) is a 400 naming the problem', async (_name, body, message) => {
    const response = await post(`${studio.url}api/call`, body);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text).error.message).toContain(message);
  });

  test('an approval answer that is malformed or for no question says so', async () => {
    expect((await post(`${studio.url}api/approvals/nope`, { action: 'maybe' })).status).toBe(400);
    expect(
      (await post(`${studio.url}api/approvals/nope`, { action: 'allow', scope: 'forever' })).status,
    ).toBe(400);
    expect((await post(`${studio.url}api/approvals/nope`, { action: 'allow' })).status).toBe(404);
  });
});

test('the search ranks tools with the toolpact/search index, by name, description and parameters', async () => {
  const search = async (query: string) =>
    JSON.parse((await send(`${studio.url}api/search?q=${encodeURIComponent(query)}`)).text);
  expect(await search('note read')).toEqual({
    engine: 'index',
    names: ['read_note', 'write_note', 'search_notes', 'delete_note'],
  });
  expect((await search('pinned author')).names[0]).toBe('write_note');
});

test('diffJson matches lines by their text, whatever their indentation', () => {
  expect(diffJson({ a: 1, b: 2 }, { wrapped: { a: 1, c: 3 } })).toEqual([
    { op: ' ', text: '{' },
    { op: '+', text: '  "wrapped": {' },
    { op: ' ', text: '    "a": 1,' },
    { op: '-', text: '  "b": 2' },
    { op: '+', text: '    "c": 3' },
    { op: '+', text: '  }' },
    { op: ' ', text: '}' },
  ]);
});

test('the page is served from the package: every UI file, and the build copies the folder beside the code', async () => {
  const folder = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'studio', 'ui');
  for (const name of readdirSync(folder)) {
    const response = await send(`${studio.url}ui/${name}`);
    expect(response.status, name).toBe(200);
    expect(response.text).toBe(readFileSync(join(folder, name), 'utf8'));
  }
  for (const name of ['preact.mjs', 'hooks.mjs', 'htm.mjs']) {
    expect((await send(`${studio.url}vendor/${name}`)).status).toBe(200);
  }
  expect((await send(`${studio.url}ui/..%2f..%2fstart-studio.ts`)).status).toBe(404);
  const manifest = JSON.parse(readFileSync(join(folder, '..', '..', '..', 'package.json'), 'utf8'));
  expect(manifest.scripts.build).toContain("cpSync('src/studio/ui','dist/studio/ui'");
  expect(manifest.files).toContain('dist');
  expect(manifest.exports['./studio']).toEqual({
    types: './dist/studio/index.d.ts',
    import: './dist/studio/index.js',
    require: './cjs/studio.cjs',
  });
});
