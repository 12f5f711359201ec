import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, Registry, ToolDefinitionError } from '../../src/index.js';
import { importMcpTools, type McpImport, serveHttp } from '../../src/mcp/index.js';
import { fixtureRegistry } from '../fixtures/mcp/tools.js';
import { fixtureArgs } from '../support/cli-build.js';
import { type Recording, ROOT, recordingTransport } from './support/wire.js';
import { invalidClientMessagesByEra } from './support/wire-eras.js';

const SERVER = join(ROOT, 'test', 'fixtures', 'mcp', 'stdio-server.ts');

function fixtureTransport(env: Record<string, string> = {}) {
  return recordingTransport(
    new StdioClientTransport({
      command: process.execPath,
      args: fixtureArgs(SERVER),
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stderr: 'pipe',
    }),
  );
}

const sentCalls = (recording: Recording) =>
  recording.sent.filter((message) => 'method' in message && message.method === 'tools/call').length;

describe('importMcpTools from a toolpact server over stdio', () => {
  let notes: string;
  let registry: Registry;
  let imported: McpImport;
  let recording: Recording;

  beforeAll(async () => {
    notes = mkdtempSync(join(tmpdir(), 'toolpact-import-notes-'));
    const localEcho = defineTool({
      name: 'echo',
      description: 'The local echo: return the text unchanged.',
      category: 'read',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => `local:${text}`,
    });
    registry = new Registry({
      // The local policy decides by source, whatever the remote annotations claim.
      beforeCall: ({ tool, meta }) =>
        meta.source === 'mcp:fixture' && tool.category === 'write' && tool.name !== 'register_extra'
          ? { action: 'deny', reason: 'imported write tools are not allowed here', rule: 'no-remote-writes' }
          : undefined,
    }).register(localEcho);
    const wired = fixtureTransport({ FIXTURE_NOTES_DIR: notes, FIXTURE_PAGE_SIZE: '2' });
    recording = wired.recording;
    imported = await importMcpTools(registry, { transport: wired.transport });
  });

  afterAll(async () => {
    await imported?.close();
    rmSync(notes, { recursive: true, force: true });
  });

  test('every remote tool is registered (all pages), a colliding name gets the server prefix', () => {
    expect(imported.server).toBe('fixture');
    expect(imported.tools().map((tool) => [tool.remoteName, tool.name, tool.renamed ?? null])).toEqual([
      ['echo', 'fixture_echo', 'collision'],
      ['add', 'add', null],
      ['count_words', 'count_words', null],
      ['fail', 'fail', null],
      ['wait_for_cancel', 'wait_for_cancel', null],
      ['last_cancel', 'last_cancel', null],
      ['write_note', 'write_note', null],
      ['register_extra', 'register_extra', null],
    ]);
    expect(imported.skipped()).toEqual([]);
    expect(registry.get('echo')?.meta.source).toBeUndefined();
    expect(registry.get('fixture_echo')?.meta).toMatchObject({ source: 'mcp:fixture', remoteName: 'echo' });
  });

  test('the contract comes from the remote tool; the category is inferred from its annotations', () => {
    const add = registry.get('add')!.contract;
    expect(add.category).toBe('read');
    expect(add.effects).toEqual({ readOnly: true, destructive: false, idempotent: true, openWorld: false });
    expect(add.returns?.schema).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } } });
    expect(add.parameters).not.toHaveProperty('$schema');
    expect(registry.get('write_note')!.contract.category).toBe('write');
  });

  test('a call goes to the remote tool and comes back as our envelope', async () => {
    expect(await registry.call('add', { a: 4, b: 5 })).toEqual({ ok: true, result: { sum: 9 } });
    expect(await registry.call('fixture_echo', { text: 'hi' })).toEqual({ ok: true, result: 'hi' });
    expect(await registry.call('echo', { text: 'hi' })).toEqual({ ok: true, result: 'local:hi' });
  });

  test('arguments are validated locally: a bad call never reaches the server', async () => {
    const before = sentCalls(recording);
    const envelope = await registry.call('add', { a: 'four' });
    expect(envelope.ok).toBe(false);
    if (envelope.ok) return;
    expect(envelope.error.type).toBe('invalid_arguments');
    expect(sentCalls(recording)).toBe(before);
  });

  test("a remote isError stays an error envelope, keeping the remote tool's type", async () => {
    const envelope = await registry.call('fail', {});
    expect(envelope).toMatchObject({ ok: false, error: { type: 'fixture_failure', hint: 'Do not retry.' } });
  });

  test('a write the local gate denies is never sent, and nothing is written', async () => {
    const before = sentCalls(recording);
    const envelope = await registry.call('write_note', { file: 'x.txt', text: 'no' });
    expect(envelope).toMatchObject({
      ok: false,
      error: { type: 'permission_denied', rule: 'no-remote-writes' },
    });
    expect(sentCalls(recording)).toBe(before);
    expect(readdirSync(notes)).toEqual([]);
  });

  test("the server's list_changed is followed: a tool added there appears here", async () => {
    let changes = 0;
    const stop = registry.onChange(() => {
      changes += 1;
    });
    await registry.call('register_extra', {});
    for (let attempt = 0; attempt < 200 && !registry.has('extra_tool'); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    stop();
    expect(registry.get('extra_tool')?.meta.source).toBe('mcp:fixture');
    expect(changes).toBeGreaterThanOrEqual(1);
    expect(await registry.call('extra_tool', {})).toEqual({ ok: true, result: 'extra' });
  });

  test('every message we sent validates against the MCP schema of its revision', () => {
    expect(invalidClientMessagesByEra(recording)).toEqual([]);
  });

  test('close() removes the imported tools and keeps the local ones', async () => {
    const wired = fixtureTransport();
    const other = new Registry();
    const second = await importMcpTools(
      other,
      { transport: wired.transport },
      { name: 'second', prefix: 'always' },
    );
    expect(other.list().map((tool) => tool.contract.name)).toContain('second_add');
    await second.close();
    expect(other.size).toBe(0);
  });
});

test('a server reached by URL (Streamable HTTP) is imported the same way', async () => {
  const running = await serveHttp(fixtureRegistry(undefined), { name: 'over-http' });
  const registry = new Registry();
  try {
    const imported = await importMcpTools(registry, { url: running.url });
    expect(imported.server).toBe('over-http');
    expect(registry.get('add')?.meta.source).toBe('mcp:over-http');
    expect(await registry.call('add', { a: 1, b: 1 })).toEqual({ ok: true, result: { sum: 2 } });
    await imported.close();
  } finally {
    await running.close();
  }
});

test('prefix "never" reports a taken name as skipped instead of renaming it', async () => {
  const registry = new Registry().register(
    defineTool({
      name: 'add',
      description: 'Local add.',
      category: 'read',
      input: z.object({}),
      execute: () => 0,
    }),
  );
  const wired = fixtureTransport();
  const imported = await importMcpTools(registry, { transport: wired.transport }, { prefix: 'never' });
  try {
    expect(imported.skipped()).toEqual([expect.objectContaining({ remoteName: 'add', code: 'name_taken' })]);
    expect(registry.get('add')?.meta.source).toBeUndefined();
  } finally {
    await imported.close();
  }
});

test('a server that cannot be started is a ToolDefinitionError that says what was tried', async () => {
  const error = await importMcpTools(new Registry(), {
    command: process.execPath,
    args: ['-e', 'process.stderr.write("boom: no config\\n"); process.exit(3)'],
  }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ToolDefinitionError);
  expect((error as ToolDefinitionError).message).toMatch(/Could not connect to the MCP server started by/);
  // What the server wrote to stderr is part of the message.
  expect((error as ToolDefinitionError).message).toContain('boom: no config');
});
