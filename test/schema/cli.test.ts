import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const workspace = 'examples/workspace/index.ts';

describe('toolpact schemas', () => {
  it('prints the provider JSON on stdout and exits 0 when nothing is an error', async () => {
    const { code, stdout, stderr } = await runCli(['schemas', workspace, '--format', 'anthropic'], {
      cwd: root,
    });
    expect(code).toBe(0);
    const tools = JSON.parse(stdout) as { name: string; input_schema: { type: string } }[];
    expect(tools.map((tool) => tool.name)).toContain('read_file');
    expect(tools.every((tool) => tool.input_schema.type === 'object')).toBe(true);
    expect(stderr).toMatch(/tools as anthropic: 0 errors/);
  });

  it('exits 1 with the error diagnostics on stderr when strict mode cannot carry a tool', async () => {
    const { code, stdout, stderr } = await runCli(['schemas', workspace, '--format', 'openai', '--strict'], {
      cwd: root,
    });
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toHaveLength(6);
    expect(stderr).toMatch(
      /^error delegate_task \$\.parameters\.properties\.steps\.items\.properties\.arguments \[strict_unsupported\]/m,
    );
  });

  it('shows tokens per tool with --tokens, and exact rewrites only with --verbose', async () => {
    const quiet = await runCli(['schemas', workspace, '--format', 'gemini', '--tokens'], { cwd: root });
    expect(quiet.stderr).toMatch(/^read_file\s+\d+$/m);
    expect(quiet.stderr).toMatch(/^\(all tools\)\s+\d+$/m);
    expect(quiet.stderr).not.toMatch(/^info /m);
    const verbose = await runCli(['schemas', workspace, '--format', 'gemini', '--verbose'], { cwd: root });
    expect(verbose.stderr).toMatch(/^info /m);
  });

  it('leaves $schema out of MCP schemas unless --dialect asks for it', async () => {
    const plain = await runCli(['schemas', workspace, '--format', 'mcp'], { cwd: root });
    const stated = await runCli(['schemas', workspace, '--format', 'mcp', '--dialect'], { cwd: root });
    const schemas = (stdout: string) =>
      (JSON.parse(stdout) as { inputSchema: { $schema?: string } }[]).map((tool) => tool.inputSchema.$schema);
    expect(new Set(schemas(plain.stdout))).toEqual(new Set([undefined]));
    expect(new Set(schemas(stated.stdout))).toEqual(
      new Set(['https://json-schema.org/draft/2020-12/schema']),
    );
  });

  it('exits 2 for usage errors', async () => {
    for (const argv of [
      ['schemas', workspace],
      ['schemas', workspace, '--format', 'bedrock'],
      ['schemas', workspace, '--format', 'gemini', '--gemini', 'openapi'],
      ['schemas', 'no/such/module.ts', '--format', 'mcp'],
      ['schemas', '--format', 'mcp'],
    ]) {
      const { code, stderr } = await runCli(argv, { cwd: root });
      expect(code, argv.join(' ')).toBe(2);
      expect(stderr).toMatch(/^toolpact schemas: /);
    }
  });
});
