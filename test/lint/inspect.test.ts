import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const srcIndex = pathToFileURL(join(root, 'src', 'index.ts')).href;
const GOOD =
  'Read the full text of one UTF-8 file in the workspace. Use it to look at a file whose path you know. Do not use it for binary files.';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-inspect-'));
  writeFileSync(
    join(dir, 'tools.ts'),
    [
      `import { createTool } from ${JSON.stringify(srcIndex)};`,
      `const path = { type: 'string', description: 'File path relative to the workspace root.' };`,
      `export default [`,
      `  createTool({ name: 'read_file', description: ${JSON.stringify(GOOD)}, category: 'read',`,
      `    parameters: { type: 'object', properties: { path }, required: ['path'] } }, { execute: () => null }),`,
      `  createTool({ name: 'tag_items', description: ${JSON.stringify(GOOD.replace('Read', 'Tag').replace('read_file', 'tag_items'))}, category: 'write',`,
      `    parameters: { type: 'object', properties: { 'tag name': { type: 'string', description: 'The tag, e.g. "urgent".' } } } }, { execute: () => null }),`,
      `];`,
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('toolpact inspect', () => {
  it('shows the table with tokens per provider, the refusals and the lint report', async () => {
    const { code, stdout } = await runCli(['inspect', 'tools.ts'], { cwd: dir });
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(
      /^tool\s+category\s+risk\s+permission\s+parameters\s+openai\s+responses\s+anthropic\s+gemini\s+mcp$/,
    );
    expect(lines.find((line) => line.startsWith('read_file '))).toMatch(
      /read_file\s+read\s+low\s+allow\s+path\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+$/,
    );
    expect(lines.find((line) => line.startsWith('(all tools)'))).toMatch(
      /^\(all tools\)\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+$/,
    );
    // Gemini refuses a property name with a space; the refusal is listed and fails the lint.
    expect(stdout).toMatch(
      /Provider refusals:\n {2}gemini\s+tag_items {2}\$\.parameters\.properties\["tag name"\] {2}The property name "tag name"/,
    );
    expect(stdout).toContain('provider-compatibility');
    expect(code).toBe(1);
  });

  it('--format json gives rows with tokens, totals, refusals and findings', async () => {
    const { stdout } = await runCli(['inspect', 'tools.ts', '--format', 'json'], { cwd: dir });
    const data = JSON.parse(stdout) as {
      tools: { name: string; parameters: string[]; tokens: Record<string, number> }[];
      totals: Record<string, number>;
      refusals: { format: string; tool: string; code: string }[];
      findings: { rule: string; severity: string }[];
    };
    expect(data.tools.map((row) => row.name)).toEqual(['read_file', 'tag_items']);
    expect(data.tools[1]!.parameters).toEqual(['tag name?']);
    for (const format of ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp']) {
      expect(data.tools[0]!.tokens[format]).toBeGreaterThan(0);
      expect(data.totals[format]).toBeGreaterThanOrEqual(
        data.tools[0]!.tokens[format]! + data.tools[1]!.tokens[format]!,
      );
    }
    expect(data.refusals).toEqual([
      expect.objectContaining({ format: 'gemini', tool: 'tag_items', code: 'invalid_property_name' }),
    ]);
    expect(
      data.findings.filter((finding) => finding.severity === 'error').map((finding) => finding.rule),
    ).toEqual(['provider-compatibility']);
  });

  it('on the example workspace: no refusals, no errors', async () => {
    const { code, stdout } = await runCli(['inspect', 'examples/workspace/index.ts'], { cwd: root });
    expect(code).toBe(0);
    expect(stdout).toContain(
      'Provider refusals: none; openai, responses, anthropic, gemini, mcp accept every tool.',
    );
    expect(stdout).toMatch(/^read_file\s+read\s+low\s+allow\s+path, start_line\?, line_count\?\s+\d+/m);
  });
});
