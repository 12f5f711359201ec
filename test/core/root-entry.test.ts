import { readFileSync } from 'node:fs';
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
    // The framework, an optional peer, loads at the top level of the folder's peer.ts, so that a missing
    // one is named (src/util/optional-peer.ts); everything else the entry loads is static.
    const packages = new Set([
      ...staticPackages(join(srcDir, folder, 'index.ts')).packages,
      ...peerLoads(folder),
    ]);
    expect([...packages], folder).toContain(framework);
    for (const other of [
      ...FRAMEWORKS.filter((name) => name !== framework),
      '@modelcontextprotocol/sdk',
      'gpt-tokenizer',
    ]) {
      expect([...packages], folder).not.toContain(other);
    }
  }
});

/** The packages a folder's peer.ts loads with `import('…')`, as package names. */
function peerLoads(folder: string): string[] {
  const source = readFileSync(join(srcDir, folder, 'peer.ts'), 'utf8');
  return [...source.matchAll(/import\('([^']+)'\)/g)].map(([, specifier]) =>
    specifier!.startsWith('@') ? specifier!.split('/').slice(0, 2).join('/') : specifier!.split('/')[0]!,
  );
}
