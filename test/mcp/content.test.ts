// Content blocks through the MCP face, in process over real HTTP: a registry's own `toolResult` tools
// and tools imported from an upstream server of another make (the SDK's low-level Server), served
// again by `serveHttp`, the way the gateway composes them. Both eras: the v1 SDK Client (2025-11-25)
// and the v2 Client pinned to 2026-07-28.
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { content, defineTool, Registry, ToolError, toolResult } from '../../src/index.js';
import { importMcpTools, type McpImport, type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).toString('base64');
const WAV = Buffer.from('RIFF\0\0\0\0WAVE').toString('base64');
const MAX_BINARY_BYTES = 1_024;

// What the upstream answers, as another server's code would write it (annotations and _meta included).
const SHOT = {
  content: [
    { type: 'text', text: 'Here is the page:', annotations: { audience: ['user'] } },
    { type: 'image', data: PNG, mimeType: 'image/png' },
    { type: 'audio', data: WAV, mimeType: 'audio/wav' },
    { type: 'resource_link', uri: 'file:///page.html', name: 'page.html', mimeType: 'text/html' },
    { type: 'resource', resource: { uri: 'test://dom', mimeType: 'text/html', text: '<h1>hi</h1>' } },
  ],
  _meta: { 'example.com/trace': 'abc' },
};
const FAILED = {
  isError: true,
  content: [
    { type: 'text', text: 'The disk is full.' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
  ],
  _meta: { 'example.com/code': 28 },
};
const SHAPED = { content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } };
const BIG = {
  content: [
    { type: 'image', data: Buffer.alloc(MAX_BINARY_BYTES + 1).toString('base64'), mimeType: 'image/png' },
  ],
};

/** A server of another make, in memory: the SDK's low-level Server answering fixed results. */
async function upstream() {
  const server = new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
  const empty = { type: 'object' as const, properties: {} };
  server.setRequestHandler('tools/list', () => ({
    tools: [
      { name: 'shot', description: 'Takes a picture of the page.', inputSchema: empty },
      { name: 'fails', description: 'Fails with a picture of the error.', inputSchema: empty },
      {
        name: 'shaped',
        description: 'Answers a count.',
        inputSchema: empty,
        outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      },
      { name: 'big', description: 'Answers a large picture.', inputSchema: empty },
      { name: 'secret', description: 'Answers a secret.', inputSchema: empty },
    ],
  }));
  // The upstream's own hop keys (its server info) describe its connection, not the result: not passed on.
  const shot = {
    ...SHOT,
    _meta: { ...SHOT._meta, 'io.modelcontextprotocol/serverInfo': { name: 'upstream', version: '1' } },
  };
  const answers: Record<string, unknown> = { shot, fails: FAILED, shaped: SHAPED, big: BIG };
  server.setRequestHandler(
    'tools/call',
    (request) => (answers[request.params.name] ?? { content: [{ type: 'text', text: 's3cr3t' }] }) as never,
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return { server, transport: clientSide };
}

const localTools = [
  defineTool({
    name: 'chart',
    description: 'Draws a chart.',
    category: 'read',
    input: z.object({}),
    execute: () =>
      toolResult({
        content: [
          content.text('The chart:'),
          content.image(PNG, 'image/png'),
          content.resourceLink({ uri: 'file:///chart.csv', name: 'chart.csv' }),
        ],
        structuredContent: { points: 3 },
      }),
  }),
  defineTool({
    name: 'measured',
    description: 'Draws a chart and says its width.',
    category: 'read',
    input: z.object({}),
    output: z.object({ width: z.number() }),
    execute: () =>
      toolResult({ content: [content.image(PNG, 'image/png')], structuredContent: { width: 3 } }) as never,
  }),
  defineTool({
    name: 'broken',
    description: 'Always fails.',
    category: 'read',
    input: z.object({}),
    execute: () => {
      throw new ToolError('The plotter is offline.', { type: 'plotter_offline' });
    },
  }),
];

let running: RunningHttpServer;
let registry: Registry;
let imported: McpImport;
let closeUpstream: () => Promise<void>;
const seenByWrapper: string[] = [];

beforeAll(async () => {
  registry = new Registry({
    maxBinaryBytes: MAX_BINARY_BYTES,
    beforeCall: (request) =>
      request.tool.name === 'secret'
        ? { action: 'deny', reason: 'secrets stay with their server' }
        : undefined,
  }).register(localTools);
  registry.wrapCalls(async (_call, run) => {
    const end = await run();
    seenByWrapper.push(JSON.stringify(end));
  });
  const remote = await upstream();
  closeUpstream = () => remote.server.close();
  imported = await importMcpTools(registry, { transport: remote.transport }, { name: 'upstream' });
  running = await serveHttp(registry, { name: 'content-test' });
});

afterAll(async () => {
  await running?.close();
  await imported?.close();
  await closeUpstream?.();
});

type Call = (name: string) => Promise<Record<string, unknown>>;

/** The result without the served connection's own server info, which the 2026-07-28 SDK adds to every result. */
function withoutServerInfo(result: Record<string, unknown>): Record<string, unknown> {
  const { _meta: meta, ...rest } = result as { _meta?: Record<string, unknown> };
  const { 'io.modelcontextprotocol/serverInfo': _ours, ...kept } = meta ?? {};
  return Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest;
}

async function legacy(): Promise<{ call: Call; close: () => Promise<void> }> {
  const client = new LegacyClient({ name: 'legacy', version: '1.0.0' });
  await client.connect(new LegacyTransport(new URL(running.url)));
  return {
    call: async (name) => (await client.callTool({ name, arguments: {} })) as Record<string, unknown>,
    close: () => client.close(),
  };
}

async function modern(): Promise<{ call: Call; close: () => Promise<void> }> {
  const client = new ModernClient(
    { name: 'modern', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(new URL(running.url)));
  expect(client.getProtocolEra()).toBe('modern');
  return {
    call: async (name) =>
      withoutServerInfo((await client.callTool({ name, arguments: {} })) as Record<string, unknown>),
    close: () => client.close(),
  };
}

describe.each([
  ['2025-11-25', legacy],
  ['2026-07-28', modern],
] as const)('revision %s', (_revision, connect) => {
  let client: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  test('a toolResult goes out as its MCP blocks and structured value', async () => {
    expect(await client.call('chart')).toEqual({
      content: [
        { type: 'text', text: 'The chart:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///chart.csv', name: 'chart.csv' },
      ],
      structuredContent: { points: 3 },
    });
    expect(await client.call('measured')).toEqual({
      content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
      structuredContent: { width: 3 },
    });
  });

  test("an imported tool's result reaches the client as the upstream sent it", async () => {
    expect(await client.call('shot')).toEqual(SHOT);
    expect(await client.call('shaped')).toEqual(SHAPED);
  });

  test("an upstream's isError result passes with its blocks and _meta, not as an envelope", async () => {
    expect(await client.call('fails')).toEqual(FAILED);
  });

  test("the registry's own refusal and a local tool's failure stay envelopes, flagged isError", async () => {
    const denied = await client.call('secret');
    expect(denied.isError).toBe(true);
    expect(denied.content).toHaveLength(1);
    const [block] = denied.content as [{ type: string; text: string }];
    expect(JSON.parse(block.text)).toMatchObject({
      ok: false,
      error: { type: 'permission_denied', reason: 'secrets stay with their server' },
    });
    expect(JSON.stringify(denied)).not.toContain('s3cr3t');
    const broken = await client.call('broken');
    expect(broken.isError).toBe(true);
    expect(JSON.parse((broken.content as [{ text: string }])[0].text)).toMatchObject({
      ok: false,
      error: { type: 'plotter_offline' },
    });
  });

  test('an upstream image over the binary limit is replaced by a text block that says so', async () => {
    const big = await client.call('big');
    expect(big).toEqual({
      content: [
        {
          type: 'text',
          text: expect.stringMatching(
            /an image \(image\/png\) of 1025 bytes was left out: .* at most 1024 bytes/,
          ),
        },
      ],
    });
  });
});

test('registry.call on an imported tool keeps the envelope; wrappers see the envelope alone', async () => {
  expect(await registry.call('shot', {})).toEqual({ ok: true, result: SHOT.content });
  const failed = await registry.call('fails', {});
  expect(failed).toMatchObject({
    ok: false,
    error: { type: 'mcp_tool_error', message: 'The disk is full.' },
  });
  expect(await registry.call('shaped', {})).toEqual({ ok: true, result: { n: 1 } });
  // The wrapper's record of a failed call carries the envelope's words, never the upstream's picture.
  const failedRecords = seenByWrapper.filter((seen) => seen.includes('The disk is full.'));
  expect(failedRecords.length).toBeGreaterThan(0);
  for (const seen of failedRecords) expect(seen).not.toContain(PNG);
});
