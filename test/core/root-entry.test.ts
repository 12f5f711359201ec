import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const srcDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** The file an import specifier names: the `.ts` source of a `.js` specifier, else the file itself. */
function sourceOf(path: string): string {
  const typescript = path.replace(/\.js$/, '.ts');
  return existsSync(typescript) ? typescript : path;
}

/** Every package a module graph imports statically (dynamic `import()` is lazy and not counted). */
function staticPackages(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    // Comments (JSDoc examples show imports too) are removed before the import statements are read.
    const source = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const match of source.matchAll(/^\s*(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/gm)) {
      const specifier = match[1]!;
      if (/^\s*(?:import|export)\s+type\s/.test(match[0])) continue;
      if (specifier.startsWith('.')) visit(sourceOf(resolve(dirname(file), specifier)));
      else
        packages.add(
          specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!,
        );
    }
  };
  visit(entry);
  return { files, packages };
}

// The agent frameworks are optional peers, each loaded only by its own subpath.
const FRAMEWORKS = ['ai', '@langchain/core', '@openai/agents'];

test('the root entry does not load the compiler, the MCP SDK, the tokenizer, the TypeScript loader or a framework', () => {
  const { files, packages } = staticPackages(join(srcDir, 'index.ts'));
  expect(files.size).toBeGreaterThan(10);
  for (const heavy of ['typescript', '@modelcontextprotocol/sdk', 'gpt-tokenizer', 'tsx', ...FRAMEWORKS]) {
    expect([...packages]).not.toContain(heavy);
  }
  expect([...packages].filter((name) => !name.startsWith('node:')).sort()).toEqual(['ajv', 'ajv-formats']);
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
