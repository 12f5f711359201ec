import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from './support/wire.js';

// What `toolpact/mcp` loads when imported: the SDK's server core and stdio transport, and nothing of
// its HTTP stacks or its client, which are imported only when a URL is served or a server is imported.

function staticSpecifiers(entry: string): Set<string> {
  const seen = new Set<string>();
  const specifiers = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const match of source.matchAll(/^\s*(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/gm)) {
      if (/^\s*(?:import|export)\s+type\s/.test(match[0])) continue;
      const specifier = match[1]!;
      if (!specifier.startsWith('.')) {
        specifiers.add(specifier);
        continue;
      }
      const target = resolve(dirname(file), specifier);
      const typescript = target.replace(/\.js$/, '.ts');
      visit(existsSync(typescript) ? typescript : target);
    }
  };
  visit(entry);
  return specifiers;
}

test('importing toolpact/mcp loads no SDK client and no HTTP transport', () => {
  const sdk = [...staticSpecifiers(join(ROOT, 'src', 'mcp', 'index.ts'))]
    .filter((specifier) => specifier.startsWith('@modelcontextprotocol/sdk/'))
    .sort();
  expect(sdk).toEqual([
    '@modelcontextprotocol/sdk/server/index.js',
    '@modelcontextprotocol/sdk/server/stdio.js',
    '@modelcontextprotocol/sdk/types.js',
  ]);
});
