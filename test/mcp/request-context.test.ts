import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolResultSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import { createMcpServer, type McpServerOptions, mcpContextOf } from '../../src/mcp/index.js';
import { text } from './support/wire.js';

const chatty = defineTool({
  name: 'chatty',
  description: 'Report progress twice, log at debug and at warning, and say what state it saw.',
  category: 'read',
  input: z.object({}),
  execute: async (_args, { state }) => {
    const mcp = mcpContextOf(state);
    await mcp?.progress(1, 2, 'half');
    await mcp?.progress(2, 2);
    await mcp?.log('debug', 'details');
    await mcp?.log('warning', { note: 'careful' });
    return {
      over: mcp ? 'mcp' : 'direct',
      user: (state as { user?: string } | undefined)?.user ?? null,
      client: mcp?.clientInfo?.name ?? null,
    };
  },
});

async function connected(options: McpServerOptions = {}) {
  const registry = new Registry().register(chatty);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(registry, options).connect(serverSide);
  const client = new Client({ name: 'context-test', version: '1' });
  const logs: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push(notification.params);
  });
  await client.connect(clientSide);
  return { client, logs, registry };
}

test('progress is sent only when the client asked for it, with the message', async () => {
  const { client } = await connected();
  const progress: { progress: number; total?: number; message?: string }[] = [];
  const result = await client.callTool({ name: 'chatty', arguments: {} }, CallToolResultSchema, {
    onprogress: (update) => progress.push(update),
  });
  expect(progress).toEqual([
    { progress: 1, total: 2, message: 'half' },
    { progress: 2, total: 2 },
  ]);
  expect(JSON.parse(text(result)).result).toEqual({ over: 'mcp', user: null, client: 'context-test' });
  await client.close();
});

test("logs honour the client's logging/setLevel", async () => {
  const { client, logs } = await connected();
  await client.callTool({ name: 'chatty', arguments: {} });
  expect(logs.map((entry) => entry.level)).toEqual(['debug', 'warning']);
  await client.setLoggingLevel('warning');
  await client.callTool({ name: 'chatty', arguments: {} });
  expect(logs.map((entry) => entry.level)).toEqual(['debug', 'warning', 'warning']);
  expect(logs.at(-1)!.data).toEqual({ note: 'careful' });
  await client.close();
});

test('a state of your own keeps the context reachable as state.mcp; a direct call has none', async () => {
  const { client, registry } = await connected({ state: (mcp) => ({ user: 'ada', mcp }) });
  const result = await client.callTool({ name: 'chatty', arguments: {} });
  expect(JSON.parse(text(result)).result).toEqual({ over: 'mcp', user: 'ada', client: 'context-test' });
  expect(await registry.call('chatty', {})).toEqual({
    ok: true,
    result: { over: 'direct', user: null, client: null },
  });
  await client.close();
});

test('a state function that throws is an internal error that tells the client nothing of it', async () => {
  const { client } = await connected({
    state: () => {
      throw new Error('secret at /home/ada/.config');
    },
  });
  const error = await client.callTool({ name: 'chatty', arguments: {} }).catch((caught: unknown) => caught);
  expect((error as { code?: number }).code).toBe(-32603);
  expect(String((error as Error).message)).not.toContain('secret');
  await client.close();
});
