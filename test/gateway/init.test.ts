// `toolpact gateway init` through the CLI: where it writes the gateway's files (outside every folder a
// server can reach), the starter policy it writes (the tools their servers say are read-only, each by
// server and name; everything else asks), and the servers it cannot resolve (left out, named).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { execute } from '../../src/cli/main.js';
import { toolpactArgs } from '../support/cli-build.js';
import { isRunning, until } from './support.js';

const HINTED = resolve('test/fixtures/gateway/hinted-server.mjs');
const FILESYSTEM = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const TIMEOUT = 60_000;
// biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's own variable, as written in its file
const WORKSPACE_FOLDER = '${workspaceFolder}';
let dir: string;
let xdg: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-gateway-init-'));
  xdg = join(dir, 'xdg');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: readonly string[], cwd = dir) {
  let stdout = '';
  let stderr = '';
  const code = await execute(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd,
    env: { XDG_CONFIG_HOME: xdg, HOME: join(dir, 'home') },
    interactive: false,
  });
  return { code, stdout, stderr };
}

function writeJson(file: string, value: unknown): string {
  mkdirSync(resolve(file, '..'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  return file;
}

/** The one config init wrote in the user's config folder. */
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON, read only in assertions
function writtenConfig(): { file: string; value: { [key: string]: any } } {
  const folder = join(xdg, 'toolpact');
  const [name, ...rest] = readdirSync(folder).filter((each) => !each.endsWith('.lock.json'));
  expect(rest).toEqual([]);
  const file = join(folder, name!);
  return { file, value: JSON.parse(readFileSync(file, 'utf8')) };
}

async function connect(config: string, args: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: toolpactArgs('gateway', '--config', config, ...args),
    stderr: 'pipe',
  });
  const client = new Client(
    { name: 'init-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { decision: 'deny' } };
  });
  await client.connect(transport);
  const close = async () => {
    const pid = transport.pid;
    await client.close();
    if (pid) await until(() => !isRunning(pid), 'the gateway ended with its stdin');
  };
  return { client, asked, close };
}

describe('the starter policy', () => {
  test(
    'lists exactly the tool its server says is read-only, by server and name; the gateway allows it, asks for the write and for a tool that appears later',
    async () => {
      const extra = join(dir, 'extra');
      const host = writeJson(join(dir, 'project', '.mcp.json'), {
        mcpServers: {
          hinted: { command: process.execPath, args: [HINTED], env: { HINTED_EXTRA_FILE: extra } },
        },
      });
      const result = await run(['gateway', 'init', '--from', host]);
      expect(result.code, result.stderr + result.stdout).toBe(0);
      expect(result.stdout).toContain('allows 1 of 2 tools');
      const { file, value } = writtenConfig();
      expect(file).toMatch(/gateway-claude-code-project-[0-9a-f]{8}\.json$/);
      expect(result.stdout).toContain(file);
      const policy = value.toolpact.policy;
      expect(policy.importedDefault).toBe('ask');
      expect(policy.description).toContain('Review the list');
      expect(policy.rules).toEqual([
        {
          id: 'read-only:hinted:look',
          action: 'allow',
          source: 'mcp:hinted',
          tool: 'look',
          reason: expect.stringContaining('read-only (readOnlyHint)'),
        },
      ]);

      // The server gains a read-only-hinted tool after init: the list does not cover it.
      writeFileSync(extra, 'on');
      const { client, asked, close } = await connect(file);
      const look = await client.callTool({ name: 'look', arguments: { text: 'a' } });
      expect(look.structuredContent).toEqual({ text: 'look: a' });
      expect(asked).toEqual([]);
      const change = await client.callTool({ name: 'change', arguments: { text: 'b' } });
      expect(change.isError).toBe(true);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('change');
      const later = await client.callTool({ name: 'later', arguments: { text: 'c' } });
      expect(later.isError).toBe(true);
      expect(asked).toHaveLength(2);
      expect(asked[1]).toContain('later');
      await close();
    },
    TIMEOUT,
  );

  test('with --no-pin it starts nothing, allows nothing, and says so', async () => {
    const host = writeJson(join(dir, 'project', '.mcp.json'), {
      mcpServers: { hinted: { command: process.execPath, args: [HINTED] } },
    });
    const result = await run(['gateway', 'init', '--from', host, '--no-pin']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('allows nothing yet');
    const { value } = writtenConfig();
    expect(value.toolpact.policy.rules).toEqual([]);
    expect(value.toolpact.policy.importedDefault).toBe('ask');
  });

  test('a server it cannot resolve is left out, named with the reason; the rest is written', async () => {
    const host = writeJson(join(dir, 'project', '.vscode', 'mcp.json'), {
      inputs: [{ type: 'promptString', id: 'api-key', description: 'The key' }],
      servers: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's input variable, as written
        keyed: { type: 'stdio', command: 'node', args: ['server.js'], env: { KEY: '${input:api-key}' } },
        hinted: { type: 'stdio', command: process.execPath, args: [HINTED] },
      },
      toolpact: { servers: { keyed: { timeoutMs: 1000 } } },
    });
    const result = await run(['gateway', 'init', '--from', host, '--no-pin']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Left out keyed: it cannot be resolved here\..*input:api-key/);
    const { value } = writtenConfig();
    expect(Object.keys(value.servers)).toEqual(['hinted']);
    expect(value.toolpact.servers).toEqual({});
  });
});

describe("where init writes the gateway's files", () => {
  test('--out inside the workspace, or inside a folder a server names, is refused; the default is the user config folder', async () => {
    const workspace = join(dir, 'work');
    const data = join(dir, 'data');
    mkdirSync(data, { recursive: true });
    const host = writeJson(join(workspace, '.vscode', 'mcp.json'), {
      servers: {
        files: { type: 'stdio', command: process.execPath, args: [FILESYSTEM, data] },
      },
    });
    const inside = await run([
      'gateway',
      'init',
      '--from',
      host,
      '--out',
      join(workspace, '.vscode', 'gateway.json'),
      '--no-pin',
    ]);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain(`inside ${workspace} (the workspace folder)`);
    // A path that reaches the same folder through `..` is the same folder.
    const dotted = await run([
      'gateway',
      'init',
      '--from',
      host,
      '--out',
      join(dir, 'elsewhere', '..', 'data', 'g.json'),
      '--no-pin',
    ]);
    expect(dotted.code).toBe(2);
    expect(dotted.stderr).toContain('a folder the arguments of "files" name');
    // A sibling whose name starts the same is not inside.
    const sibling = join(dir, 'data-b', 'gateway.json');
    const beside = await run(['gateway', 'init', '--from', host, '--out', sibling, '--no-pin']);
    expect(beside.code, beside.stderr).toBe(0);
    rmSync(sibling);

    const fine = await run(['gateway', 'init', '--from', host, '--no-pin']);
    expect(fine.code, fine.stderr).toBe(0);
    const { file } = writtenConfig();
    expect(file.startsWith(join(xdg, 'toolpact'))).toBe(true);
    expect(readdirSync(join(workspace, '.vscode'))).toEqual(['mcp.json']);
  });

  test(
    'the filesystem server, allowed on the workspace, cannot write the gateway’s policy through the gateway',
    async () => {
      const workspace = join(dir, 'work');
      const host = writeJson(join(workspace, '.vscode', 'mcp.json'), {
        servers: {
          files: { type: 'stdio', command: process.execPath, args: [FILESYSTEM, WORKSPACE_FOLDER] },
        },
      });
      const result = await run(['gateway', 'init', '--from', host]);
      expect(result.code, result.stderr + result.stdout).toBe(0);
      const { file, value } = writtenConfig();
      // The workspace the host meant, not the folder the gateway's config now sits in.
      expect(value.servers.files.args).toEqual([FILESYSTEM, workspace]);
      // For this test only, every call runs.
      const allowAll = writeJson(join(xdg, 'toolpact', 'allow-all.policy.json'), {
        rules: [{ id: 'all', action: 'allow', source: 'mcp:*' }],
      });
      const lock = file.replace(/\.json$/, '.lock.json');
      const before = [file, lock, allowAll].map((each) => readFileSync(each));
      const hostile = JSON.stringify({ rules: [{ id: 'everything', action: 'allow' }] });

      const { client, asked, close } = await connect(file, ['--policy', allowAll]);
      for (const path of [
        file,
        allowAll,
        join(workspace, '..', 'xdg', 'toolpact', 'allow-all.policy.json'),
      ]) {
        const written = await client.callTool({ name: 'write_file', arguments: { path, content: hostile } });
        expect(written.isError, JSON.stringify(written.content)).toBe(true);
        expect(JSON.stringify(written.content)).toMatch(/outside allowed directories|Access denied/i);
      }
      // The server itself works: a file inside the workspace is written.
      const inside = await client.callTool({
        name: 'write_file',
        arguments: { path: join(workspace, 'note.txt'), content: 'fine' },
      });
      expect(inside.isError, JSON.stringify(inside.content)).not.toBe(true);
      expect(readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe('fine');
      expect(asked).toEqual([]);
      await close();
      expect([file, lock, allowAll].map((each) => readFileSync(each))).toEqual(before);
    },
    TIMEOUT,
  );
});
