import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { execute } from '../../src/cli/main.js';
import { readGatewayConfig } from '../../src/gateway/config/index.js';
import { ROOT } from '../mcp/support/wire.js';
import { runCli } from '../support/cli.js';
import { startProvider, type TestProvider } from '../support/oidc-provider.js';
import { freePort } from '../support/postgres.js';
import { spawnServe } from './support.js';

// --auth and --insecure-no-auth through the CLI: the refusal to serve the network unauthenticated,
// the warning header when told to anyway, and `serve --http --auth` against a real provider.

const MODULE = join('test', 'fixtures', 'mcp', 'registry-module.ts');
let folder: string;
let provider: TestProvider;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-cli-auth-'));
  provider = await startProvider();
});

afterAll(async () => {
  await provider?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

function bufferIo() {
  const err: string[] = [];
  const io: CliIo = {
    stdout: () => {},
    stderr: (chunk) => err.push(chunk),
    cwd: ROOT,
    interactive: false,
    env: {},
  };
  return { io, stderr: () => err.join('') };
}

/** Spawns `toolpact serve` on the test module. */
const serve = (...args: string[]) => spawnServe(MODULE, args);

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('usage errors', () => {
  test.each([
    [
      ['serve', MODULE, '--http', '--host', '0.0.0.0', '--port', '0'],
      /--host 0\.0\.0\.0 is reachable from the network, and no --auth is given.*Give --auth <file>.*--insecure-no-auth/,
    ],
    [['serve', MODULE, '--auth', 'auth.json'], /--auth applies only with --http/],
    [['serve', MODULE, '--insecure-no-auth'], /--insecure-no-auth applies only with --http/],
  ])('%j', async (argv, message) => {
    const { io, stderr } = bufferIo();
    expect(await execute(argv, io)).toBe(2);
    expect(stderr()).toMatch(message);
  });

  test('a bad auth file is a usage error naming the file, the key and the fix', async () => {
    const file = join(folder, 'typo.json');
    writeFileSync(
      file,
      JSON.stringify({ resource: 'https://mcp.example.com/mcp', issuer: ['https://id.example.com'] }),
    );
    const { io, stderr } = bufferIo();
    expect(await execute(['serve', MODULE, '--http', '--port', '0', '--auth', file], io)).toBe(2);
    expect(stderr()).toContain(`--auth: ${file}: $.issuer is not a known key; did you mean "issuers"?`);
  });

  test('an API keys file that is not one stops serving, naming the file and the fix', async () => {
    const keys = join(folder, 'broken-keys.json');
    writeFileSync(keys, '{ not json');
    const file = join(folder, 'broken-keys-auth.json');
    writeFileSync(
      file,
      JSON.stringify({
        resource: 'http://127.0.0.1/mcp',
        issuers: ['https://id.example.com'],
        apiKeys: keys,
      }),
    );
    const { io, stderr } = bufferIo();
    expect(await execute(['serve', MODULE, '--http', '--port', '0', '--auth', file], io)).toBe(2);
    expect(stderr()).toContain(`The API keys file ${keys} cannot be used: ${keys} is not JSON`);
    expect(stderr()).toContain('toolpact auth key --keys');
    expect(stderr()).not.toContain('Cannot listen');
  });

  test("the gateway config's toolpact.auth is a path relative to the config", () => {
    const config = join(folder, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: {}, toolpact: { auth: 'auth/gateway-auth.json' } }));
    expect(readGatewayConfig(config).auth).toBe(join(folder, 'auth', 'gateway-auth.json'));
  });
});

describe('serving', () => {
  test('--insecure-no-auth on a non-loopback host serves, and every response carries Toolpact-Warning', async () => {
    const running = await serve('--http', '--host', '0.0.0.0', '--port', '0', '--insecure-no-auth');
    try {
      expect(running.stderr()).toContain('with no authentication (--insecure-no-auth)');
      const port = new URL(running.url).port;
      const answer = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: initialize,
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('toolpact-warning')).toMatch(/^no-auth: /);
      const missing = await fetch(`http://127.0.0.1:${port}/elsewhere`);
      expect(missing.headers.get('toolpact-warning')).toMatch(/^no-auth: /);
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });

  test('serve --http --auth: 401 with the metadata URL without a token, 200 with one from the provider', async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const file = join(folder, 'auth.json');
    writeFileSync(
      file,
      JSON.stringify({ resource, issuers: [provider.issuer], scopes: { required: ['tools:read'] } }),
    );
    const running = await serve('--http', '--port', String(port), '--auth', file);
    try {
      expect(running.stderr()).toContain(`authenticating requests as the resource ${resource}`);
      const post = (authorization?: string) =>
        fetch(running.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(authorization ? { authorization } : {}),
          },
          body: initialize,
        });
      const refused = await post();
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(
        `Bearer scope="tools:read", resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(refused.headers.get('toolpact-warning')).toBeNull();
      const token = await provider.clientCredentialsToken(resource, 'tools:read');
      expect((await post(`Bearer ${token}`)).status).toBe(200);
      const metadata = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`);
      expect(await metadata.json()).toMatchObject({ resource, authorization_servers: [provider.issuer] });
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });

  test('serve --http --auth with apiKeys: a minted key is let in, the same key revoked is refused at once', async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const keys = join(folder, 'keys.json');
    const minted = await runCli(['auth', 'key', '--keys', keys, '--subject', 'ci', '--group', 'robots'], {
      cwd: folder,
    });
    expect(minted.code, minted.stderr).toBe(0);
    const key = minted.stdout.trim();
    const file = join(folder, 'keys-auth.json');
    writeFileSync(file, JSON.stringify({ resource, issuers: [provider.issuer], apiKeys: 'keys.json' }));
    const running = await serve('--http', '--port', String(port), '--auth', file);
    try {
      const post = (authorization: string) =>
        fetch(running.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization,
          },
          body: initialize,
        });
      expect((await post(`Bearer ${key}`)).status).toBe(200);
      const forged = `tpk_${'A'.repeat(key.length - 4)}`;
      expect((await post(`Bearer ${forged}`)).status).toBe(401);
      const revoked = await runCli(['auth', 'revoke', '--keys', keys, key], { cwd: folder });
      expect(revoked.code, revoked.stderr).toBe(0);
      const refused = await post(`Bearer ${key}`);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });
});
