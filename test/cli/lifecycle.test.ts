// The CLI as a user runs it (`toolpact …`, a process of its own) on a module that imports a live MCP server
// (the reference "memory" server over stdio): one-shot commands print, close it and end on their own, and
// no server process is left behind. What else a module leaves running, and long-running commands:
// lifecycle-signals.test.ts.
import { describe, expect, test } from 'vitest';
import { isServerMemoryAlive, serverMemoryProcesses } from '../support/server-memory.js';
import { runOnce, serverPid, TEST_TIMEOUT, useLifecycleModules } from './lifecycle-support.js';

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
