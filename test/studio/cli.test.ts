import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import { serveHttp } from '../../src/mcp/index.js';
import { notesTools } from '../fixtures/studio/notes-tools.js';
import { runCli } from '../support/cli.js';
import { toolpactArgs } from '../support/cli-build.js';
import { EVERYTHING, ROOT } from './support.js';

const MODULE = join('test', 'fixtures', 'studio', 'notes-module.ts');

describe('toolpact studio: usage errors exit 2 with a message', () => {
  test.each([
    [['studio'], 'Give a module of tools, --mcp'],
    [['studio', MODULE, '--mcp', 'node server.js'], 'not several'],
    [['studio', '--url', 'ftp://example.com/mcp'], '--url must be an http(s) URL'],
    [['studio', MODULE, '--port', 'eighty'], '--port needs a whole number'],
    [['studio', 'no/such/module.ts'], 'Cannot find the module'],
    [['studio', MODULE, 'extra'], 'Unexpected arguments: extra'],
    [
      ['studio', MODULE, '--host', '0.0.0.0'],
      '--host 0.0.0.0 is reachable from the network, and no --auth is given',
    ],
    [['studio', MODULE, '--auth', 'no/such/auth.json'], '--auth: Cannot read the auth file'],
  ])('%j', async (argv, message) => {
    const { code, stderr, stdout } = await runCli(argv, { cwd: ROOT });
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stdout).toBe('');
  });

  test('an --auth file without a "studio" section is refused, naming what to add', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolpact-studio-auth-'));
    try {
      const file = join(folder, 'auth.json');
      writeFileSync(
        file,
        JSON.stringify({ resource: 'https://tools.example.com/mcp', issuers: ['https://id.example.com'] }),
      );
      const { code, stderr } = await runCli(['studio', MODULE, '--auth', file], { cwd: ROOT });
      expect(code).toBe(2);
      expect(stderr).toContain('has no "studio" section');
      expect(stderr).toContain('"clientId"');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  test('--help prints the usage, and the command is listed', async () => {
    expect((await runCli(['studio', '--help'])).stdout).toContain('toolpact studio <module> [--port <n>]');
    expect((await runCli(['--help'])).stdout).toMatch(/studio {4,}open a local page/);
  });
});

/** Starts `toolpact <args>` as a process and resolves with the URL it prints. */
async function startCli(args: string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, toolpactArgs(...args), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /open (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`toolpact ${args[0]} exited with ${code}: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

const overview = async (url: string) =>
  (await (await fetch(`${url}api/overview`)).json()) as { tools: { name: string; title: string | null }[] };

describe('toolpact studio, started as a process', () => {
  test('it serves the module at a tokened URL, reloads when the module changes, and stops on SIGTERM', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolpact-studio-cli-'));
    const file = join(folder, 'tools.ts');
    const entry = pathToFileURL(join(ROOT, 'src', 'index.ts')).href;
    const module = (title: string) => `import { createTool } from ${JSON.stringify(entry)};
export default [
  createTool(
    { name: 'echo', title: ${JSON.stringify(title)}, category: 'read',
      description: 'Return the text given. Use it to check calls arrive. It changes nothing.',
      parameters: { type: 'object', properties: { text: { type: 'string', description: 'The text.' } }, required: ['text'] } },
    { execute: ({ text }) => text },
  ),
];
`;
    writeFileSync(file, module('Echo'));
    const { child, url, stderr } = await startCli(['studio', file, '--port', '0']);
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/$/);
      expect((await overview(url)).tools).toMatchObject([{ name: 'echo', title: 'Echo' }]);
      expect((await fetch(new URL(url).origin)).status).toBe(403);
      writeFileSync(file, module('Echo again'));
      await expect
        .poll(async () => (await overview(url)).tools[0]?.title, { timeout: 15_000 })
        .toBe('Echo again');
      // A module that breaks keeps the last tool set on the page, with the reason.
      writeFileSync(file, 'export default [ this is not TypeScript');
      await expect
        .poll(async () => ((await overview(url)) as { loadError?: string }).loadError, { timeout: 15_000 })
        .toContain('Cannot load');
      expect((await overview(url)).tools).toHaveLength(1);
    } finally {
      expect(await stop(child)).toBe(0);
      rmSync(folder, { recursive: true, force: true });
    }
    expect(stderr()).toContain('SIGTERM, stopping.');
  });

  test('--mcp shows the tools of an MCP server started over stdio', async () => {
    const { child, url } = await startCli([
      'studio',
      '--mcp',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)}`,
    ]);
    try {
      const names = (await overview(url)).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });

  test('--url shows the tools of an MCP server at a Streamable HTTP endpoint', async () => {
    const server = await serveHttp(new Registry().register(notesTools()));
    try {
      const { child, url } = await startCli(['studio', '--url', server.url]);
      try {
        const names = (await overview(url)).tools.map((tool) => tool.name);
        expect(names).toEqual(['read_note', 'search_notes', 'write_note', 'delete_note']);
      } finally {
        expect(await stop(child)).toBe(0);
      }
    } finally {
      await server.close();
    }
  });

  test('--gateway shows the tools of every server of a gateway config, overrides applied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolpact-studio-gateway-'));
    try {
      const config = join(dir, 'mcp.json');
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: {
            everything: { command: process.execPath, args: [EVERYTHING] },
            other: { command: process.execPath, args: [EVERYTHING] },
          },
          toolpact: {
            servers: { everything: { tools: { echo: { description: 'Say it back, verbatim.' } } } },
          },
        }),
      );
      const { child, url } = await startCli(['studio', '--gateway', config]);
      try {
        const tools = (await overview(url)).tools;
        const names = tools.map((tool) => tool.name);
        // The second server's tools collide with the first's, so they are prefixed with its name.
        expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'other_echo']));
      } finally {
        expect(await stop(child)).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
