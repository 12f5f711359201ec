import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { staticPackages } from '../support/import-graph.js';

const srcDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

test('the root entry does not load the compiler, the MCP SDK, the tokenizer or the TypeScript loader', () => {
  const { files, packages } = staticPackages(join(srcDir, 'index.ts'));
  expect(files.size).toBeGreaterThan(10);
  for (const heavy of ['typescript', '@modelcontextprotocol/sdk', 'gpt-tokenizer', 'tsx']) {
    expect([...packages]).not.toContain(heavy);
  }
  expect([...packages].sort()).toEqual(['ajv', 'ajv-formats']);
});
