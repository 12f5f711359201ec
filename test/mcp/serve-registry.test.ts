import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import {
  type CallRecord,
  defineTool,
  type PendingApproval,
  principalOf,
  Registry,
  type RegistryOptions,
  toolIdentity,
} from '../../src/index.js';
import {
  mcpContextOf,
  type RegistryServer,
  ServeRegistryError,
  type ServingStore,
  serveRegistry,
} from '../../src/mcp/index.js';
import { definePolicy, openAuditLog } from '../../src/policy/index.js';
import { connectAs as connectOverMcp } from '../support/mcp-caller.js';
import { text } from './support/wire.js';

const sent: string[] = [];

const tools = [
  defineTool({
    name: 'read_notes',
    description: 'Read the team notes and return them as text. Reads only; it changes nothing.',
    category: 'read',
    input: z.object({}),
    execute: () => 'ship on friday',
  }),
  defineTool({
    name: 'send_email',
    description: 'Send an email message to one recipient address. The message leaves the company.',
    category: 'write',
    input: z.object({ to: z.string().describe('The recipient address.') }),
    execute: ({ to }) => {
      sent.push(to);
      return { sent: to };
    },
  }),
];

/**
 * A store kept in memory, with the parts serving takes: an audit log whose records are committed
 * asynchronously, and an approval queue that a person decides by id.
 */
function memoryStore() {
  const committed: CallRecord[] = [];
  const pending = new Map<string, { readonly key: string; readonly principal: string | undefined }>();
  const approved = new Set<string>();
  let asked = 0;
  const keyOf = (request: PendingApproval) =>
    JSON.stringify([toolIdentity(request.tool, request.meta, request.state).key, request.arguments]);
  const store = {
    audit: {
      observe: async (record: CallRecord) => {
        await Promise.resolve();
        committed.push(record);
      },
    },
    approvalQueue: (policy): NonNullable<RegistryOptions['approvalQueue']> => {
      const queued = new Set(policy.rules.filter((rule) => rule.approver === 'queue').map((rule) => rule.id));
      return (request) => {
        if (!queued.has(request.decision.rule ?? '')) return undefined;
        const key = keyOf(request);
        if (approved.delete(key)) return { action: 'allow' };
        const id = `apr_${++asked}`;
        pending.set(id, { key, principal: principalOf(request.state)?.subject });
        return { action: 'pause', approval: id, message: `waiting for approval ${id}` };
      };
    },
  } satisfies ServingStore;
  return {
    store,
    committed,
    pending,
    approve(id: string) {
      const entry = pending.get(id);
      if (!entry) throw new Error(`no pending approval ${id}`);
      pending.delete(id);
      approved.add(entry.key);
    },
  };
}

function envelopeOf(result: unknown) {
  return JSON.parse(text(result as Parameters<typeof text>[0])) as {
    ok: boolean;
    result?: unknown;
    error?: { type: string; approval?: string };
  };
}

describe('serveRegistry over Streamable HTTP, with an audit log, a store and search', () => {
  let folder: string;
  let server: RegistryServer;
  let client: Client;
  const memory = memoryStore();
  let audit: ReturnType<typeof openAuditLog>;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'toolpact-serve-registry-'));
    audit = openAuditLog(join(folder, 'audit.jsonl'));
    server = await serveRegistry(new Registry().register(tools), {
      policy: definePolicy({
        rules: [
          { id: 'read', action: 'allow', tool: 'read_notes' },
          {
            id: 'mail',
            action: 'ask',
            tool: 'send_email',
            approver: 'queue',
            reason: 'it leaves the company',
          },
        ],
      }),
      audit,
      store: memory.store,
      search: { alwaysLoaded: ['read_notes'] },
      name: 'library-served',
      http: { port: 0 },
      env: {},
    });
    client = new Client({ name: 'library-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url!)));
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
    audit?.close();
    await rm(folder, { recursive: true, force: true });
  });

  test('serves on the bound URL under the name given, listing the always-loaded tool and search_tools', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.http?.port).toBeGreaterThan(0);
    expect(client.getServerVersion()?.name).toBe('library-served');
    const listed = await client.listTools();
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(['read_notes', 'search_tools']);
    expect(server.requestState.ephemeral).toBe(true);
  });

  test('a search finds the tool that is not listed', async () => {
    const found = envelopeOf(
      await client.callTool({ name: 'search_tools', arguments: { query: 'send email' } }),
    );
    expect(found.ok).toBe(true);
    expect(JSON.stringify(found.result)).toContain('send_email');
    expect(server.search?.activeTools()).toContain('send_email');
  });

  test('an ask goes to the store queue, and once approved the same call runs once', async () => {
    const asked = envelopeOf(
      await client.callTool({ name: 'send_email', arguments: { to: 'ops@example.com' } }),
    );
    expect(asked).toMatchObject({ ok: false, error: { type: 'approval_pending', approval: 'apr_1' } });
    expect(sent).toEqual([]);
    // Nothing authenticated this HTTP client: it asks as the local process, whatever it calls itself.
    expect(memory.pending.get('apr_1')?.principal).toBeUndefined();
    memory.approve('apr_1');
    const ran = envelopeOf(
      await client.callTool({ name: 'send_email', arguments: { to: 'ops@example.com' } }),
    );
    expect(ran).toEqual({ ok: true, result: { sent: 'ops@example.com' } });
    expect(sent).toEqual(['ops@example.com']);
    const again = envelopeOf(
      await client.callTool({ name: 'send_email', arguments: { to: 'ops@example.com' } }),
    );
    expect(again).toMatchObject({ ok: false, error: { type: 'approval_pending', approval: 'apr_2' } });
    expect(sent).toEqual(['ops@example.com']);
  });

  test('every call is written to the JSON Lines audit log and committed to the store', async () => {
    const calls = memory.committed.map((record) => `${record.tool}:${record.outcome}`);
    expect(calls).toEqual([
      'search_tools:ok',
      'send_email:approval_pending',
      'send_email:ok',
      'send_email:approval_pending',
    ]);
    expect(audit.written()).toBe(4);
    const lines = (await readFile(join(folder, 'audit.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).tool)).toEqual([
      'search_tools',
      'send_email',
      'send_email',
      'send_email',
    ]);
  });
});

describe('serveRegistry refuses what it cannot serve, and closes what it built', () => {
  test('an always-loaded name that is not served is refused, naming the served tools', async () => {
    let closed = 0;
    const failure = await serveRegistry(
      (options) => {
        const registry = new Registry(options).register(tools);
        registry.own(() => void closed++);
        return { registry };
      },
      { search: { alwaysLoaded: ['read_note'] }, http: { port: 0 }, env: {} },
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServeRegistryError);
    expect(failure).toMatchObject({
      code: 'unknown_tool',
      detail: { tool: 'read_note', served: ['read_notes', 'send_email'] },
    });
    expect((failure as Error).message).toContain('"read_note"');
    expect(closed).toBe(1);
  });

  test('an address already in use is cannot_listen, with the address', async () => {
    const first = await serveRegistry(new Registry().register(tools), { http: { port: 0 }, env: {} });
    try {
      const failure = await serveRegistry(new Registry().register(tools), {
        http: { port: first.http!.port },
        env: {},
      }).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'cannot_listen' });
      expect((failure as Error).message).toContain(`127.0.0.1:${first.http!.port}`);
    } finally {
      await first.close();
    }
    await expect(first.closed).resolves.toBeUndefined();
  });
});

describe('principalOf', () => {
  const whoami = defineTool({
    name: 'whoami',
    description: 'Say who this call is from, as the server can tell, and the name the client reports.',
    category: 'read',
    input: z.object({}),
    execute: (_args, { state }) => ({
      principal: principalOf(state)?.subject ?? null,
      reported: mcpContextOf(state)?.clientInfo?.name ?? null,
    }),
  });

  /** The client side of an in-memory pair; with `clientId`, every message carries that `authInfo`. */
  const connectAs = (name: string, clientId?: string) =>
    connectOverMcp(new Registry().register(whoami), name, clientId);

  test("with the transport's authInfo, it is the authenticated client id", async () => {
    const client = await connectAs('whatever', 'alice');
    const answer = envelopeOf(await client.callTool({ name: 'whoami', arguments: {} }));
    expect(answer.result).toEqual({ principal: 'alice', reported: 'whatever' });
    await client.close();
  });

  test('without it, it is the local process, and a client reporting clientInfo.name "admin" is not anyone', async () => {
    const client = await connectAs('admin');
    const answer = envelopeOf(await client.callTool({ name: 'whoami', arguments: {} }));
    expect(answer.result).toEqual({ principal: null, reported: 'admin' });
    await client.close();
  });

  test('a call made in this process is the local process', async () => {
    expect(principalOf(undefined)).toBeUndefined();
    expect(await new Registry().register(whoami).call('whoami', {})).toEqual({
      ok: true,
      result: { principal: null, reported: null },
    });
  });
});
