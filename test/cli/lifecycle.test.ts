// The CLI as a user runs it (`toolpact …`, a process of its own) on modules that hold live things: an imported MCP
// server (the reference "memory" server over stdio), a socket and a timer the module never attaches, a
// resource whose close never settles. One-shot commands print and end on their own, and no server process
// is left behind. Long-running commands: lifecycle-signals.test.ts.
import { describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.js';
import { isServerMemoryAlive, serverMemoryProcesses } from '../support/server-memory.js';
import { moduleDir, runOnce, serverPid, TEST_TIMEOUT, useLifecycleModules } from './lifecycle-support.js';

useLifecycleModules();

describe('one-shot commands on a module that imports a live MCP server print, close it and exit', () => {
  test.each([
    {
      args: ['inspect', 'memory.mts'],
      code: 0,
      exit: 'code 0',
      printed: (out: string) => expect(out).toMatch(/read_graph\s+read/),
    },
    {
      args: ['lint', 'memory.mts', '--format', 'json'],
      code: 0,
      exit: 'code 0',
      printed: (out: string) => expect(JSON.stringify(JSON.parse(out))).toContain('create_entities'),
    },
    {
      args: ['schemas', 'memory.mts', '--format', 'openai'],
      code: 0,
      exit: 'code 0',
      printed: (out: string) =>
        expect(
          (JSON.parse(out) as { function: { name: string } }[]).map((tool) => tool.function.name),
        ).toContain('search_nodes'),
    },
    {
      args: ['search', 'memory.mts', 'find nodes in the knowledge graph', '--format', 'json'],
      code: 0,
      exit: 'code 0',
      printed: (out: string) =>
        expect((JSON.parse(out) as { hits: { name: string }[] }).hits.map((hit) => hit.name)).toContain(
          'search_nodes',
        ),
    },
    {
      args: ['call', 'memory.mts', 'read_graph', '{}', '--yes'],
      code: 0,
      exit: 'code 0',
      printed: (out: string) =>
        expect(JSON.parse(out)).toEqual({ ok: true, result: { entities: [], relations: [] } }),
    },
    {
      // A failed call exits 1, and is closed all the same.
      args: ['call', 'memory.mts', 'read_graphs', '{}', '--yes'],
      code: 1,
      exit: 'code 1',
      printed: (out: string) =>
        expect(JSON.parse(out).error).toMatchObject({
          type: 'unknown_tool',
          suggestions: expect.arrayContaining(['read_graph']),
        }),
    },
  ])(
    'toolpact $args.0 exits with $exit on its own, and the server it imported is gone',
    async ({ args, code, printed }) => {
      const result = await runOnce(args);
      expect(result.signal, `killed: it did not exit on its own. stderr:\n${result.stderr}`).toBeNull();
      expect(result.code, result.stderr).toBe(code);
      printed(result.stdout);
      expect(result.stderr).not.toMatch(/did not finish closing|failed/);
      expect(isServerMemoryAlive(serverPid(result.pidFile))).toBe(false);
      expect(serverMemoryProcesses(result.memoryFile)).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});

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
