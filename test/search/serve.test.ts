import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { ROOT, text } from '../mcp/support/wire.js';
import { runCli } from '../support/cli.js';
import { toolpactArgs } from '../support/cli-build.js';

const WORKSPACE = join('examples', 'workspace', 'index.ts');

describe('toolpact serve --search', () => {
  test('lists read_file and search_tools; a search sends list_changed, and the found tool is listed and callable', async () => {
    const client = new Client({ name: 'search-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: toolpactArgs('serve', WORKSPACE, '--search', '--always-loaded', 'read_file'),
        cwd: ROOT,
        stderr: 'pipe',
      }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
        'read_file',
        'search_tools',
      ]);
      const changed = new Promise<void>((resolve) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
      );
      const found = JSON.parse(
        text(
          await client.callTool({
            name: 'search_tools',
            arguments: { query: 'search file contents for a pattern', k: 1 },
          }),
        ),
      );
      expect(found.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['grep']);
      await changed;
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
        'read_file',
        'grep',
        'search_tools',
      ]);
      const grep = JSON.parse(
        text(await client.callTool({ name: 'grep', arguments: { pattern: 'toolpact' } })),
      );
      expect(grep.ok).toBe(true);
      // Not listed, still callable: loading decides what is shown, the gate what runs.
      const listed = JSON.parse(text(await client.callTool({ name: 'list_dir', arguments: {} })));
      expect(listed.ok).toBe(true);
    } finally {
      await client.close();
    }
  });

  test.each([
    [['serve', WORKSPACE, '--always-loaded', 'read_file'], '--always-loaded applies only with --search'],
    [
      ['serve', WORKSPACE, '--search', '--http', '--stateless', '--max-loaded', '5'],
      '--max-loaded applies only with sessions',
    ],
    [
      ['serve', WORKSPACE, '--search', '--always-loaded', 'read_fil'],
      '"read_fil", which the module does not export',
    ],
    [['serve', WORKSPACE, '--search', '--max-loaded', '0'], '--max-loaded needs a whole number'],
  ])('usage error: %j', async (argv, message) => {
    const { code, stderr } = await runCli(argv);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});
