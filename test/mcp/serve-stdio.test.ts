import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fixtureArgs } from '../support/cli-build.js';
import { invalidMessages, type Recording, ROOT, recordingTransport, text } from './support/wire.js';

const SERVER = join(ROOT, 'test', 'fixtures', 'mcp', 'stdio-server.ts');

interface Connected {
  client: Client;
  recording: Recording;
  listChanged: number;
}

async function connect(env: Record<string, string>, elicit?: 'once' | 'deny'): Promise<Connected> {
  const inner = new StdioClientTransport({
    command: process.execPath,
    args: fixtureArgs(SERVER),
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  const { transport, recording } = recordingTransport(inner);
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  const connected: Connected = { client, recording, listChanged: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    connected.listChanged += 1;
  });
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, () =>
      elicit === 'once' ? { action: 'accept', content: { decision: 'once' } } : { action: 'decline' },
    );
  }
  await client.connect(transport);
  return connected;
}

let notes: string;
let main: Connected;

beforeAll(async () => {
  notes = mkdtempSync(join(tmpdir(), 'toolpact-mcp-notes-'));
  main = await connect({ FIXTURE_NOTES_DIR: notes, FIXTURE_PAGE_SIZE: '3' });
});

afterAll(async () => {
  await main?.client.close();
  rmSync(notes, { recursive: true, force: true });
});

describe('serveStdio, seen from the SDK Client', () => {
  test('initialize declares tools with listChanged, and the server info', () => {
    expect(main.client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    expect(main.client.getServerVersion()?.name).toBe('fixture');
  });

  test('tools/list pages in registration order; every tool has a 2020-12 inputSchema and annotations', async () => {
    const first = await main.client.listTools();
    expect(first.tools.map((tool) => tool.name)).toEqual(['echo', 'add', 'count_words']);
    expect(first.nextCursor).toEqual(expect.any(String));
    const names = [...first.tools.map((tool) => tool.name)];
    let cursor = first.nextCursor;
    while (cursor !== undefined) {
      const page = await main.client.listTools({ cursor });
      expect(page.tools.length).toBeLessThanOrEqual(3);
      names.push(...page.tools.map((tool) => tool.name));
      cursor = page.nextCursor;
    }
    expect(names).toEqual([
      'echo',
      'add',
      'count_words',
      'fail',
      'wait_for_cancel',
      'last_cancel',
      'write_note',
      'register_extra',
    ]);
    const echo = first.tools[0]!;
    // Draft 2020-12 is MCP's default dialect, so `$schema` is not sent; only non-default hints are.
    expect(echo.inputSchema).not.toHaveProperty('$schema');
    expect(echo.title).toBe('Echo');
    expect(echo.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(first.tools[1]!.outputSchema).toMatchObject({
      type: 'object',
      properties: { sum: { type: 'number' } },
    });
    // A non-object return contract is published wrapped, as 2025-11-25 requires an object root.
    expect(first.tools[2]!.outputSchema).toMatchObject({ type: 'object', required: ['result'] });
  });

  test('an invalid cursor is a -32602 protocol error', async () => {
    const error = await main.client.listTools({ cursor: 'not-a-cursor' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
  });

  test('a successful call answers the envelope as text and the result as structuredContent', async () => {
    const result = await main.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(text(result))).toEqual({ ok: true, result: { sum: 5 } });
    expect(result.structuredContent).toEqual({ sum: 5 });
    const wrapped = await main.client.callTool({
      name: 'count_words',
      arguments: { text: 'one two  three' },
    });
    expect(wrapped.structuredContent).toEqual({ result: 3 });
  });

  test('invalid arguments come back as isError with the invalid_arguments envelope, not a protocol error', async () => {
    const result = await main.client.callTool({ name: 'add', arguments: { a: 'two' } });
    expect(result.isError).toBe(true);
    const envelope = JSON.parse(text(result));
    expect(envelope.error.type).toBe('invalid_arguments');
    expect(
      envelope.error.issues.map((issue: { path: string; code: string }) => [issue.path, issue.code]),
    ).toEqual([
      ['$.a', 'invalid_type'],
      ['$.b', 'missing_property'],
    ]);
  });

  test("a tool's own failure is isError with its type and hint", async () => {
    const result = await main.client.callTool({ name: 'fail', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.parse(text(result)).error).toMatchObject({ type: 'fixture_failure', hint: 'Do not retry.' });
  });

  test('an omitted arguments object is treated as {}', async () => {
    const result = await main.client.callTool({ name: 'last_cancel' });
    expect(result.isError).toBeUndefined();
  });

  test('an unknown tool is a -32602 protocol error that names the closest tools', async () => {
    const error = await main.client
      .callTool({ name: 'ech', arguments: {} })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toContain('"echo"');
  });

  test('cancelling a call aborts the tool through its AbortSignal', async () => {
    const controller = new AbortController();
    const pending = main.client.callTool({ name: 'wait_for_cancel', arguments: {} }, CallToolResultSchema, {
      signal: controller.signal,
    });
    const lastCancel = async () =>
      JSON.parse(text(await main.client.callTool({ name: 'last_cancel', arguments: {} }))).result as unknown;
    // Cancel only once the server runs the call.
    for (let attempt = 0; attempt < 200 && (await lastCancel()) !== 'running'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort('test cancels');
    await expect(pending).rejects.toThrow();
    let seen = await lastCancel();
    for (let attempt = 0; attempt < 200 && seen === 'running'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      seen = await lastCancel();
    }
    expect(seen).toBe(true);
    expect(
      main.recording.sent.some(
        (message) => 'method' in message && message.method === 'notifications/cancelled',
      ),
    ).toBe(true);
  });

  test('a write the gate asks about is denied when the client cannot elicit, and nothing is written', async () => {
    const result = await main.client.callTool({
      name: 'write_note',
      arguments: { file: 'a.txt', text: 'hi' },
    });
    expect(result.isError).toBe(true);
    expect(JSON.parse(text(result)).error).toMatchObject({
      type: 'permission_denied',
      rule: 'fixture-write',
    });
    expect(readdirSync(notes)).toEqual([]);
  });

  test('registering a tool sends notifications/tools/list_changed, and the new tool is listed', async () => {
    const before = main.listChanged;
    await main.client.callTool({ name: 'register_extra', arguments: {} });
    for (let attempt = 0; attempt < 50 && main.listChanged === before; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(main.listChanged).toBe(before + 1);
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await main.client.listTools(cursor === undefined ? undefined : { cursor });
      names.push(...page.tools.map((tool) => tool.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(names.at(-1)).toBe('extra_tool');
  });

  test('every message either side sent validates against the MCP 2025-11-25 schema', () => {
    expect(main.recording.sent.length).toBeGreaterThan(10);
    expect(invalidMessages('client', main.recording)).toEqual([]);
    expect(
      invalidMessages('server', { sent: main.recording.received, received: main.recording.sent }),
    ).toEqual([]);
  });
});

describe('approval through elicitation over stdio', () => {
  test('an approving client lets the write through; a declining one keeps it out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolpact-mcp-elicit-'));
    try {
      const approving = await connect({ FIXTURE_NOTES_DIR: dir }, 'once');
      const allowed = await approving.client.callTool({
        name: 'write_note',
        arguments: { file: 'ok.txt', text: 'x' },
      });
      expect(JSON.parse(text(allowed))).toMatchObject({ ok: true, result: { written: 'ok.txt' } });
      expect(
        approving.recording.received.some((m) => 'method' in m && m.method === 'elicitation/create'),
      ).toBe(true);
      expect(invalidMessages('client', approving.recording)).toEqual([]);
      expect(
        invalidMessages('server', { sent: approving.recording.received, received: approving.recording.sent }),
      ).toEqual([]);
      await approving.client.close();

      const declining = await connect({ FIXTURE_NOTES_DIR: dir }, 'deny');
      const denied = await declining.client.callTool({
        name: 'write_note',
        arguments: { file: 'no.txt', text: 'x' },
      });
      expect(JSON.parse(text(denied)).error).toMatchObject({ type: 'permission_denied' });
      await declining.client.close();
      expect(readdirSync(dir)).toEqual(['ok.txt']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
