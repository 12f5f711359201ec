// `gateway login` and `gateway logout` refuse what cannot sign in, each with what to do instead, before
// any browser or listener: a missing name, an unknown server, one left out of the gateway, a stdio
// server, one that sends its own Authorization header, a --timeout that is no number of seconds.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { fileTokenStore } from '../../src/mcp/oauth/token-store.js';
import { runCli } from '../support/cli.js';

let dir: string;
let config: string;
const KEY = 'ab'.repeat(32);
const env = () => ({ TOOLPACT_TOKEN_KEY: KEY, XDG_STATE_HOME: join(dir, 'state') });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-gateway-login-cli-'));
  config = join(dir, '.mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        remote: { type: 'http', url: 'https://mcp.example.com/mcp' },
        local: { command: 'node', args: ['server.js'] },
        keyed: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
        helper: { type: 'http', url: 'https://mcp.example.com/mcp', headersHelper: './token.sh' },
        old: { type: 'sse', url: 'https://mcp.example.com/sse' },
      },
    }),
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (...argv: string[]) => runCli(['gateway', ...argv], { cwd: dir, env: env() });

test.each([
  [['login', '--config', '.mcp.json'], 2, 'Name the server: toolpact gateway login <server>'],
  [['login', 'nope', '--config', '.mcp.json'], 2, '"nope" is not a server of'],
  [
    ['login', 'helper', '--config', '.mcp.json'],
    2,
    '"helper" is left out of the gateway: it takes its headers',
  ],
  [['login', 'local', '--config', '.mcp.json'], 2, '"local" is a stdio server'],
  [['login', 'keyed', '--config', '.mcp.json'], 2, '"keyed" sends an Authorization header'],
  [
    ['login', 'remote', '--config', '.mcp.json', '--timeout', 'soon'],
    2,
    '--timeout takes a whole number of seconds',
  ],
  [['login', 'remote', 'other', '--config', '.mcp.json'], 2, 'Unexpected arguments: other'],
  [['login', 'old', '--config', '.mcp.json'], 1, '"old" is an "sse" server'],
  [['login', 'remote'], 2, "Give the gateway's config with --config"],
  [['logout', 'nope', '--config', '.mcp.json'], 2, '"nope" is not a server of'],
  [['logout', 'local', '--config', '.mcp.json'], 2, '"local" is a stdio server'],
])('gateway %j exits %i: %s', async (argv, code, words) => {
  const result = await run(...argv);
  expect(result.code).toBe(code);
  expect(result.stderr).toContain(words);
  expect(result.stdout).toBe('');
});

test('logout forgets the sign-in of that server only, and says when there was none', async () => {
  const file = join(dir, 'state', 'toolpact', 'mcp-tokens.json');
  const store = fileTokenStore(file, { key: KEY });
  await store.write('remote', 'local', { tokens: { access_token: 'a-token', token_type: 'Bearer' } });
  await store.write('other', 'local', { tokens: { access_token: 'kept', token_type: 'Bearer' } });
  const first = await run('logout', 'remote', '--config', '.mcp.json');
  expect(first.code).toBe(0);
  expect(first.stdout).toContain(`Signed out of remote: its sign-in was removed from ${file}`);
  expect(await store.read('remote', 'local')).toBeUndefined();
  expect((await store.read('other', 'local'))?.tokens?.access_token).toBe('kept');
  const second = await run('logout', 'remote', '--config', '.mcp.json');
  expect(second.code).toBe(0);
  expect(second.stdout).toContain('No sign-in to remote is kept');
  expect(readFileSync(file, 'utf8')).not.toContain('kept');
});

test('a callbackPort already taken is refused with the port and the way out', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as AddressInfo;
  try {
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          remote: { type: 'http', url: 'https://mcp.example.com/mcp', oauth: { callbackPort: port } },
        },
      }),
    );
    const result = await run('login', 'remote', '--config', '.mcp.json', '--no-browser');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `Could not listen for the sign-in's redirect on 127.0.0.1 port ${port}: EADDRINUSE`,
    );
    expect(result.stderr).toContain('change "callbackPort"');
  } finally {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  }
});

test('with nothing stored, logout makes no key file: an empty store is read without its key', async () => {
  const result = await runCli(['gateway', 'logout', 'remote', '--config', '.mcp.json'], {
    cwd: dir,
    env: { XDG_STATE_HOME: join(dir, 'state') },
  });
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('No sign-in to remote is kept');
  expect(existsSync(join(dir, 'state', 'toolpact', 'mcp-tokens.json.key'))).toBe(false);
});

test('the help names login and logout', async () => {
  const result = await runCli(['gateway', '--help'], { cwd: dir, env: env() });
  expect(result.stdout + result.stderr).toContain(
    'toolpact gateway login <server> --config <mcp.json> [--no-browser]',
  );
  expect(result.stdout + result.stderr).toContain('toolpact gateway logout <server> --config <mcp.json>');
});
