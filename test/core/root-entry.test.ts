import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { staticPackages } from '../support/import-graph.js';

const srcDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

// The agent frameworks are optional peers, each loaded only by its own subpath.
const FRAMEWORKS = ['ai', '@langchain/core', '@openai/agents'];

test('the root entry does not load the compiler, the MCP SDK, the tokenizer, the TypeScript loader or a framework', () => {
  const { files, packages } = staticPackages(join(srcDir, 'index.ts'));
  expect(files.size).toBeGreaterThan(10);
  for (const heavy of ['typescript', '@modelcontextprotocol/sdk', 'gpt-tokenizer', 'tsx', ...FRAMEWORKS]) {
    expect([...packages]).not.toContain(heavy);
  }
  expect([...packages].sort()).toEqual(['ajv', 'ajv-formats']);
});

test('each framework subpath loads its own framework and no other, nor the MCP SDK or the tokenizer', () => {
  const subpaths: Record<string, string> = {
    'ai-sdk': 'ai',
    langchain: '@langchain/core',
    'openai-agents': '@openai/agents',
  };
  for (const [folder, framework] of Object.entries(subpaths)) {
    const { packages } = staticPackages(join(srcDir, folder, 'index.ts'));
    expect(packages, folder).toContain(framework);
    for (const other of [
      ...FRAMEWORKS.filter((name) => name !== framework),
      '@modelcontextprotocol/sdk',
      'gpt-tokenizer',
    ]) {
      expect([...packages], folder).not.toContain(other);
    }
  }
});
