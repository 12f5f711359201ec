// What the servers behind the gateway ask of its clients: sampling (under the policy), elicitation,
// roots, progress, cancellation and logs, with the published everything server and a careless legacy
// server, behind one gateway served over HTTP to two SDK clients at once (legacy sessions). Nothing
// an upstream sends back while serving one client's call may reach the other client.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CallRecord } from '../../src/dispatch/call.js';
import { readGatewayConfig } from '../../src/gateway/config/index.js';
import { type Gateway, startGateway } from '../../src/gateway/gateway.js';
import { elicitationApprover, type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';
import { createPolicyGate } from '../../src/policy/index.js';
import { until } from './support.js';

const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
const EVERYTHING = realpathSync(join(dirname(manifest), 'dist/index.js'));
const ASKING = resolve('test/fixtures/gateway/asking-server.mjs');
// Two servers start, each probed for its era: generous on a busy two-core machine.
const TIMEOUT = 60_000;

let dir = '';
let notes = '';
let askingLog = '';
let gateway: Gateway;
let http: RunningHttpServer;
const audit: CallRecord[] = [];
const operatorLog: string[] = [];

/** What one client was asked by the gateway, by kind. */
interface Asked {
  sampling: { messages: unknown[]; maxTokens: number; systemPrompt?: string }[];
  elicitation: { message: string }[];
  approvals: string[];
  roots: number;
  logs: { level: string; logger?: string; data: unknown }[];
}

/** A legacy SDK client of the gateway; `able` says whether it declares sampling, elicitation and roots. */
async function connectClient(able: boolean): Promise<{ client: Client; asked: Asked }> {
  const asked: Asked = { sampling: [], elicitation: [], approvals: [], roots: 0, logs: [] };
  const client = new Client(
    { name: able ? 'able' : 'plain', version: '1.0.0' },
    { capabilities: able ? { sampling: {}, elicitation: { form: {} }, roots: {} } : {} },
  );
  if (able) {
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      asked.sampling.push(request.params as Asked['sampling'][number]);
      return {
        model: 'test-model',
        role: 'assistant',
        content: { type: 'text', text: 'pong from the client' },
      };
    });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      // The gateway's own approval question, for an ask: the user allows it once.
      if (String(request.params.message).startsWith('Allow the MCP server "everything" to ask your model')) {
        asked.approvals.push(String(request.params.message));
        return { action: 'accept', content: { decision: 'once' } };
      }
      asked.elicitation.push({ message: String(request.params.message) });
      return { action: 'accept', content: { name: 'Ada Lovelace', check: true } };
    });
    // The client's own roots, which the gateway must never hand to a server unless the config says so.
    client.setRequestHandler(ListRootsRequestSchema, () => {
      asked.roots++;
      return { roots: [{ uri: 'file:///home/client/secret', name: 'secret' }] };
    });
  }
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    asked.logs.push(notification.params);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  return { client, asked };
}

const textOf = (result: unknown) =>
  ((result as CallToolResult).content ?? [])
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n');

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-back-')));
  notes = join(dir, 'notes');
  mkdirSync(notes);
  askingLog = join(dir, 'asking.log');
  writeFileSync(askingLog, '');
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING], cwd: dir },
        asking: { command: process.execPath, args: [ASKING], env: { ASKING_LOG: askingLog }, cwd: dir },
        passing: { command: process.execPath, args: [ASKING], cwd: dir },
      },
      // everything is answered the notes folder, passing the calling client's own roots; asking none.
      toolpact: {
        servers: { everything: { roots: ['notes'] }, passing: { roots: 'client', prefix: 'always' } },
      },
    }),
  );
  const gate = createPolicyGate({
    rules: [
      {
        id: 'no-long-samples',
        action: 'deny',
        target: 'sampling',
        source: 'mcp:everything',
        when: (subject) => ((subject.arguments as { maxTokens?: number }).maxTokens ?? 0) > 500,
        reason: 'completions past 500 tokens are not given to servers',
      },
      {
        id: 'short-samples',
        action: 'allow',
        target: 'sampling',
        source: 'mcp:everything',
        when: (subject) => ((subject.arguments as { maxTokens?: number }).maxTokens ?? 0) <= 100,
      },
      { id: 'allow-imported', action: 'allow', source: 'mcp:*' },
    ],
  }).registryOptions;
  gateway = await startGateway({
    config: readGatewayConfig(config),
    // An ask is put to the calling client, as the gateway's CLI does.
    registry: { ...gate, approver: elicitationApprover(), observe: (record) => void audit.push(record) },
    audit: (record) => void audit.push(record),
    log: (line) => operatorLog.push(line),
    watch: false,
  });
  http = await serveHttp(gateway.registry, { listing: gateway.listing });
}, TIMEOUT);

afterAll(async () => {
  await http?.close();
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('requests back to the client through the gateway', () => {
  test('both servers are up, and everything offers the tools a client that samples, elicits and lists roots gets', () => {
    expect(gateway.status().map((server) => [server.name, server.state])).toEqual([
      ['everything', 'up'],
      ['asking', 'up'],
      ['passing', 'up'],
    ]);
    const served = gateway.status()[0]!.served;
    expect(served).toEqual(
      expect.arrayContaining(['trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list']),
    );
  });

  test(
    "sampling allowed by a rule reaches the calling client only, and is audited with the server's name",
    async () => {
      const able = await connectClient(true);
      const other = await connectClient(true);
      try {
        const result = await able.client.callTool({
          name: 'trigger-sampling-request',
          arguments: { prompt: 'ping', maxTokens: 100 },
        });
        expect(textOf(result)).toContain('pong from the client');
        expect(able.asked.sampling).toHaveLength(1);
        expect(able.asked.sampling[0]).toMatchObject({ maxTokens: 100, systemPrompt: expect.any(String) });
        expect(JSON.stringify(able.asked.sampling[0]?.messages)).toContain('ping');
        // The other client, connected the whole time, was asked nothing.
        expect(other.asked.sampling).toEqual([]);
        const record = audit.find((each) => each.tool === 'sampling' && each.outcome === 'ok');
        expect(record).toMatchObject({
          category: 'read',
          arguments: { server: 'everything', maxTokens: 100, messages: 1 },
          decision: { action: 'allow', rule: 'short-samples' },
        });
        // The conversation itself is never audited.
        expect(JSON.stringify(record?.arguments)).not.toContain('ping');
      } finally {
        await Promise.all([able.client.close(), other.client.close()]);
      }
    },
    TIMEOUT,
  );

  test(
    'sampling a rule denies never reaches the client; the server is told why',
    async () => {
      const able = await connectClient(true);
      try {
        const result = await able.client.callTool({
          name: 'trigger-sampling-request',
          arguments: { prompt: 'write a novel', maxTokens: 5000 },
        });
        expect(able.asked.sampling).toEqual([]);
        expect(textOf(result)).toContain("The gateway's policy refused");
        expect(textOf(result)).toContain('500 tokens');
        expect(audit).toContainEqual(
          expect.objectContaining({
            tool: 'sampling',
            outcome: 'permission_denied',
            decision: expect.objectContaining({ action: 'deny', rule: 'no-long-samples' }),
          }),
        );
      } finally {
        await able.client.close();
      }
    },
    TIMEOUT,
  );

  test(
    'sampling no rule names is asked of the calling user first, and goes on once allowed',
    async () => {
      const able = await connectClient(true);
      try {
        const result = await able.client.callTool({
          name: 'trigger-sampling-request',
          arguments: { prompt: 'ping', maxTokens: 300 },
        });
        expect(able.asked.approvals).toHaveLength(1);
        expect(able.asked.approvals[0]).toContain('"server":"everything"');
        expect(able.asked.sampling).toHaveLength(1);
        expect(textOf(result)).toContain('pong from the client');
        expect(audit).toContainEqual(
          expect.objectContaining({
            tool: 'sampling',
            outcome: 'ok',
            decision: expect.objectContaining({ action: 'ask', rule: 'default:sampling' }),
          }),
        );
      } finally {
        await able.client.close();
      }
    },
    TIMEOUT,
  );

  test(
    'a client that declared no sampling is never sent it: the server is told the client cannot',
    async () => {
      const plain = await connectClient(false);
      try {
        const result = await plain.client.callTool({
          name: 'trigger-sampling-request',
          arguments: { prompt: 'ping', maxTokens: 100 },
        });
        expect(textOf(result)).toContain('did not declare sampling');
        expect(audit).toContainEqual(
          expect.objectContaining({ tool: 'sampling', outcome: 'sampling_unsupported' }),
        );
      } finally {
        await plain.client.close();
      }
    },
    TIMEOUT,
  );

  test('sampling sent outside any call goes to no client, and is refused to the server', async () => {
    // The careless server asked as soon as the gateway connected, before any client did anything.
    const able = await connectClient(true);
    try {
      await until(() => readFileSync(askingLog, 'utf8').includes('refused'), 'the server heard the refusal');
      expect(readFileSync(askingLog, 'utf8')).toContain('outside any tool call');
      expect(readFileSync(askingLog, 'utf8')).not.toContain('sampled');
      expect(able.asked.sampling).toEqual([]);
      expect(audit).toContainEqual(
        expect.objectContaining({ tool: 'sampling', outcome: 'sampling_unrouted' }),
      );
      // The operator reads who asked.
      expect(operatorLog.join('\n')).toContain(
        'asking: The gateway refuses "sampling/createMessage" from "asking"',
      );
    } finally {
      await able.client.close();
    }
  });

  test(
    "an upstream's elicitation reaches the calling client, naming the server; a client without elicitation declines",
    async () => {
      const able = await connectClient(true);
      const plain = await connectClient(false);
      try {
        const accepted = await able.client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
        expect(able.asked.elicitation).toHaveLength(1);
        expect(able.asked.elicitation[0]?.message).toMatch(/^The MCP server "everything" asks: /);
        expect(textOf(accepted)).toContain('Ada Lovelace');

        const declined = await plain.client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
        expect(textOf(declined).toLowerCase()).toContain('decline');
        expect(able.asked.elicitation).toHaveLength(1);
      } finally {
        await Promise.all([able.client.close(), plain.client.close()]);
      }
    },
    TIMEOUT,
  );

  test(
    "roots/list is answered the config's roots, never the client's own; a server the config gives none is offered none",
    async () => {
      const able = await connectClient(true);
      try {
        const listed = await able.client.callTool({ name: 'get-roots-list', arguments: {} });
        expect(textOf(listed)).toContain(pathToFileURL(notes).href);
        expect(textOf(listed)).not.toContain('secret');
        // The careless server asks anyway: refused by the gateway, the client never asked.
        const refused = await able.client.callTool({ name: 'ask_roots', arguments: {} });
        expect(textOf(refused)).toContain('refused ');
        expect(textOf(refused)).not.toContain('secret');
        expect(textOf(refused)).not.toContain(notes);
        expect(able.asked.roots).toBe(0);
      } finally {
        await able.client.close();
      }
    },
    TIMEOUT,
  );

  test(
    'with roots: "client", the calling client\'s own roots are passed on; a client without roots gets the server a refusal',
    async () => {
      const able = await connectClient(true);
      const plain = await connectClient(false);
      try {
        const passed = await able.client.callTool({ name: 'passing_ask_roots', arguments: {} });
        expect(textOf(passed)).toContain('file:///home/client/secret');
        expect(able.asked.roots).toBe(1);
        const refused = await plain.client.callTool({ name: 'passing_ask_roots', arguments: {} });
        expect(textOf(refused)).toContain('refused ');
        expect(textOf(refused)).not.toContain('secret');
        expect(able.asked.roots).toBe(1);
      } finally {
        await Promise.all([able.client.close(), plain.client.close()]);
      }
    },
    TIMEOUT,
  );

  test(
    "an upstream's progress reaches the client under its own token, and its log messages arrive tagged with the server's name",
    async () => {
      const able = await connectClient(true);
      const other = await connectClient(true);
      try {
        await able.client.setLoggingLevel('debug');
        await other.client.setLoggingLevel('debug');
        const progress: { progress: number; total?: number }[] = [];
        const result = await able.client.callTool(
          { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } },
          undefined,
          { onprogress: (update) => progress.push(update) },
        );
        expect(textOf(result)).toContain('Long running operation completed');
        expect(progress.map((update) => [update.progress, update.total])).toEqual([
          [1, 2],
          [2, 2],
        ]);
        // A log message the server sends while serving the call: to that client, tagged, nowhere else.
        const toggled = await able.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
        expect(textOf(toggled)).toContain('Started simulated');
        await until(() => able.asked.logs.length > 0, 'the log message reached the caller');
        expect(able.asked.logs[0]).toMatchObject({
          logger: 'everything',
          data: expect.stringContaining('message'),
        });
        await able.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
        expect(other.asked.logs).toEqual([]);
      } finally {
        await Promise.all([able.client.close(), other.client.close()]);
      }
    },
    TIMEOUT,
  );

  test(
    "a client's cancellation cancels the upstream request",
    async () => {
      const able = await connectClient(true);
      try {
        const abort = new AbortController();
        const call = able.client.callTool({ name: 'wait', arguments: {} }, undefined, {
          signal: abort.signal,
        });
        await until(() => readFileSync(askingLog, 'utf8').includes('waiting'), 'the server runs the call');
        abort.abort();
        await expect(call).rejects.toThrow();
        await until(
          () => readFileSync(askingLog, 'utf8').includes('cancelled'),
          'the server saw the cancellation',
        );
      } finally {
        await able.client.close();
      }
    },
    TIMEOUT,
  );
  test(
    'a revision 2026-07-28 client is asked in rounds by its own SDK: it answers the form and the model, and what it did not declare is refused with -32021',
    async () => {
      const client = new ModernClient(
        { name: 'modern', version: '1.0.0' },
        {
          capabilities: { elicitation: { form: {} }, sampling: {} },
          versionNegotiation: { mode: { pin: '2026-07-28' } },
        },
      );
      const asked: string[] = [];
      client.setRequestHandler('elicitation/create', (request) => {
        asked.push(String(request.params.message));
        return { action: 'accept', content: { name: 'Ada Lovelace' } };
      });
      client.setRequestHandler('sampling/createMessage', () => {
        asked.push('sampling');
        return {
          role: 'assistant',
          content: { type: 'text', text: 'pong' },
          model: 'm',
          stopReason: 'endTurn',
        };
      });
      await client.connect(new ModernTransport(new URL(http.url)));
      const without = new ModernClient(
        { name: 'modern-without', version: '1.0.0' },
        { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await without.connect(new ModernTransport(new URL(http.url)));
      try {
        expect(client.getProtocolEra()).toBe('modern');
        const sampled = await client.callTool({
          name: 'trigger-sampling-request',
          arguments: { prompt: 'ping', maxTokens: 100 },
        });
        expect(textOf(sampled)).toContain('pong');
        const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
        expect(textOf(elicited)).toContain('Ada Lovelace');
        expect(asked).toEqual(['sampling', expect.stringMatching(/^The MCP server "everything" asks: /)]);
        await expect(
          without.callTool({
            name: 'trigger-sampling-request',
            arguments: { prompt: 'ping', maxTokens: 100 },
          }),
        ).rejects.toMatchObject({ code: -32021 });
      } finally {
        await client.close();
        await without.close();
      }
    },
    TIMEOUT,
  );

  // Last: the other client's call may still be running on the server when this test ends.
  test(
    'while calls of two clients run on one server, its sampling goes to neither: nothing says whose it is',
    async () => {
      const able = await connectClient(true);
      const other = await connectClient(true);
      const abort = new AbortController();
      try {
        const progress: number[] = [];
        const long = other.client.callTool(
          { name: 'trigger-long-running-operation', arguments: { duration: 60, steps: 60 } },
          undefined,
          { signal: abort.signal, onprogress: (update) => progress.push(update.progress) },
        );
        long.catch(() => {});
        await until(() => progress.length > 0, "the other client's call runs");
        const result = await able.client.callTool({
          name: 'trigger-sampling-request',
          arguments: { prompt: 'ping', maxTokens: 100 },
        });
        expect(textOf(result)).toContain('calls of several clients');
        expect(able.asked.sampling).toEqual([]);
        expect(other.asked.sampling).toEqual([]);
      } finally {
        abort.abort();
        await Promise.all([able.client.close(), other.client.close()]);
      }
    },
    TIMEOUT,
  );
});
