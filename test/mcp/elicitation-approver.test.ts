import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, test } from 'vitest';
import * as z from 'zod';
import { type Approver, defineTool, Registry } from '../../src/index.js';
import { createMcpServer, elicitationApprover } from '../../src/mcp/index.js';
import { text } from './support/wire.js';

function setup(
  approver: Approver,
  answer?: (request: { params: { message: string; requestedSchema: unknown } }) => ElicitResult,
) {
  let runs = 0;
  const registry = new Registry({
    beforeCall: () => ({ action: 'ask', reason: 'it deletes', rule: 'ask-everything' }),
    approver,
  }).register(
    defineTool({
      name: 'delete_note',
      description: 'Delete a note.',
      category: 'write',
      input: z.object({ file: z.string() }),
      execute: () => {
        runs += 1;
        return 'deleted';
      },
    }),
  );
  const asked: { message: string; requestedSchema: unknown }[] = [];
  const client = new Client({ name: 't', version: '1' }, { capabilities: answer ? { elicitation: {} } : {} });
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const params = request.params as { message: string; requestedSchema: unknown };
      asked.push(params);
      return answer({ params });
    });
  }
  const connect = async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(registry).connect(serverSide);
    await client.connect(clientSide);
  };
  const call = async () =>
    JSON.parse(text(await client.callTool({ name: 'delete_note', arguments: { file: 'a.txt' } })));
  return { connect, call, asked, runs: () => runs, close: () => client.close() };
}

test('"session" is offered without an MCP session id, and remembered: the second call is not asked', async () => {
  const session = setup(elicitationApprover(), () => ({
    action: 'accept',
    content: { decision: 'session' },
  }));
  await session.connect();
  expect(await session.call()).toEqual({ ok: true, result: 'deleted' });
  expect(await session.call()).toEqual({ ok: true, result: 'deleted' });
  expect(session.asked).toHaveLength(1);
  expect(session.asked[0]!.message).toContain('"delete_note" (write)');
  expect(session.asked[0]!.message).toContain('(it deletes)');
  expect(session.asked[0]!.message).toContain('{"file":"a.txt"}');
  expect(session.asked[0]!.requestedSchema).toMatchObject({
    properties: { decision: { enum: ['once', 'session', 'deny'] } },
  });
  expect(session.runs()).toBe(2);
  await session.close();
});

test('deny, decline, cancel and an answer outside the choices all deny, and the tool never runs', async () => {
  for (const answer of [
    { action: 'accept', content: { decision: 'deny' } },
    { action: 'decline' },
    { action: 'cancel' },
    { action: 'accept', content: { decision: 'always' } },
  ] as ElicitResult[]) {
    const run = setup(elicitationApprover(), () => answer);
    await run.connect();
    expect((await run.call()).error).toMatchObject({ type: 'permission_denied', rule: 'ask-everything' });
    expect(run.runs()).toBe(0);
    await run.close();
  }
});

test('without elicitation on the client, the fallback decides; without a fallback, the call is denied', async () => {
  const withFallback = setup(elicitationApprover({ fallback: () => ({ action: 'allow' }) }));
  await withFallback.connect();
  expect(await withFallback.call()).toEqual({ ok: true, result: 'deleted' });
  await withFallback.close();

  const without = setup(elicitationApprover());
  await without.connect();
  const denied = await without.call();
  expect(denied.error.type).toBe('permission_denied');
  expect(denied.error.reason).toContain('cannot ask the user');
  await without.close();
});

test('outside MCP (a direct registry call) there is nobody to ask', async () => {
  const registry = new Registry({
    beforeCall: () => ({ action: 'ask' }),
    approver: elicitationApprover(),
  }).register(
    defineTool({ name: 't', description: 'x.', category: 'write', input: z.object({}), execute: () => 1 }),
  );
  expect(await registry.call('t', {})).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
});

test('secrets in the arguments are masked in the question put to the user', async () => {
  const asked: string[] = [];
  const registry = new Registry({
    beforeCall: () => ({ action: 'ask' }),
    approver: elicitationApprover(),
  }).register(
    defineTool({
      name: 'login',
      description: 'Log in.',
      category: 'write',
      input: z.object({ user: z.string(), password: z.string() }),
      execute: () => 'in',
    }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(registry).connect(serverSide);
  const client = new Client({ name: 't', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push((request.params as { message: string }).message);
    return { action: 'decline' };
  });
  await client.connect(clientSide);
  await client.callTool({ name: 'login', arguments: { user: 'ada', password: 'hunter2' } });
  expect(asked).toHaveLength(1);
  expect(asked[0]).toContain('"user":"ada"');
  expect(asked[0]).not.toContain('hunter2');
  await client.close();
});
