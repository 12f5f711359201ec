// The gateway under a flood from one upstream (issue 26 §5): 300,000 `list_changed` notifications, each
// with a log notification, while a client calls another server's tool through the gateway, run as the
// CLI runs it. The flood is coalesced (a few listings, not 300,000), logs are rate-limited, both before
// the MCP client parses them, the other call is answered while the flood goes on, and the gateway's
// memory stays within 50 MiB of where it started. Then the rules of that screen, against the inputs that
// would get around them: a request or response is never screened, whatever it holds, and a line with no
// end closes the connection instead of growing a buffer.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ToolDefinitionError } from '../../src/errors/index.js';
import { connectMcpServer, type McpInboundNotification } from '../../src/mcp/connect.js';
import { toolpactArgs } from '../support/cli-build.js';
import { until, workspace } from './support.js';

const FLOOD_SERVER = resolve('test/fixtures/gateway/flood-server.mjs');
const MIB = 1024 * 1024;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-gateway-flood-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The resident memory of a process, from /proc/<pid>/status (VmRSS, in bytes). */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
  if (!line?.[1]) throw new Error(`no VmRSS for process ${pid}`);
  return Number(line[1]) * 1024;
}

test('300,000 list_changed from one server: another server answers during the flood, listings are coalesced, memory stays within 50 MiB', async () => {
  const log = join(dir, 'flood.log');
  const stop = join(dir, 'stop');
  const config = join(dir, 'mcp.json');
  const entry = (env: Record<string, string>) => ({ command: process.execPath, args: [FLOOD_SERVER], env });
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { flood: entry({ FLOOD_LOG: log, FLOOD_STOP: stop }), other: entry({}) },
      toolpact: { policy: { rules: [{ id: 'all', action: 'allow', source: 'mcp:*' }] } },
    }),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: toolpactArgs('gateway', '--config', config),
    cwd: dir,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'flood-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const pid = transport.pid!;
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(['echo', 'flood', 'other_echo', 'other_flood']);
    const before = rss(pid);
    let peak = before;
    const sample = () => {
      peak = Math.max(peak, rss(pid));
    };

    const started = await client.callTool({ name: 'flood', arguments: {} });
    expect(started.isError).toBeFalsy();
    // The gateway is reading the flood: a log notification of it passed the rate and was told.
    await until(() => {
      sample();
      return stderr.includes('flood: log info: flood');
    }, 'the gateway read the flood');
    const during = await client.callTool({ name: 'other_echo', arguments: { text: 'during the flood' } });
    expect(during.structuredContent).toEqual({ text: 'during the flood' });
    // The flood goes on until it sees this file: the answer above came while it went on.
    writeFileSync(stop, '');
    await until(
      () => {
        sample();
        return existsSync(log) && readFileSync(log, 'utf8').includes('done ');
      },
      'the flood server sent every notification',
      120_000,
    );
    // One more answer from the flooded server: the gateway read past the whole flood.
    const after = await client.callTool({ name: 'echo', arguments: { text: 'after' } });
    expect(after.structuredContent).toEqual({ text: 'after' });
    sample();

    const lines = readFileSync(log, 'utf8');
    const seen = Number(lines.match(/^seen-stop (\d+)$/m)?.[1]);
    const [, sent, listed] = lines.match(/^done (\d+) (\d+)$/m) ?? [];
    expect(Number(sent)).toBeGreaterThanOrEqual(300_000);
    expect(seen).toBeLessThanOrEqual(Number(sent));
    // Coalesced: at most one listing in flight and one pending, so far fewer listings than notifications.
    expect(Number(listed)).toBeGreaterThan(1);
    expect(Number(listed)).toBeLessThan(3_000);
    // Bounded: when the MCP client parsed and validated every notification, the rise was about 130 MiB.
    expect(peak - before).toBeLessThanOrEqual(50 * MIB);
    // The log notifications over the limit were dropped and said so on stderr.
    await until(
      () => /flood: dropped \d+ log and progress notifications/.test(stderr),
      'the drops were reported',
    );
  } finally {
    await client.close().catch(() => {});
  }
}, 180_000);

describe('the screen before the MCP client', () => {
  const rawServer = (env: Record<string, string> = {}) => ({
    command: process.execPath,
    args: [FLOOD_SERVER],
    env: { FLOOD_RAW: '1', FLOOD_LOG: join(dir, 'raw.log'), ...env },
  });
  const line = (message: unknown) => `${JSON.stringify(message)}\n`;

  test('a screen that drops every notification never drops a request or a response, whatever they hold', async () => {
    const screened: McpInboundNotification[] = [];
    const connection = await connectMcpServer(rawServer(), {
      era: 'legacy',
      screen: (notification) => {
        screened.push(notification);
        return false;
      },
    });
    let handled = 0;
    connection.client.setNotificationHandler('notifications/message', () => {
      handled++;
    });
    try {
      const text = [
        // Requests from the server named like notifications: they have an id, so they are answered.
        line({
          jsonrpc: '2.0',
          id: 'r1',
          method: 'notifications/message',
          params: { level: 'info', data: 1 },
        }),
        line({ jsonrpc: '2.0', id: 'r2', method: 'notifications/tools/list_changed' }),
        // A notification with an id inside its params, and one ended by \r\n: screened.
        line({
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { id: 7, level: 'info', data: 'x' },
        }),
        `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })}\r\n`,
        // Not JSON: skipped, the connection goes on.
        'hello from a server printing to stdout\n',
      ].join('');
      const written = await connection.client.callTool({ name: 'raw', arguments: { text } });
      expect(written.content).toEqual([{ type: 'text', text: 'written' }]);
      // A response whose payload reads like a notification is a response.
      const echoed = await connection.client.callTool({
        name: 'echo',
        arguments: { text: line({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }) },
      });
      expect(echoed.structuredContent).toEqual({
        text: line({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }),
      });
      await until(() => {
        const log = readFileSync(join(dir, 'raw.log'), 'utf8');
        return log.includes('response r1') && log.includes('response r2');
      }, 'the server’s two requests were answered');
      expect(screened).toEqual([
        { method: 'notifications/message', params: { id: 7, level: 'info', data: 'x' } },
        { method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      ]);
      expect(handled).toBe(0);
    } finally {
      await connection.close();
    }
  }, 30_000);

  test('a line up to maxLineBytes is read; one longer closes the connection and says why', async () => {
    const screened: McpInboundNotification[] = [];
    const connection = await connectMcpServer(rawServer(), {
      era: 'legacy',
      maxLineBytes: MIB,
      screen: (notification) => {
        screened.push(notification);
        return false;
      },
    });
    let closed = false;
    connection.client.onclose = () => {
      closed = true;
    };
    try {
      // Exactly MIB bytes before its newline.
      const envelope = line({ jsonrpc: '2.0', method: 'notifications/message', params: { data: '' } });
      const data = 'y'.repeat(MIB - (envelope.length - 1));
      const longest = line({ jsonrpc: '2.0', method: 'notifications/message', params: { data } });
      expect(longest.length - 1).toBe(MIB);
      await connection.client.callTool({ name: 'raw', arguments: { text: longest } });
      expect(screened).toEqual([{ method: 'notifications/message', params: { data } }]);
      expect(connection.closeReason()).toBeUndefined();

      // 64 KiB written 17 times with no newline: more than MIB, then the answer would follow on that line.
      await expect(
        connection.client.callTool({ name: 'raw', arguments: { text: 'x'.repeat(64 * 1024), repeat: 17 } }),
      ).rejects.toThrow();
      await until(() => closed, 'the connection closed');
      expect(connection.closeReason()).toMatch(/line of more than 1048576 bytes/);
    } finally {
      await connection.close();
    }
  }, 30_000);

  test('over a transport that parses for itself, the screen runs before the client: requests and responses still pass', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const received: JSONRPCMessage[] = [];
    serverSide.onmessage = (message) => {
      received.push(message);
      if ('method' in message && message.method === 'initialize' && 'id' in message) {
        void serverSide.send({
          jsonrpc: '2.0',
          id: message.id,
          result: {
            protocolVersion: '2025-11-25',
            capabilities: { logging: {} },
            serverInfo: { name: 'by-hand', version: '1.0.0' },
          },
        });
      }
    };
    await serverSide.start();
    const screened: string[] = [];
    const connection = await connectMcpServer(
      { transport: clientSide },
      {
        era: 'legacy',
        screen: (notification) => {
          screened.push(notification.method);
          return false;
        },
      },
    );
    let handled = 0;
    connection.client.setNotificationHandler('notifications/message', () => {
      handled++;
    });
    try {
      await serverSide.send({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 1 },
      });
      await serverSide.send({
        jsonrpc: '2.0',
        id: 'r1',
        method: 'notifications/message',
        params: { level: 'info', data: 2 },
      });
      await until(
        () => received.some((message) => 'id' in message && message.id === 'r1' && !('method' in message)),
        'the request named like a notification was answered',
      );
      expect(screened).toEqual(['notifications/message']);
      expect(handled).toBe(0);
    } finally {
      await connection.close();
    }
  });

  test('maxLineBytes that cannot work is refused at connect', async () => {
    for (const maxLineBytes of [0, -1, 1.5, Number.NaN]) {
      await expect(connectMcpServer(rawServer(), { era: 'legacy', maxLineBytes })).rejects.toBeInstanceOf(
        ToolDefinitionError,
      );
    }
  });
});

describe('gateway: a server that writes a line with no end', () => {
  const ws = workspace();

  test('is failed with the reason after at most 16 MiB read, and the call answers mcp_server_unavailable', async () => {
    ws.write('config.json', {
      mcpServers: {
        endless: { command: process.execPath, args: [FLOOD_SERVER], env: { FLOOD_RAW: '1' } },
      },
    });
    const gateway = await ws.start({
      restart: { initialDelayMs: 60_000, maxDelayMs: 60_000, jitter: 0, maxFailures: 3 },
    });
    const result = await gateway.registry.call('raw', { text: 'x'.repeat(MIB), repeat: 17 });
    expect(result).toMatchObject({ ok: false, error: { type: 'mcp_server_unavailable' } });
    await until(
      () => ws.logs.some((entry) => entry.includes('line of more than 16777216 bytes')),
      'the failure was logged with its reason',
    );
    const [status] = gateway.status();
    expect(status?.reason).toMatch(/line of more than 16777216 bytes/);
  }, 30_000);
});
