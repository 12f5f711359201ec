// A new user's first hour with the CLI (issue 27 §5): the host entry init prints runs as pasted, one
// server it cannot use does not abort init, a typo is named as one, a usage line follows only a usage
// error, the operator sees whole paths while the model does not, and counts read as English.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { execute } from '../../src/cli/main.js';
import { VERSION } from '../../src/cli/version.js';
import { readGatewayConfig } from '../../src/gateway/config/index.js';
import { startGateway } from '../../src/gateway/gateway.js';
import { pinServer } from '../../src/gateway/lock.js';
import { writeLock } from '../../src/gateway/lock-file.js';
import { toolpactArgs } from '../support/cli-build.js';

const HINTED = resolve('test/fixtures/gateway/hinted-server.mjs');
const SOURCE_ENTRY = resolve('src/index.ts');
let dir: string;
let xdg: string;

beforeEach(() => {
  // Real paths: the printed entry names the real path of the bin, and messages are compared to paths.
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-first-hour-')));
  xdg = join(dir, 'xdg');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: readonly string[]) {
  let stdout = '';
  let stderr = '';
  const code = await execute(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd: dir,
    env: { XDG_CONFIG_HOME: xdg, HOME: join(dir, 'home') },
    interactive: false,
  });
  return { code, stdout, stderr };
}

function writeJson(file: string, value: unknown): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  return file;
}

/** The JSON block init prints for the host's file. */
function printedEntry(stdout: string): { command: string; args: string[]; type?: string } {
  const start = stdout.indexOf('\n{', stdout.indexOf('replace those servers'));
  const block = stdout.slice(start + 1, stdout.indexOf('\n}\n', start) + 2);
  const parsed = JSON.parse(block) as { [key: string]: { 'toolpact-gateway': never } };
  return Object.values(parsed)[0]!['toolpact-gateway'];
}

describe('gateway init', () => {
  test('prints an entry that runs this installed copy by absolute paths, which starts the gateway from another folder; --npx names the version', async () => {
    const host = writeJson(join(dir, 'project', '.mcp.json'), {
      mcpServers: { hinted: { command: process.execPath, args: [HINTED] } },
    });
    const result = await run(['gateway', 'init', '--from', host, '--no-pin']);
    expect(result.code, result.stderr).toBe(0);
    const entry = printedEntry(result.stdout);
    expect(entry.command).toBe(process.execPath);
    expect(entry.args[0]).toBe(realpathSync(resolve('bin/toolpact.js')));
    expect(entry.args.slice(1, 3)).toEqual(['gateway', '--config']);
    expect(result.stdout).not.toContain('"npx"');

    // Pasted as printed, run from a folder that has nothing of toolpact (as a host starts it).
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      cwd: elsewhere,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'first-hour', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['change', 'look']);
    } finally {
      await client.close();
    }

    const again = await run([
      'gateway',
      'init',
      '--from',
      host,
      '--no-pin',
      '--npx',
      '--out',
      join(dir, 'second.json'),
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(printedEntry(again.stdout)).toEqual({
      command: 'npx',
      args: ['-y', `toolpact@${VERSION}`, 'gateway', '--config', join(dir, 'second.json')],
    });
  }, 60_000);

  test('leaves out a server with an input variable and one with an unknown key, each named with why, and writes the rest', async () => {
    const host = writeJson(join(dir, 'project', '.mcp.json'), {
      mcpServers: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's input variable, copied into a Claude Code file
        keyed: { command: 'node', args: ['server.js', '${input:api-token}'] },
        typo: { command: 'node', args: ['server.js'], timeout: 5 },
        hinted: { command: process.execPath, args: [HINTED] },
      },
    });
    const result = await run(['gateway', 'init', '--from', host, '--no-pin']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Left out keyed: it cannot be resolved here\..*\$\{API_TOKEN\}/);
    expect(result.stdout).toMatch(/Left out typo: its entry cannot be used\..*unknown key "timeout"/);
    const folder = join(xdg, 'toolpact');
    const [written] = readdirSync(folder);
    const config = readGatewayConfig(join(folder, written!));
    expect(config.servers.map((server) => server.name)).toEqual(['hinted']);
  });
});

describe('errors', () => {
  test('a misspelt key is named with the key it resembles, in a host entry and in a policy file', async () => {
    const config = writeJson(join(dir, 'mcp.json'), { mcpServers: { files: { comand: 'node' } } });
    const check = await run(['gateway', 'check', '--config', config]);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain('unknown key "comand". Did you mean "command"?');
    expect(check.stderr).not.toContain('needs a "command"');

    const policy = writeJson(join(dir, 'policy.json'), {
      rules: [{ id: 'reads', action: 'allow', tools: 'read_*' }],
    });
    const checked = await run(['policy', 'check', policy]);
    expect(checked.stdout + checked.stderr).toContain('unknown key "tools". Did you mean "tool"?');
    // A key like no other gets no guess.
    const far = writeJson(join(dir, 'far.json'), { rules: [{ id: 'x', action: 'allow', zzzzzz: 1 }] });
    const farChecked = await run(['policy', 'check', far]);
    expect(farChecked.stdout + farChecked.stderr).toContain('unknown key "zzzzzz". Rule keys');
  });

  test('a usage line follows a usage error only, not an error in a config, policy or module file', async () => {
    const config = writeJson(join(dir, 'mcp.json'), { mcpServers: { files: { comand: 'node' } } });
    const usage = (text: string) => text.includes('Usage:');
    const cases: [string[], boolean][] = [
      [['gateway', '--config', config], false],
      [['gateway', 'check', '--config', join(dir, 'missing.json')], false],
      [['gateway', '--config', config, '--policy', join(dir, 'no-policy.json')], false],
      [['call', join(dir, 'missing.ts'), 'look'], false],
      [['gateway', '--bogus'], true],
      [['gateway', 'check'], true],
      [['call'], true],
    ];
    for (const [argv, expected] of cases) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(usage(result.stderr), `${argv.join(' ')}: ${result.stderr}`).toBe(expected);
    }
  });
});

describe('what the operator sees, and what the model sees', () => {
  test('a server that does not start: check shows its whole path, 0 tools and 0 tokens, in the singular where one', async () => {
    const missing = join(dir, 'servers', 'missing-server.mjs');
    const config = writeJson(join(dir, 'mcp.json'), {
      mcpServers: { broken: { command: process.execPath, args: [missing] } },
    });
    const result = await run(['gateway', 'check', '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`did not start: `);
    expect(result.stdout).toMatch(new RegExp(`did not start: .*${escapeRegExp(missing)}`));
    expect(result.stdout).toContain('0 tools from 1 server cost 0 tokens a request');
    expect(result.stdout).not.toMatch(/\b1 servers\b|\b1 tools\b/);
  }, 30_000);

  test('the gateway log names the whole path; the model is told the server is unavailable without it', async () => {
    const missing = join(dir, 'servers', 'missing-server.mjs');
    const config = writeJson(join(dir, 'mcp.json'), {
      mcpServers: { broken: { command: process.execPath, args: [missing] } },
      toolpact: { policy: { rules: [{ id: 'all', action: 'allow', source: 'mcp:*' }] } },
    });
    // Pinned by an earlier start, so its tool is listed while the server is down.
    writeLock(
      join(dir, 'mcp.lock.json'),
      pinServer(undefined, 'broken', [
        { name: 'echo', description: 'Answer the text given.', inputSchema: { type: 'object' } },
      ]),
    );
    const logs: string[] = [];
    const gateway = await startGateway({
      config: readGatewayConfig(config),
      watch: false,
      restart: { maxFailures: 1 },
      log: (line) => logs.push(line),
    });
    try {
      expect(gateway.status()[0]?.state).toBe('down');
      expect(logs.join('\n')).toContain(missing);
      const result = await gateway.registry.call('echo', { text: 'hi' });
      expect(result.ok).toBe(false);
      const message = result.ok ? '' : result.error.message;
      expect(result.ok ? undefined : result.error.type).toBe('mcp_server_unavailable');
      expect(message).toContain('missing-server.mjs');
      expect(message).not.toContain(dir);
    } finally {
      await gateway.close();
    }
  }, 30_000);
});

describe('reports', () => {
  test('tool search that costs more than the one tool it stands in for says so, not a negative saving', async () => {
    const module = oneToolModule();
    const result = await run(['inspect', module]);
    expect(result.stdout).toContain('all 1 tool ');
    expect(result.stdout).toMatch(/none: costs \d+% more/);
    expect(result.stdout).not.toMatch(/-\d+%/);
  }, 30_000);
});

test('serve says "1 tool", not "1 tools", when it serves one', async () => {
  const module = oneToolModule();
  const child = spawn(process.execPath, toolpactArgs('serve', module), {
    cwd: dir,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  const serving = new Promise<void>((done, fail) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(' on stdio.')) done();
    });
    child.once('exit', () => fail(new Error(`serve exited before serving: ${stderr}`)));
  });
  const exited = new Promise((done) => child.once('exit', done));
  await serving;
  expect(stderr).toContain('toolpact serve: 1 tool on stdio.');
  child.stdin.end();
  await exited;
}, 30_000);

/** A module with one read tool, `look`, in the test's folder. */
function oneToolModule(): string {
  const module = join(dir, 'one.ts');
  writeFileSync(
    module,
    [
      `import { defineTool } from ${JSON.stringify(SOURCE_ENTRY)};`,
      "export const look = defineTool({ name: 'look', category: 'read', description: 'Say what is there.', execute: () => 'nothing' });",
    ].join('\n'),
  );
  return module;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
