// The CLI as a user runs it (`toolpact …`, a process of its own) on a module that imports a live MCP server
// (the reference "memory" server over stdio), or that leaves a socket and a timer running, or attaches a
// resource whose close never settles or fails: one-shot commands end all the same, long-running commands
// end on SIGINT or SIGTERM, and no server process is left behind. One-shot commands on the memory server:
// lifecycle.test.ts.
import { readFileSync, utimesSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.js';
import { isServerMemoryAlive, serverMemoryProcesses } from '../support/server-memory.js';
import {
  listOverStdio,
  moduleDir,
  runOnce,
  serverPid,
  start,
  TEST_TIMEOUT,
  useLifecycleModules,
  waitFor,
} from './lifecycle-support.js';

useLifecycleModules();

describe('one-shot commands end whatever the module left running', () => {
  test(
    'a socket and a timer attached to nothing do not keep lint or call alive',
    async () => {
      const lint = await runOnce(['lint', 'stray.mts', '--format', 'json']);
      expect(lint.signal, lint.stderr).toBeNull();
      expect(lint.code, lint.stderr).toBe(0);
      expect(JSON.parse(lint.stdout)).toBeTypeOf('object');
      const call = await runOnce(['call', 'stray.mts', 'hello']);
      expect(call.signal, call.stderr).toBeNull();
      expect(call.code, call.stderr).toBe(0);
      expect(JSON.parse(call.stdout)).toEqual({ ok: true, result: 'hello' });
    },
    TEST_TIMEOUT,
  );

  test(
    'a close that never settles is given up after the grace period; the command keeps its output and code',
    async () => {
      const result = await runOnce(['call', 'stubborn.mts', 'hello']);
      expect(result.signal, result.stderr).toBeNull();
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ ok: true, result: 'hello' });
      expect(result.stderr).toMatch(/toolpact call: the module's tools did not finish closing within \d+ s/);
      expect(result.stderr).toContain('Make that close() settle');
    },
    TEST_TIMEOUT,
  );

  test(
    'a close that fails is told on stderr, with what failed; the output and the code stay',
    async () => {
      const result = await runCli(['call', 'failing.mts', 'hello'], { cwd: moduleDir() });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ ok: true, result: 'hello' });
      expect(result.stderr).toContain("toolpact call: closing the module's tools failed:");
      expect(result.stderr).toContain('the lock file is gone');
      expect(result.stderr).toContain('The output above is complete');
    },
    TEST_TIMEOUT,
  );
});

describe('long-running commands close on SIGINT and SIGTERM and leave no server behind', () => {
  test(
    'serve over stdio: serves the imported tools, then SIGTERM ends it and the memory server',
    async () => {
      const run = start(['serve', 'memory.mts']);
      await run.stderrMatches(/on stdio\./);
      const pid = serverPid(run.pidFile);
      expect(isServerMemoryAlive(pid)).toBe(true);
      const names = await listOverStdio(run);
      expect(names).toContain('read_graph');
      run.child.kill('SIGTERM');
      const { code, signal } = await run.ended;
      expect(signal, run.stderr()).toBeNull();
      expect(code, run.stderr()).toBe(0);
      expect(isServerMemoryAlive(pid)).toBe(false);
      expect(serverMemoryProcesses(run.memoryFile)).toEqual([]);
      expect(run.stderr()).not.toMatch(/did not finish closing|failed/);
    },
    TEST_TIMEOUT,
  );

  test.each(['SIGTERM', 'SIGINT'] as const)(
    'serve --http: serves the imported tools, then %s ends it and the memory server',
    async (stopWith) => {
      const run = start(['serve', 'memory.mts', '--http', '--port', '0']);
      await run.stderrMatches(/at http:\/\/\S+ \(sessions\)/);
      const url = /at (http:\/\/\S+) \(sessions\)/.exec(run.stderr())![1]!;
      const pid = serverPid(run.pidFile);
      expect(isServerMemoryAlive(pid)).toBe(true);
      const client = new Client({ name: 'lifecycle-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('read_graph');
      } finally {
        await client.close();
      }
      run.child.kill(stopWith);
      const { code, signal } = await run.ended;
      expect(signal, run.stderr()).toBeNull();
      expect(code, run.stderr()).toBe(0);
      expect(run.stderr()).toContain(`${stopWith}, stopping.`);
      expect(isServerMemoryAlive(pid)).toBe(false);
      expect(serverMemoryProcesses(run.memoryFile)).toEqual([]);
      expect(run.stderr()).not.toMatch(/did not finish closing|failed/);
    },
    TEST_TIMEOUT,
  );

  test(
    'studio: a reload closes the copy of the module it replaces; SIGTERM closes the rest',
    async () => {
      const run = start(['studio', 'memory.mts', '--port', '0']);
      await run.stderrMatches(/open http:\/\/127\.0\.0\.1:\d+\//);
      const first = serverPid(run.pidFile);
      expect(isServerMemoryAlive(first)).toBe(true);
      // Touching the module reloads it: a fresh copy imports a server of its own.
      const now = new Date();
      utimesSync(join(moduleDir(), 'memory.mts'), now, now);
      // A whole pid other than the first: a read between the write's truncation and its text sees "".
      await waitFor(
        () =>
          /^[1-9]\d*$/.test(readFileSync(run.pidFile, 'utf8')) &&
          readFileSync(run.pidFile, 'utf8') !== String(first),
      );
      const second = serverPid(run.pidFile);
      await waitFor(() => !isServerMemoryAlive(first));
      expect(serverMemoryProcesses(run.memoryFile)).toEqual([second]);
      run.child.kill('SIGTERM');
      const { code, signal } = await run.ended;
      expect(signal, run.stderr()).toBeNull();
      expect(code, run.stderr()).toBe(0);
      expect(isServerMemoryAlive(second)).toBe(false);
      expect(serverMemoryProcesses(run.memoryFile)).toEqual([]);
      expect(run.stderr()).not.toMatch(/did not finish closing|failed/);
    },
    TEST_TIMEOUT,
  );

  test(
    'run: SIGINT while the model is thinking stops the loop and closes the memory server',
    async () => {
      // A model server that takes every request and never answers.
      const held = new Set<import('node:http').ServerResponse>();
      const model = createServer((_request, response) => void held.add(response));
      await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
      const port = (model.address() as AddressInfo).port;
      try {
        const run = start([
          'run',
          'memory.mts',
          'What do you remember?',
          '--provider',
          'openai-compatible',
          '--base-url',
          `http://127.0.0.1:${port}/v1`,
          '--model',
          'silent',
        ]);
        await run.stderrMatches(/toolpact run: \d+ tools/);
        const pid = serverPid(run.pidFile);
        expect(isServerMemoryAlive(pid)).toBe(true);
        await waitFor(() => held.size > 0);
        run.child.kill('SIGINT');
        const { code, signal } = await run.ended;
        expect(signal, run.stderr()).toBeNull();
        expect(code, run.stderr()).toBe(1);
        expect(run.stderr()).toContain('SIGINT, stopping.');
        expect(isServerMemoryAlive(pid)).toBe(false);
        expect(serverMemoryProcesses(run.memoryFile)).toEqual([]);
        expect(run.stderr()).not.toMatch(/did not finish closing|failed/);
      } finally {
        for (const response of held) response.destroy();
        model.closeAllConnections();
        await new Promise((resolve) => model.close(resolve));
      }
    },
    TEST_TIMEOUT,
  );
});
