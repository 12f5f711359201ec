import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { generateContracts } from '../../src/extract/generate-contracts.js';
import { READ_FILE, typeFirstSource as source } from './support.js';

// The outcomes of `toolpact gen`, computed without the CLI: written, unchanged, up to date, stale,
// missing, no tools, failed.

let dir: string;
let output: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-generate-'));
  output = join(dir, 'contracts.generated.ts');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const generate = (check: boolean) =>
  generateContracts({ inputs: ['tools.ts'], project: false, output, check, cwd: dir });

describe('generateContracts', () => {
  test('checking with no module is missing and writes nothing; then it writes once, and again is unchanged', () => {
    writeFileSync(join(dir, 'tools.ts'), source(READ_FILE));
    expect(generate(true)).toMatchObject({ status: 'missing', tools: 1 });
    expect(existsSync(output)).toBe(false);
    expect(generate(false)).toEqual({
      status: 'written',
      tools: 1,
      changes: { added: ['read_file'], removed: [], changed: [], inputsChanged: true },
    });
    const written = readFileSync(output, 'utf8');
    expect(written).toContain('read_file');
    expect(generate(false)).toMatchObject({ status: 'unchanged', tools: 1 });
    expect(generate(true)).toMatchObject({ status: 'up_to_date', tools: 1 });
    expect(readFileSync(output, 'utf8')).toBe(written);
  });

  test('a changed parameter type is stale when checking, and leaves the module as it was', () => {
    writeFileSync(join(dir, 'tools.ts'), source(READ_FILE));
    generate(false);
    const before = readFileSync(output, 'utf8');
    writeFileSync(join(dir, 'tools.ts'), source(READ_FILE.replace('path: string', 'path: string[]')));
    expect(generate(true)).toEqual({
      status: 'stale',
      tools: 1,
      changes: { added: [], removed: [], changed: ['read_file'], inputsChanged: true },
    });
    expect(readFileSync(output, 'utf8')).toBe(before);
  });

  test('a file without tools is no_tools; a tool the compiler cannot read is failed, with its diagnostics', () => {
    writeFileSync(join(dir, 'tools.ts'), 'export const x = 1;\n');
    expect(generate(false)).toEqual({ status: 'no_tools' });
    writeFileSync(join(dir, 'tools.ts'), source(READ_FILE.replace('@category read', '@category nonsense')));
    const failed = generate(false);
    expect(failed.status).toBe('failed');
    expect(failed.status === 'failed' && failed.diagnostics.length).toBeGreaterThan(0);
    expect(existsSync(output)).toBe(false);
  });
});
