import { join } from 'node:path';
import { expect, test } from 'vitest';
import { staticImports } from '../support/import-graph.js';
import { ROOT } from './support/wire.js';

// What `toolpact/mcp` loads when imported: the SDK's server core and stdio transport, and nothing of
// its HTTP stacks or its client, which are imported only when a URL is served or a server is imported.

test('importing toolpact/mcp loads no SDK client and no HTTP transport', () => {
  const sdk = [...staticImports(join(ROOT, 'src', 'mcp', 'index.ts')).specifiers]
    .filter((specifier) => specifier.startsWith('@modelcontextprotocol/sdk/'))
    .sort();
  expect(sdk).toEqual([
    '@modelcontextprotocol/sdk/server/index.js',
    '@modelcontextprotocol/sdk/server/stdio.js',
    '@modelcontextprotocol/sdk/types.js',
  ]);
});
