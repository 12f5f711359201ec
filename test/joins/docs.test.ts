import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import * as agent from '../../src/agent/index.js';
import * as otel from '../../src/otel/index.js';
import * as search from '../../src/search/index.js';

const subpaths: Record<string, Record<string, unknown>> = { agent, otel, search };

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const page = readFileSync(join(root, 'docs', 'agent.md'), 'utf8');

/** The `ts` blocks of the "Working together" section of docs/agent.md. */
function workingTogetherBlocks(): string[] {
  const start = page.indexOf('## Working together');
  expect(start).toBeGreaterThan(-1);
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** The `// #region docs` part of a test file, unindented. */
function region(file: string): string {
  const source = readFileSync(join(root, 'test', 'joins', file), 'utf8');
  const match = /\/\/ #region docs\n([\s\S]*?)\n\s*\/\/ #endregion docs/.exec(source);
  expect(match, file).not.toBeNull();
  return `${match![1]!
    .split('\n')
    .map((line) => line.replace(/^ {2}/, ''))
    .join('\n')}\n`;
}

test('the "Working together" snippets of docs/agent.md are the code the join tests run', () => {
  const blocks = workingTogetherBlocks();
  const files = ['agent-tool-search.test.ts', 'agent-otel.test.ts'];
  expect(blocks).toHaveLength(files.length);
  for (const [index, block] of blocks.entries()) {
    const lines = block.split('\n');
    const imports = lines.filter((line) => line.startsWith('import '));
    const code = lines.slice(imports.length).join('\n').replace(/^\n/, '');
    expect(code, files[index]).toBe(region(files[index]!));
    // Each import names real exports of the package subpath it imports from.
    for (const line of imports) {
      const [, names, subpath] = /^import \{ (.+) \} from 'toolpact\/([a-z-]+)';$/.exec(line) ?? [];
      expect(names, line).toBeDefined();
      for (const name of names!.split(', '))
        expect(subpaths[subpath!]?.[name], `${name} of toolpact/${subpath}`).toBeDefined();
    }
  }
});
