import { join } from 'node:path';
import { expect, test } from 'vitest';
import { staticImports } from '../support/import-graph.js';
import { ROOT } from './support/wire.js';

// What `toolpact/mcp` loads when imported: the v2 SDK's server core and stdio transport, and nothing of
// its HTTP stacks or its client, which are imported only when a URL is served or a server is imported,
// and nothing of the v1 SDK.

test('importing toolpact/mcp loads no SDK client, no HTTP transport and no v1 SDK', () => {
  const sdk = [...staticImports(join(ROOT, 'src', 'mcp', 'index.ts')).specifiers]
    .filter((specifier) => specifier.startsWith('@modelcontextprotocol/'))
    .sort();
  expect(sdk).toEqual(['@modelcontextprotocol/server', '@modelcontextprotocol/server/stdio']);
});
