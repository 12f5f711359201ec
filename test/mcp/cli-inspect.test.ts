import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { execute } from '../../src/cli/main.js';
import { ROOT } from './support/wire.js';

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

const node = JSON.stringify(process.execPath);

test('inspect --mcp tabulates and lints the tools of a server started from a command line', async () => {
  const { io, stdout } = bufferIo();
  const code = await execute(
    ['inspect', '--mcp', `${node} --import tsx test/fixtures/mcp/stdio-server.ts`],
    io,
  );
  expect(code).toBe(0);
  const lines = stdout().split('\n');
  expect(lines.find((line) => line.startsWith('echo '))).toMatch(/echo\s+read\s+low\s+allow\s+text/);
  expect(lines.find((line) => line.startsWith('write_note '))).toMatch(/write_note\s+write\s+medium/);
  // The table is followed by the lint report of the server's contracts.
  expect(stdout()).toContain('mcp:fixture');
  expect(stdout()).toMatch(/\d+ problems \(0 errors, \d+ warnings/);
});

test('inspect --mcp --format json on server-filesystem, with categories inferred from its annotations', async () => {
  const root = mkdtempSync(join(tmpdir(), 'toolpact-inspect-fs-'));
  try {
    const server = join('node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
    const { io, stdout } = bufferIo();
    const code = await execute(['inspect', '--mcp', `${node} ${server} "${root}"`, '--format', 'json'], io);
    expect(code).toBe(0);
    const { tools: rows, findings } = JSON.parse(stdout()) as {
      tools: { name: string; category: string; parameters: string[] }[];
      findings: { rule: string; tool?: string; severity: string }[];
    };
    const byName = new Map(rows.map((row) => [row.name, row]));
    // Its descriptions are linted: none says when to use the tool rather than its neighbours.
    const usage = new Set(
      findings.filter((finding) => finding.rule === 'description-usage').map((finding) => finding.tool),
    );
    expect(usage).toEqual(new Set(rows.map((row) => row.name)));
    expect(byName.get('read_text_file')).toMatchObject({
      category: 'read',
      parameters: ['path', 'tail?', 'head?'],
    });
    expect(byName.get('search_files')?.category).toBe('search');
    expect(byName.get('write_file')?.category).toBe('write');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a server that does not start, or a module together with --mcp, exits 2 with the reason', async () => {
  const failing = bufferIo();
  expect(await execute(['inspect', '--mcp', `${node} -e "process.exit(4)"`], failing.io)).toBe(2);
  expect(failing.stderr()).toMatch(/Could not connect to the MCP server started by/);
  const both = bufferIo();
  expect(await execute(['inspect', 'examples/workspace/index.ts', '--mcp', 'node x.js'], both.io)).toBe(2);
  expect(both.stderr()).toContain('not both');
  const unclosed = bufferIo();
  expect(await execute(['inspect', '--mcp', 'node "x.js'], unclosed.io)).toBe(2);
  expect(unclosed.stderr()).toContain('unclosed');
});

test('inspect --mcp names the negotiated era: a modern-only server, and the fixture with --era legacy', async () => {
  const modern = bufferIo();
  const code = await execute(
    ['inspect', '--mcp', `${node} test/fixtures/mcp/modern-only-server.mjs`, '--format', 'json'],
    modern.io,
  );
  expect(code, modern.stderr()).toBe(0);
  expect(JSON.parse(modern.stdout()).server).toEqual({
    name: 'modern-only',
    era: 'modern',
    protocolVersion: '2026-07-28',
  });
  const legacy = bufferIo();
  expect(
    await execute(
      ['inspect', '--mcp', `${node} test/fixtures/mcp/legacy-only-server.mjs`, '--era', 'legacy'],
      legacy.io,
    ),
  ).toBe(0);
  expect(legacy.stdout().split('\n')[0]).toBe('MCP server "legacy-only": legacy era, protocol 2025-11-25');
  const wrong = bufferIo();
  expect(await execute(['inspect', '--mcp', 'node x.js', '--era', 'newest'], wrong.io)).toBe(2);
  expect(wrong.stderr()).toContain('--era must be auto, legacy or modern');
});
