// The gateway answers at once, whatever its servers do (issue 26 §5): a client's `initialize` and first
// `tools/list` are answered while a server has not answered its own start, its tools listed from the
// lock; a server with no lock entry joins by list_changed as it comes up; a call to a server that does
// not come up answers mcp_server_unavailable once the start timeout has passed.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { readGatewayConfig } from '../../src/gateway/config/index.js';
import { startGateway } from '../../src/gateway/gateway.js';
import { pinServer } from '../../src/gateway/lock.js';
import { writeLock } from '../../src/gateway/lock-file.js';
import { toolpactArgs } from '../support/cli-build.js';
import { until } from './support.js';

const FLOOD_SERVER = resolve('test/fixtures/gateway/flood-server.mjs');
const object = { type: 'object', properties: { text: { type: 'string' } } };
// What the fixture lists, as the lock pins it.
const LISTED = [
  { name: 'echo', description: 'Answer the text given, as { text }.', inputSchema: object },
  {
    name: 'flood',
    description: 'Start a flood of notifications; answers at once.',
    inputSchema: { type: 'object' },
  },
];
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-gateway-start-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const entry = (env: Record<string, string>) => ({ command: process.execPath, args: [FLOOD_SERVER], env });
const requested = (log: string) => existsSync(log) && readFileSync(log, 'utf8').includes('request ');

/** A config of `fast` (answers), `slow` (answers once `slow.release` exists) and, unpinned, `late` (likewise). */
function setUp() {
  const paths = {
    slowLog: join(dir, 'slow.log'),
    slowRelease: join(dir, 'slow.release'),
    lateLog: join(dir, 'late.log'),
    lateRelease: join(dir, 'late.release'),
    config: join(dir, 'mcp.json'),
  };
  writeFileSync(
    paths.config,
    JSON.stringify({
      mcpServers: {
        fast: entry({}),
        slow: entry({ FLOOD_SILENT: '1', FLOOD_LOG: paths.slowLog, FLOOD_RELEASE: paths.slowRelease }),
        late: entry({ FLOOD_SILENT: '1', FLOOD_LOG: paths.lateLog, FLOOD_RELEASE: paths.lateRelease }),
      },
      toolpact: { policy: { rules: [{ id: 'all', action: 'allow', source: 'mcp:*' }] } },
    }),
  );
  // Pinned by an earlier start: fast and slow, not late.
  writeLock(join(dir, 'mcp.lock.json'), pinServer(pinServer(undefined, 'fast', LISTED), 'slow', LISTED));
  return paths;
}

test('initialize and the first tools/list are answered before a server answers its start; an unpinned one joins by list_changed', async () => {
  const paths = setUp();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: toolpactArgs('gateway', '--config', paths.config),
    cwd: dir,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => {});
  const client = new Client({ name: 'start-test', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changes++;
  });
  await client.connect(transport);
  try {
    const first = (await client.listTools()).tools.map((tool) => tool.name).sort();
    // slow has answered nothing (it cannot before its release file exists), yet its pinned tools are listed.
    expect(first).toEqual(['echo', 'flood', 'slow_echo', 'slow_flood']);
    const locked = (await client.listTools()).tools.find((tool) => tool.name === 'slow_echo');
    expect(locked?.inputSchema).toMatchObject(object);
    await until(() => requested(paths.slowLog), 'slow was asked to start');
    expect(existsSync(paths.slowRelease)).toBe(false);

    // Released, slow comes up and serves the tool it was listed with.
    writeFileSync(paths.slowRelease, '');
    const echoed = await client.callTool({ name: 'slow_echo', arguments: { text: 'once up' } });
    expect(echoed.structuredContent).toEqual({ text: 'once up' });

    // late, unpinned, is listed once it is up, and the client is told.
    const before = changes;
    writeFileSync(paths.lateRelease, '');
    await until(() => changes > before, 'the client was told the list changed');
    await until(
      async () => (await client.listTools()).tools.some((tool) => tool.name === 'late_echo'),
      'late joined the list',
    );
  } finally {
    await client.close().catch(() => {});
  }
}, 60_000);

test('a call to a pinned server that does not come up waits for the start timeout, then answers mcp_server_unavailable', async () => {
  const paths = setUp();
  const gateway = await startGateway({
    config: readGatewayConfig(paths.config),
    watch: false,
    waitForStart: false,
    startTimeoutMs: 300,
    probeTimeoutMs: 200,
  });
  try {
    expect(gateway.registry.has('slow_echo')).toBe(true);
    await until(() => requested(paths.slowLog), 'slow was asked to start');
    const result = await gateway.registry.call('slow_echo', { text: 'never' });
    expect(result.ok).toBe(false);
    expect(result.ok ? undefined : result.error.type).toBe('mcp_server_unavailable');
    expect(result.ok ? '' : result.error.message).toContain('did not finish starting');
    // Asked, never answered (no release file was written): still starting, not failed.
    expect(gateway.status().find((server) => server.name === 'slow')?.state).toBe('starting');
  } finally {
    await gateway.close();
  }
}, 30_000);
