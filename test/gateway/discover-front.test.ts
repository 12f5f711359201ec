// `toolpact gateway` answers the era probe of a 2026-07-28 client before it loads (src/cli/discover-front.ts):
// the official v2 client probes in a process of its own, which it ends once answered, and then starts
// the session's. The answer is the one the full server gives (asked here with a probe line the front
// hands over), the probe process loads and starts nothing and ends with its stdin, and no process of it
// is left. Every process of a test carries its marker in its argv (the gateway through its config's
// path), so what is left is counted through /proc/*/cmdline.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { pinServer } from '../../src/gateway/lock.js';
import { writeLock } from '../../src/gateway/lock-file.js';
import { discoverLine, META } from '../support/discover-line.js';
import { processesWith, until } from './support.js';

const BIN = resolve('bin/toolpact.js');
const FLOOD_SERVER = resolve('test/fixtures/gateway/flood-server.mjs');
const TIMEOUT = 60_000;
const object = { type: 'object', properties: { text: { type: 'string' } } };
const LISTED = [
  { name: 'echo', description: 'Answer the text given, as { text }.', inputSchema: object },
  {
    name: 'flood',
    description: 'Start a flood of notifications; answers at once.',
    inputSchema: { type: 'object' },
  },
];

let marker = '';
let dir = '';
let config = '';
const children: ChildProcess[] = [];
beforeEach(() => {
  marker = `toolpact-front-${randomUUID()}`;
  dir = mkdtempSync(join(tmpdir(), `${marker}-`));
  config = join(dir, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { fast: { command: process.execPath, args: [FLOOD_SERVER, marker] } },
      toolpact: { policy: { rules: [{ id: 'all', action: 'allow', source: 'mcp:*' }] } },
    }),
  );
  writeLock(join(dir, 'mcp.lock.json'), pinServer(undefined, 'fast', LISTED, 'legacy', { kind: 'legacy' }));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  // Whatever a failed test left is killed, so that it does not outlive the run.
  for (const each of processesWith(marker)) {
    try {
      process.kill(each.pid, 'SIGKILL');
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts the gateway as the v2 client's probe does, writes `line`, and waits for its answer; then ends
 * its stdin (as the client does before its SIGTERM) and waits for the process to end.
 */
async function probe(
  line: string,
): Promise<{ answer: { id: string; result: unknown }; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, [BIN, 'gateway', '--config', config], { stdio: 'pipe' });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const answered = new Promise<string>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve(stdout);
    });
  });
  child.stdin.write(line);
  const answer = JSON.parse((await Promise.race([answered, exited.then(() => stdout)])) || 'null');
  child.stdin.end();
  const code = await exited;
  return { answer, stderr, code };
}

/** A v2 client pinned to 2026-07-28, connected to the gateway as a host starts it (so, after its probe). */
async function connectModern(): Promise<{ client: Client; gateway: number; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'gateway', '--config', config],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client(
    { name: 'front-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  return { client, gateway: transport.pid ?? 0, stderr: () => stderr };
}

test(
  "a 2026-07-28 client through the v2 SDK is told what the full server answers, and the probe's process loads nothing",
  async () => {
    // The full server answers a probe the front does not take (a log level in the envelope).
    const full = await probe(discoverLine('full', { [`${META}logLevel`]: 'info' }));
    expect(full.answer.id).toBe('full');
    expect(full.stderr).toContain(' on stdio.');
    const front = await probe(discoverLine('front'));
    expect(front.answer).toEqual({ ...full.answer, id: 'front' });
    // Answered and ended with its stdin: the command never ran (it says so when it serves).
    expect(front.code).toBe(0);
    expect(front.stderr).toBe('');

    const { client } = await connectModern();
    try {
      const result = full.answer.result as {
        supportedVersions: string[];
        capabilities: unknown;
        _meta: { [key: string]: unknown };
      };
      expect(client.getDiscoverResult()?.supportedVersions).toEqual(result.supportedVersions);
      expect(client.getServerCapabilities()).toEqual(result.capabilities);
      expect(client.getServerVersion()).toEqual(result._meta[`${META}serverInfo`]);
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['echo', 'flood']);
    } finally {
      await client.close();
    }
  },
  TIMEOUT,
);

test(
  'the probe leaves no process: once connected, only the session gateway and its server run; once closed, none',
  async () => {
    const { client, gateway, stderr } = await connectModern();
    // The session's server is up (a call reaches it): every process of the probe is gone by now, since
    // the client reaps its probe before it starts the session.
    expect((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).isError).toBeFalsy();
    const left = processesWith(marker);
    const gateways = left.filter((each) => each.argv.includes(' gateway '));
    const servers = left.filter((each) => each.argv.includes(FLOOD_SERVER));
    expect(
      gateways.map((each) => each.pid),
      stderr(),
    ).toEqual([gateway]);
    expect(servers).toHaveLength(1);
    expect(left).toHaveLength(2);
    await client.close();
    await until(() => processesWith(marker).length === 0, 'no process of the test is left', 15_000);
  },
  TIMEOUT,
);
