// A stdio gateway has one client: what a server behind it asks outside any call goes to that client
// (under the policy), where an HTTP gateway refuses it (back-to-client.test.ts). The gateway is served
// in process over a pair of streams to an SDK client; its server is a real process.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CreateMessageRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CallRecord } from '../../src/dispatch/call.js';
import { readGatewayConfig } from '../../src/gateway/config/index.js';
import { type Gateway, startGateway } from '../../src/gateway/gateway.js';
import { type RunningStdioServer, serveStdio } from '../../src/mcp/index.js';
import { createPolicyGate } from '../../src/policy/index.js';
import { until } from './support.js';

const ASKING = resolve('test/fixtures/gateway/asking-server.mjs');
const TIMEOUT = 60_000;

/** The client's end of a stdio connection: newline-delimited JSON-RPC over two streams. */
class StreamTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #buffer = '';
  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {}
  async start(): Promise<void> {
    this.input.on('data', (chunk: Buffer) => {
      this.#buffer += chunk.toString('utf8');
      for (let end = this.#buffer.indexOf('\n'); end >= 0; end = this.#buffer.indexOf('\n')) {
        const line = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 1);
        if (line.trim()) this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
      }
    });
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.output.write(`${JSON.stringify(message)}\n`);
  }
  async close(): Promise<void> {
    this.output.end();
    this.onclose?.();
  }
}

let dir = '';
let log = '';
let gateway: Gateway;
let served: RunningStdioServer;
let client: Client;
const sampled: unknown[] = [];
const audit: CallRecord[] = [];

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-back-stdio-')));
  log = join(dir, 'asking.log');
  writeFileSync(log, '');
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      mcpServers: {
        asking: { command: process.execPath, args: [ASKING], env: { ASKING_LOG: log }, cwd: dir },
      },
    }),
  );
  const gate = createPolicyGate({
    rules: [{ id: 'asking-samples', action: 'allow', target: 'sampling', source: 'mcp:asking' }],
  }).registryOptions;
  gateway = await startGateway({
    config: readGatewayConfig(join(dir, 'config.json')),
    registry: gate,
    audit: (record) => void audit.push(record),
    watch: false,
    // The server starts once the client is there, as `toolpact gateway` starts its servers.
    deferStart: true,
    waitForStart: false,
  });
  const toGateway = new PassThrough();
  const fromGateway = new PassThrough();
  served = await serveStdio(gateway.registry, {
    listing: gateway.listing,
    stdin: toGateway,
    stdout: fromGateway,
    onClient: (channel) => gateway.clientConnected(channel),
  });
  client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    sampled.push(request.params);
    return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'from the one client' } };
  });
  await client.connect(new StreamTransport(fromGateway, toGateway));
}, TIMEOUT);

afterAll(async () => {
  await client?.close();
  await served?.close();
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

test(
  'sampling a server asks outside any call goes to the one client of a stdio gateway, under the policy',
  async () => {
    await gateway.begin();
    await until(() => readFileSync(log, 'utf8').includes('sampled'), 'the server got its completion');
    expect(readFileSync(log, 'utf8')).toContain('from the one client');
    expect(sampled).toHaveLength(1);
    expect(audit).toContainEqual(
      expect.objectContaining({
        tool: 'sampling',
        outcome: 'ok',
        arguments: { server: 'asking', maxTokens: 10, messages: 1 },
        decision: expect.objectContaining({ action: 'allow', rule: 'asking-samples' }),
      }),
    );
  },
  TIMEOUT,
);
