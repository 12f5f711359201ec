import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { execute } from '../../src/cli/main.js';
import { toolpactArgs } from '../support/cli-build.js';
import { ROOT, text } from './support/wire.js';

const MODULE = join('test', 'fixtures', 'mcp', 'registry-module.ts');

function bufferIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (chunk) => out.push(chunk),
    stderr: (chunk) => err.push(chunk),
    cwd: ROOT,
    interactive: false,
    env: {},
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

describe('toolpact serve: usage errors exit 2 with a message', () => {
  test.each([
    [['serve'], 'Give a module'],
    [['serve', MODULE, '--port', '3000'], '--port applies only with --http'],
    [['serve', MODULE, '--http', '--port', 'eighty'], '--port needs a whole number'],
    [['serve', MODULE, '--http', '--path', 'mcp'], '--path must start with "/"'],
    [['serve', MODULE, '--page-size', '0'], '--page-size needs a whole number'],
    [['serve', MODULE, '--session-idle', '60'], '--session-idle applies only with --http'],
    [['serve', MODULE, '--http', '--session-idle', '0'], '--session-idle needs a whole number from 1'],
    [['serve', MODULE, '--http', '--session-idle', '1.5'], '--session-idle needs a whole number from 1'],
    [
      ['serve', MODULE, '--http', '--sessions-per-client', 'all'],
      '--sessions-per-client needs a whole number',
    ],
    [
      ['serve', MODULE, '--http', '--stateless', '--sessions-per-client', '4'],
      '--sessions-per-client applies only with sessions',
    ],
    [['serve', 'no/such/module.ts'], 'Cannot find the module'],
  ])('%j', async (argv, message) => {
    const { io, stderr, stdout } = bufferIo();
    expect(await execute(argv, io)).toBe(2);
    expect(stderr()).toContain(message);
    expect(stdout()).toBe('');
  });

  test('a TOOLPACT_STATE_KEY that cannot be read is a usage error naming the variable, not its value', async () => {
    const { io, stderr, stdout } = bufferIo();
    const key = 'not-a-key-of-32-bytes';
    expect(
      await execute(['serve', MODULE, '--http', '--port', '0'], { ...io, env: { TOOLPACT_STATE_KEY: key } }),
    ).toBe(2);
    expect(stderr()).toContain('TOOLPACT_STATE_KEY');
    expect(stderr()).not.toContain(key);
    expect(stderr()).not.toContain('Cannot listen');
    expect(stdout()).toBe('');
  });

  test('--help prints the usage', async () => {
    const { io, stdout } = bufferIo();
    expect(await execute(['serve', '--help'], io)).toBe(0);
    expect(stdout()).toContain('toolpact serve <module> [--http]');
  });
});

describe('toolpact serve, started as a process', () => {
  test('over stdio, an SDK Client lists and calls the tools of the module, and reads its resources and prompts', async () => {
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: toolpactArgs('serve', MODULE, '--name', 'from-cli'),
        cwd: ROOT,
        stderr: 'pipe',
      }),
    );
    try {
      expect(client.getServerVersion()?.name).toBe('from-cli');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('echo');
      const result = await client.callTool({ name: 'echo', arguments: { text: 'via cli' } });
      expect(JSON.parse(text(result))).toEqual({ ok: true, result: 'via cli' });
      expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([
        'fixture://motd',
      ]);
      expect((await client.readResource({ uri: 'fixture://motd' })).contents).toEqual([
        { uri: 'fixture://motd', mimeType: 'text/plain', text: 'Served by the CLI.' },
      ]);
      const prompt = await client.getPrompt({ name: 'echo_twice', arguments: { text: 'hi' } });
      expect(prompt.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Call echo twice with "hi".' } },
      ]);
    } finally {
      await client.close();
    }
  });

  test("the CLI's policy gates every call: an asked write is refused without elicitation, a denied read too, and both are audited", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolpact-serve-policy-'));
    try {
      const policyFile = join(dir, 'policy.json');
      writeFileSync(policyFile, JSON.stringify({ rules: [{ id: 'no-echo', action: 'deny', tool: 'echo' }] }));
      const notes = join(dir, 'notes');
      const audit = join(dir, 'audit.jsonl');
      mkdirSync(notes, { recursive: true });
      const client = new Client({ name: 'cli-test', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: toolpactArgs('serve', MODULE, '--policy', policyFile, '--audit', audit),
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', FIXTURE_NOTES_DIR: notes },
          stderr: 'pipe',
        }),
      );
      try {
        const write = JSON.parse(
          text(await client.callTool({ name: 'write_note', arguments: { file: 'a.txt', text: 'x' } })),
        );
        expect(write.error).toMatchObject({ type: 'permission_denied', rule: 'default:write' });
        const echo = JSON.parse(text(await client.callTool({ name: 'echo', arguments: { text: 'x' } })));
        expect(echo.error).toMatchObject({ type: 'permission_denied', rule: 'no-echo' });
        const sum = JSON.parse(text(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })));
        expect(sum).toEqual({ ok: true, result: { sum: 3 } });
      } finally {
        await client.close();
      }
      expect(readdirSync(notes)).toEqual([]);
      const entries = readFileSync(audit, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { tool: string });
      expect(entries.map((entry) => entry.tool)).toEqual(['write_note', 'echo', 'add']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a write the policy asks about goes ahead when the user approves it through elicitation', async () => {
    const notes = mkdtempSync(join(tmpdir(), 'toolpact-serve-elicit-'));
    try {
      const client = new Client(
        { name: 'cli-test', version: '1.0.0' },
        { capabilities: { elicitation: {} } },
      );
      client.setRequestHandler(ElicitRequestSchema, () => ({
        action: 'accept',
        content: { decision: 'once' },
      }));
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: toolpactArgs('serve', MODULE),
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', FIXTURE_NOTES_DIR: notes },
          stderr: 'pipe',
        }),
      );
      try {
        const write = JSON.parse(
          text(
            await client.callTool({ name: 'write_note', arguments: { file: 'ok.txt', text: 'approved' } }),
          ),
        );
        expect(write).toMatchObject({ ok: true, result: { written: 'ok.txt' } });
      } finally {
        await client.close();
      }
      expect(readFileSync(join(notes, 'ok.txt'), 'utf8')).toBe('approved');
    } finally {
      rmSync(notes, { recursive: true, force: true });
    }
  });

  test('--sessions-per-client reaches the server: a second session of one client closes the first', async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      toolpactArgs('serve', MODULE, '--http', '--port', '0', '--sessions-per-client', '1'),
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /at (http:\/\/127\.0\.0\.1:\d+\/mcp) \(sessions\)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.once('exit', () => reject(new Error(`serve exited early: ${stderr}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const post = (body: object, session?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    try {
      const first = (await post(initialize)).headers.get('mcp-session-id') ?? '';
      const second = (await post(initialize)).headers.get('mcp-session-id') ?? '';
      const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
      expect((await post(list, first)).status).toBe(404);
      expect((await post(list, second)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  test('over HTTP it prints the endpoint, serves it, and stops cleanly on SIGTERM', async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      toolpactArgs('serve', MODULE, '--http', '--port', '0', '--stateless'),
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /at (http:\/\/127\.0\.0\.1:\d+\/mcp) \(stateless\)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.once('exit', () => reject(new Error(`serve exited early: ${stderr}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const client = new Client({ name: 'cli-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const result = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
      expect(result.structuredContent).toEqual({ sum: 42 });
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGTERM, stopping');
  });
});
