// `toolpact gateway` answers a client's opening at once, whatever its servers do (issue 26 §5): beside a
// server that answers, one that never answers its own start (it notes each request it receives, the
// event that proves it was asked). With the lock, initialize and the first tools/list list both
// servers' pinned tools, and a call to the silent one answers mcp_server_unavailable after the start
// timeout (`toolpact.startTimeoutMs`). With no lock, initialize and server/discover are answered at
// once, for a 2025 client and a 2026-07-28 client; the first tools/list waits for the first start to
// settle (the start timeout at most), so a client that lists once is not listed nothing. Nothing here
// depends on how fast a process starts: the silent server answers only when the test says so.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { GatewayConfigError, parseGatewayConfig } from '../../src/gateway/config/index.js';
import { pinServer } from '../../src/gateway/lock.js';
import { writeLock } from '../../src/gateway/lock-file.js';
import { toolpactArgs } from '../support/cli-build.js';
import { until } from './support.js';

const FLOOD_SERVER = resolve('test/fixtures/gateway/flood-server.mjs');
const object = { type: 'object', properties: { text: { type: 'string' } } };
const LISTED = [
  { name: 'echo', description: 'Answer the text given, as { text }.', inputSchema: object },
  {
    name: 'flood',
    description: 'Start a flood of notifications; answers at once.',
    inputSchema: { type: 'object' },
  },
];
let dir: string;
const clients: Client[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-gateway-at-once-'));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  rmSync(dir, { recursive: true, force: true });
});

const silentLog = () => join(dir, 'silent.log');
/** What the silent server was asked, in order (it answers nothing until `silent.release` exists). */
const asked = () => (existsSync(silentLog()) ? readFileSync(silentLog(), 'utf8') : '');

/** `fast` answers; `silent` answers nothing until the test writes its release file. */
function writeConfig(startTimeoutMs: number): string {
  const config = join(dir, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        fast: { command: process.execPath, args: [FLOOD_SERVER] },
        silent: {
          command: process.execPath,
          args: [FLOOD_SERVER],
          env: { FLOOD_SILENT: '1', FLOOD_LOG: silentLog(), FLOOD_RELEASE: join(dir, 'silent.release') },
        },
      },
      toolpact: { startTimeoutMs, policy: { rules: [{ id: 'all', action: 'allow', source: 'mcp:*' }] } },
    }),
  );
  return config;
}

async function connect(config: string, era: 'legacy' | 'modern'): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: toolpactArgs('gateway', '--config', config),
    cwd: dir,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => {});
  const client = new Client(
    { name: 'at-once-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  clients.push(client);
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion()).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
  return client;
}

test('with the lock: the first tools/list lists a server that never answers, and a call to it answers mcp_server_unavailable after the start timeout', async () => {
  const config = writeConfig(400);
  writeLock(join(dir, 'mcp.lock.json'), pinServer(pinServer(undefined, 'fast', LISTED), 'silent', LISTED));
  const client = await connect(config, 'legacy');
  const listed = (await client.listTools()).tools.map((tool) => tool.name).sort();
  expect(listed).toEqual(['echo', 'flood', 'silent_echo', 'silent_flood']);
  await until(() => asked().includes('request '), 'the silent server was asked to start');

  const refused = await client.callTool({ name: 'silent_echo', arguments: { text: 'never' } });
  expect(refused.isError).toBe(true);
  expect(JSON.stringify(refused.content)).toContain('mcp_server_unavailable');
  expect(JSON.stringify(refused.content)).toContain('did not finish starting within 0.4 s');
  // It was asked to start and never answered: no call reached it.
  expect(asked()).not.toContain('tools/call');
}, 60_000);

for (const era of ['legacy', 'modern'] as const) {
  test(`with no lock: a ${era === 'modern' ? '2026-07-28' : '2025'} client's opening is answered without waiting for a server`, async () => {
    // Ten minutes: an opening that waited for the silent server's start would time the test out.
    const client = await connect(writeConfig(600_000), era);
    expect(asked()).not.toContain('tools/list');
    await client.close();
  }, 60_000);
}

test('with no lock: the first tools/list waits for the first start to settle', async () => {
  const client = await connect(writeConfig(600_000), 'legacy');
  const listing = client.listTools();
  await until(() => asked().includes('request '), 'the silent server was asked to start');
  // Released only now: a tools/list answered without waiting could not hold its tools.
  writeFileSync(join(dir, 'silent.release'), '');
  const listed = (await listing).tools.map((tool) => tool.name).sort();
  expect(listed).toEqual(['echo', 'flood', 'silent_echo', 'silent_flood']);
}, 60_000);

test('toolpact.startTimeoutMs takes whole milliseconds from 1 to 600000; anything else is refused at its path', () => {
  const parse = (startTimeoutMs: unknown) =>
    parseGatewayConfig(
      { mcpServers: {}, toolpact: { startTimeoutMs } },
      { file: join(dir, 'mcp.json'), env: {} },
    );
  expect(parse(250).startTimeoutMs).toBe(250);
  expect(parse(600_000).startTimeoutMs).toBe(600_000);
  // Zero would time out every start; a fraction, a string, or past what a timer can wait get around the rule.
  for (const bad of [0, -1, 1.5, '250', 600_001, 2 ** 31, Number.NaN, null]) {
    let caught: unknown;
    try {
      parse(bad);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayConfigError);
    expect((caught as GatewayConfigError).path).toBe('$.toolpact.startTimeoutMs');
  }
});
