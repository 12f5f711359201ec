import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.js';

const WORKSPACE = join('examples', 'workspace', 'index.ts');

describe('toolpact search', () => {
  test('prints the ranked tools with scores and the matched fields', async () => {
    const { code, stdout } = await runCli(['search', WORKSPACE, 'find text in files', '--k', '3']);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^#\s+tool\s+score\s+category\s+matched fields\s+matched terms$/);
    expect(lines).toHaveLength(5);
    expect(lines.slice(2).map((line) => line.split(/\s+/)[1])).toContain('grep');
  });

  test('--format json, with Chinese in the query and a category filter', async () => {
    const { code, stdout } = await runCli([
      'search',
      WORKSPACE,
      '运行命令 run the tests',
      '--format',
      'json',
      '--category',
      'execute',
    ]);
    expect(code).toBe(0);
    const answer = JSON.parse(stdout);
    expect(answer.hits.map((hit: { name: string }) => hit.name)).toEqual(['run_command']);
    expect(answer.hits[0]).toMatchObject({
      rank: 1,
      category: 'execute',
      fields: expect.arrayContaining(['name']),
    });
    expect(answer.hits[0].score).toBeGreaterThan(0);
  });

  test('exit 1 when nothing matches', async () => {
    const { code, stdout } = await runCli(['search', WORKSPACE, 'zzqx']);
    expect(code).toBe(1);
    expect(stdout).toContain('No tool of 6 matched "zzqx"');
  });

  test.each([
    [['search', WORKSPACE], 'Give a query'],
    [['search', WORKSPACE, 'a', 'b'], 'Put a query of several words in quotes'],
    [['search', WORKSPACE, 'x', '--k', '0'], '--k needs a whole number'],
    [['search', WORKSPACE, 'x', '--category', 'danger'], 'received "danger"'],
    [['search', WORKSPACE, 'x', '--format', 'xml'], '--format must be table or json'],
  ])('usage error: %j', async (argv, message) => {
    const { code, stderr } = await runCli(argv);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});

describe('toolpact inspect: the token cost with tool search', () => {
  test('the full set against the always-loaded set and search_tools, per format', async () => {
    const { code, stdout } = await runCli([
      'inspect',
      WORKSPACE,
      '--always-loaded',
      'read_file',
      '--format',
      'json',
    ]);
    expect(code).toBe(0);
    const { search, totals } = JSON.parse(stdout);
    expect(search).toMatchObject({ alwaysLoaded: ['read_file'], sent: 2 });
    for (const [format, cost] of Object.entries(search.tokens) as [
      string,
      { all: number; withSearch: number },
    ][]) {
      expect(cost.all).toBe(totals[format]);
      expect(cost.withSearch).toBeLessThan(cost.all);
      expect(cost.withSearch).toBeGreaterThan(0);
    }
    const table = await runCli(['inspect', WORKSPACE]);
    expect(table.stdout).toMatch(/With tool search \(always loaded: none\), a request sends 1 tool,/);
    expect(table.stdout).toMatch(/^anthropic\s+\d+\s+\d+\s+\d+%$/m);
  });

  test('an always-loaded name that is not a tool is a usage error', async () => {
    const { code, stderr } = await runCli(['inspect', WORKSPACE, '--always-loaded', 'nope']);
    expect(code).toBe(2);
    expect(stderr).toContain('"nope", which is not one of the 6 tools');
  });
});
