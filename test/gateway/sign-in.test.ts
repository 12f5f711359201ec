// The gateway signs the person running it in to a remote MCP server that asks for OAuth: a real
// `toolpact serve --http --auth` upstream, backed by panva's oidc-provider on loopback, reached through
// a `type: http` entry with no token. Before a sign-in the server is needs_login (check names the
// command, a call answers auth_required, the tools are listed from the lock); `gateway login` signs in
// through the provider's pages (driven over HTTP, and once in Chromium) and a running gateway calls the
// upstream at once; `gateway logout` takes it back. No output of the flow carries a token.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fileTokenStore } from '../../src/mcp/oauth/token-store.js';
import { spawnServe } from '../auth/support.js';
import { ROOT } from '../mcp/support/wire.js';
import { launchBrowser, skipWithoutBrowser } from '../studio/support.js';
import { toolpactArgs } from '../support/cli-build.js';
import {
  freePort,
  PUBLIC_CLIENT,
  signIn,
  startProvider,
  type TestProvider,
} from '../support/oidc-provider.js';
import { hasPostgres, type PostgresServer, startPostgres } from '../support/postgres.js';
import { until } from './support.js';

const TOOLS = join(ROOT, 'test/fixtures/approvals-http/tools.ts');
const SERVER = 'releases';
const KEY = randomBytes(32).toString('hex');

let folder: string;
let provider: TestProvider;
let upstream: Awaited<ReturnType<typeof spawnServe>>;
let runs: string;
let config: string;
let tokenFile: string;
let env: NodeJS.ProcessEnv;
/** Every output of the flow, for the final grep. */
const outputs: { readonly what: string; readonly text: () => string }[] = [];
/** Every access and refresh token the store held, read with the key. */
const tokens = new Set<string>();

/** A CLI process (`toolpact …` from the build), its output kept for the grep. */
function cli(what: string, ...args: string[]) {
  const child: ChildProcess = spawn(process.execPath, toolpactArgs(...args), {
    cwd: folder,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  outputs.push(
    { what: `${what} stdout`, text: () => stdout },
    { what: `${what} stderr`, text: () => stderr },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { stdout: () => stdout, stderr: () => stderr, exited, child };
}

/** Keeps the tokens the store holds now for `server`, for the grep; answers them. */
async function keepTokens(server = SERVER): Promise<{ access?: string; refresh?: string }> {
  const record = await fileTokenStore(tokenFile, { key: KEY }).read(server, 'local');
  const file = readFileSync(tokenFile, 'utf8');
  for (const token of [record?.tokens?.access_token, record?.tokens?.refresh_token]) {
    if (!token) continue;
    tokens.add(token);
    expect(file.includes(token), 'the token file holds a token in clear').toBe(false);
  }
  return {
    ...(record?.tokens?.access_token ? { access: record.tokens.access_token } : {}),
    ...(record?.tokens?.refresh_token ? { refresh: record.tokens.refresh_token } : {}),
  };
}

/** `gateway login --no-browser`: the printed URL, followed by `visit` to the loopback redirect. */
async function logIn(
  visit: (authorization: URL) => Promise<void>,
  server = SERVER,
  configFile = config,
  ...more: string[]
): Promise<void> {
  const login = cli('login', 'gateway', 'login', server, '--config', configFile, '--no-browser', ...more);
  await until(() => /https?:\/\/\S+\/auth\S*/.test(login.stderr()), 'the authorization URL printed');
  const authorization = new URL(/https?:\/\/\S+\/auth\S*/.exec(login.stderr())![0]);
  await visit(authorization);
  expect(await login.exited, login.stderr()).toBe(0);
  expect(login.stdout()).toContain(`Signed in to ${server}.`);
  if (more.length > 0) return;
  await keepTokens(server);
  expect(tokens.size).toBeGreaterThan(0);
}

/** `toolpact gateway --config <file>` over stdio, driven by the MCP SDK's client; its stderr kept. */
async function gatewayClient(configFile: string, ...flags: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: toolpactArgs('gateway', '--config', configFile, ...flags),
    cwd: folder,
    env: env as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  outputs.push({ what: `gateway stderr (${configFile})`, text: () => stderr });
  const client = new Client({ name: 'sign-in-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** The provider's pages driven over HTTP as alice, then the browser's hop to the loopback listener. */
async function throughPages(authorization: URL): Promise<void> {
  const redirect = authorization.searchParams.get('redirect_uri')!;
  expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  const back = await signIn(authorization, 'alice', redirect);
  const page = await fetch(`${redirect}?${back}`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('Signed in');
}

function envelopeOf(result: unknown): { ok: boolean; result?: unknown; error?: Record<string, unknown> } {
  const content = (result as { content: { text: string }[] }).content;
  outputs.push({ what: 'a call answered to the client', text: () => content[0]!.text });
  return JSON.parse(content[0]!.text);
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-gateway-sign-in-'));
  runs = join(folder, 'runs.jsonl');
  writeFileSync(runs, '');
  provider = await startProvider();
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  writeFileSync(
    join(folder, 'auth.json'),
    JSON.stringify({ resource, issuers: [provider.issuer], scopes: { required: ['tools:read'] } }),
  );
  // The upstream lets its callers ship and tag: the sign-in is what this test is about.
  writeFileSync(
    join(folder, 'upstream-policy.json'),
    JSON.stringify({ defaults: { write: 'allow' }, rules: [] }),
  );
  const serveArgs = ['--http', '--port', String(port), '--auth', join(folder, 'auth.json')];
  upstream = await spawnServe(TOOLS, [...serveArgs, '--policy', join(folder, 'upstream-policy.json')], {
    ...process.env,
    APPROVALS_RUNS: runs,
  });
  tokenFile = join(folder, 'state', 'mcp-tokens.json');
  config = join(folder, '.mcp.json');
  // Claude Code's entry for a remote server that signs in, with its pre-registered client.
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { [SERVER]: { type: 'http', url: resource, oauth: { clientId: PUBLIC_CLIENT.id } } },
      toolpact: {
        tokens: tokenFile,
        policy: { rules: [{ id: 'all', action: 'allow', source: 'mcp:*' }] },
      },
    }),
  );
  env = { ...process.env, TOOLPACT_TOKEN_KEY: KEY, XDG_STATE_HOME: join(folder, 'xdg-state') };
}, 60_000);

afterAll(async () => {
  await upstream?.stop();
  await provider?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('a remote server that asks for a sign-in', () => {
  test('check says needs_login with the command; login signs in through the provider and pin records the tools', async () => {
    const check = cli('check', 'gateway', 'check', '--config', config);
    expect(await check.exited).toBe(1);
    expect(check.stdout()).toMatch(new RegExp(`${SERVER}\\s+needs_login`));
    expect(check.stdout()).toContain(
      `needs a sign-in: run toolpact gateway login ${SERVER} --config ${config}`,
    );

    await logIn(throughPages);
    const mode = statSync(tokenFile).mode & 0o777;
    expect(mode.toString(8)).toBe('600');

    const pin = cli('pin', 'gateway', 'pin', '--config', config);
    expect(await pin.exited, pin.stderr()).toBe(0);
    expect(pin.stdout()).toContain(`${SERVER}: pinned 2 tools`);

    // Signed in, check reaches the server; its report carries no token (see the grep at the end).
    const signedIn = cli('check', 'gateway', 'check', '--config', config, '--format', 'json');
    await signedIn.exited;
    const report = JSON.parse(signedIn.stdout()) as {
      servers: { name: string; state: string; login?: string }[];
    };
    expect(report.servers).toMatchObject([{ name: SERVER, state: 'up' }]);
    expect(report.servers[0]?.login).toBeUndefined();

    const logout = cli('logout', 'gateway', 'logout', SERVER, '--config', config);
    expect(await logout.exited).toBe(0);
    expect(logout.stdout()).toContain(`Signed out of ${SERVER}`);
    expect(await fileTokenStore(tokenFile, { key: KEY }).read(SERVER, 'local')).toBeUndefined();
  }, 90_000);

  test('a running gateway answers auth_required from the lock, calls the upstream once signed in, and auth_required again after logout', async () => {
    const audit = join(folder, 'audit.jsonl');
    outputs.push({ what: 'the audit', text: () => readFileSync(audit, 'utf8') });
    const gateway = await gatewayClient(config, '--audit', audit);
    const { client } = gateway;
    const stderr = gateway.stderr;
    try {
      // Listed from the lock while nobody is signed in.
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['ship', 'tag']);
      const refused = envelopeOf(await client.callTool({ name: 'ship', arguments: { version: '1.0.0' } }));
      expect(refused.ok, `${JSON.stringify(refused)} ${stderr()}`).toBe(false);
      expect(refused.error).toMatchObject({
        type: 'auth_required',
        details: { server: SERVER, login: `toolpact gateway login ${SERVER}` },
      });
      expect(String(refused.error?.message)).toContain(`toolpact gateway login ${SERVER}`);
      await until(
        () => stderr().includes('needs a sign-in'),
        'the gateway to say the server needs a sign-in',
      );
      expect(readFileSync(runs, 'utf8')).toBe('');
      // No restart storm: a second call answers the same at once; the server is never restarted.
      const second = envelopeOf(await client.callTool({ name: 'tag', arguments: { commit: 'a1b2c3d' } }));
      expect(second.error).toMatchObject({ type: 'auth_required' });
      expect(stderr().match(/needs a sign-in/g)).toHaveLength(1);
      expect(stderr()).not.toMatch(/restarting|could not start|down after/);

      // Signed in while the gateway runs: picked up without a restart.
      await logIn(throughPages);
      await until(() => stderr().includes(`${SERVER}: up`), 'the gateway to connect with the new sign-in');
      const shipped = envelopeOf(await client.callTool({ name: 'ship', arguments: { version: '1.0.0' } }));
      expect(shipped, `${JSON.stringify(shipped)} ${stderr()}`).toMatchObject({
        ok: true,
        result: { tool: 'ship', target: '1.0.0' },
      });
      expect(readFileSync(runs, 'utf8')).toBe(`${JSON.stringify({ tool: 'ship', target: '1.0.0' })}\n`);

      // Signed out: the next call needs a sign-in again, and never reaches the upstream.
      const logout = cli('logout', 'gateway', 'logout', SERVER, '--config', config);
      expect(await logout.exited).toBe(0);
      const again = envelopeOf(await client.callTool({ name: 'tag', arguments: { commit: 'a1b2c3d' } }));
      expect(again.error).toMatchObject({ type: 'auth_required' });
      expect(readFileSync(runs, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 120_000);

  test.skipIf(skipWithoutBrowser('test/gateway/sign-in.test.ts'))(
    'login through Chromium: the provider pages in a real browser, the redirect to the loopback listener',
    async () => {
      const browser = await launchBrowser();
      try {
        await logIn(async (authorization) => {
          const page = await browser.context.newPage();
          await page.goto(authorization.href);
          await page.locator('input[name="login"]').fill('bob');
          await page.locator('input[name="password"]').fill('any');
          await page.getByRole('button', { name: 'Sign-in' }).click();
          await page.getByRole('button', { name: 'Continue' }).click();
          await page.waitForURL((url) => url.hostname === '127.0.0.1' && url.pathname === '/callback');
          expect(await page.locator('body').textContent()).toContain('Signed in');
        });
      } finally {
        await browser.close();
      }
      const logout = cli('logout', 'gateway', 'logout', SERVER, '--config', config);
      expect(await logout.exited).toBe(0);
    },
    90_000,
  );

  test("a forged redirect (another state), another issuer's code and a refused consent end the login with exit 1 and store nothing", async () => {
    const answers: [(sent: URLSearchParams) => URLSearchParams, string][] = [
      [() => new URLSearchParams({ code: 'stolen-code', state: 'forged' }), 'does not match the one sent'],
      // A code from another authorization server (a mix-up): its iss is not the one discovered.
      [
        (sent) =>
          new URLSearchParams({ code: 'other-code', state: sent.get('state')!, iss: 'http://127.0.0.1:9' }),
        'Issuer mismatch',
      ],
      [
        (sent) =>
          new URLSearchParams({ error: 'access_denied', state: sent.get('state')!, iss: provider.issuer }),
        'access_denied',
      ],
    ];
    for (const [answer, words] of answers) {
      const login = cli('login', 'gateway', 'login', SERVER, '--config', config, '--no-browser');
      await until(() => /https?:\/\/\S+\/auth\S*/.test(login.stderr()), 'the authorization URL printed');
      const authorization = new URL(/https?:\/\/\S+\/auth\S*/.exec(login.stderr())![0]);
      const redirect = authorization.searchParams.get('redirect_uri')!;
      await fetch(`${redirect}?${answer(authorization.searchParams)}`);
      expect(await login.exited).toBe(1);
      expect(login.stderr()).toContain(`the sign-in to ${SERVER} did not complete`);
      expect(login.stderr()).toContain(words);
      expect((await fileTokenStore(tokenFile, { key: KEY }).read(SERVER, 'local'))?.tokens).toBeUndefined();
    }
  }, 60_000);

  test('a login that never comes back ends at --timeout with what to do', async () => {
    const login = cli(
      'login',
      'gateway',
      'login',
      SERVER,
      '--config',
      config,
      '--no-browser',
      '--timeout',
      '1',
    );
    expect(await login.exited).toBe(1);
    expect(login.stderr()).toContain('No sign-in came back to http://127.0.0.1:');
    expect(login.stderr()).toContain('Run the command again');
  }, 60_000);
});

describe('a refresh the authorization server refuses', () => {
  let shortProvider: TestProvider;
  let shortUpstream: Awaited<ReturnType<typeof spawnServe>>;
  let shortConfig: string;

  beforeAll(async () => {
    // Access tokens that are always about to expire: each one is refreshed before it is sent.
    shortProvider = await startProvider({ accessTokenTtl: 5 });
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    writeFileSync(
      join(folder, 'short-auth.json'),
      JSON.stringify({ resource, issuers: [shortProvider.issuer], scopes: { required: ['tools:read'] } }),
    );
    shortUpstream = await spawnServe(
      TOOLS,
      [
        '--http',
        '--port',
        String(port),
        '--auth',
        join(folder, 'short-auth.json'),
        '--policy',
        join(folder, 'upstream-policy.json'),
      ],
      { ...process.env, APPROVALS_RUNS: runs },
    );
    shortConfig = join(folder, 'short', '.mcp.json');
    mkdirSync(join(folder, 'short'));
    writeFileSync(
      shortConfig,
      JSON.stringify({
        mcpServers: { short: { type: 'http', url: resource, oauth: { clientId: PUBLIC_CLIENT.id } } },
        toolpact: { tokens: tokenFile, policy: { rules: [{ id: 'all', action: 'allow', source: 'mcp:*' }] } },
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await shortUpstream?.stop();
    await shortProvider?.close();
  });

  test('tokens are refreshed before use; once the refresh token is revoked the server is needs_login, not down', async () => {
    await logIn(
      async (authorization) => {
        const redirect = authorization.searchParams.get('redirect_uri')!;
        const back = await signIn(authorization, 'bob', redirect);
        await fetch(`${redirect}?${back}`);
      },
      'short',
      shortConfig,
    );
    const signedIn = await keepTokens('short');
    expect(signedIn.refresh).toBeDefined();
    // A token is refreshed once half its life (5 s here) has passed: wait for that point.
    const obtainedAt =
      (await fileTokenStore(tokenFile, { key: KEY }).read('short', 'local'))?.tokens?.obtainedAt ?? 0;
    await until(() => Date.now() > obtainedAt + 2_600, 'the token to reach half its life');
    writeFileSync(runs, '');
    const { client, stderr } = await gatewayClient(shortConfig);
    try {
      const shipped = envelopeOf(await client.callTool({ name: 'ship', arguments: { version: '2.0.0' } }));
      expect(shipped, stderr()).toMatchObject({ ok: true, result: { tool: 'ship', target: '2.0.0' } });
      const refreshed = await keepTokens('short');
      expect(refreshed.access, stderr()).not.toBe(signedIn.access);

      await shortProvider.revoke(refreshed.refresh!, 'refresh_token');
      const renewedAt =
        (await fileTokenStore(tokenFile, { key: KEY }).read('short', 'local'))?.tokens?.obtainedAt ?? 0;
      await until(() => Date.now() > renewedAt + 2_600, 'the refreshed token to reach half its life');
      const refused = envelopeOf(await client.callTool({ name: 'tag', arguments: { commit: 'b2c3d4e' } }));
      expect(refused.error, stderr()).toMatchObject({
        type: 'auth_required',
        details: { login: 'toolpact gateway login short' },
      });
      await until(
        () => stderr().includes('short: needs a sign-in'),
        'the gateway to say short needs a sign-in',
      );
      expect(stderr()).not.toMatch(/restarting|could not start|down after/);
      expect(readFileSync(runs, 'utf8').split('\n').filter(Boolean)).toEqual([
        JSON.stringify({ tool: 'ship', target: '2.0.0' }),
      ]);
    } finally {
      await client.close();
    }
  }, 90_000);
});

describe.runIf(hasPostgres)('a fleet: --store keeps the sign-ins in the shared store', () => {
  let postgres: PostgresServer;
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await postgres?.stop();
  });

  test('login --store keeps the sign-in where a gateway with --store finds it, not in the token file; logout --store forgets it', async () => {
    const fleetConfig = join(folder, 'fleet', '.mcp.json');
    mkdirSync(join(folder, 'fleet'));
    const entry = JSON.parse(readFileSync(config, 'utf8')) as {
      mcpServers: Record<string, unknown>;
      toolpact: Record<string, unknown>;
    };
    writeFileSync(
      fleetConfig,
      JSON.stringify({ mcpServers: { fleet: entry.mcpServers[SERVER] }, toolpact: entry.toolpact }),
    );
    await logIn(throughPages, 'fleet', fleetConfig, '--store', postgres.url);
    expect(await fileTokenStore(tokenFile, { key: KEY }).read('fleet', 'local')).toBeUndefined();

    writeFileSync(runs, '');
    const { client, stderr } = await gatewayClient(fleetConfig, '--store', postgres.url);
    try {
      const shipped = envelopeOf(await client.callTool({ name: 'ship', arguments: { version: '3.0.0' } }));
      expect(shipped, stderr()).toMatchObject({ ok: true, result: { tool: 'ship', target: '3.0.0' } });
    } finally {
      await client.close();
    }

    const logout = cli(
      'logout',
      'gateway',
      'logout',
      'fleet',
      '--config',
      fleetConfig,
      '--store',
      postgres.url,
    );
    expect(await logout.exited, logout.stderr()).toBe(0);
    expect(logout.stdout()).toContain('its sign-in was removed from the shared store');
  }, 60_000);
});

describe('after the whole flow', () => {
  test('no output of the flow carries a token; the token file holds none in clear', () => {
    expect(tokens.size).toBeGreaterThan(0);
    const lock = join(folder, '.mcp.lock.json');
    const texts = [
      ...outputs.map((output) => ({ what: output.what, text: output.text() })),
      { what: 'the lock', text: readFileSync(lock, 'utf8') },
      { what: 'the second lock', text: readFileSync(join(folder, 'short', '.mcp.lock.json'), 'utf8') },
      { what: 'the token file', text: readFileSync(tokenFile, 'utf8') },
    ];
    for (const token of tokens) {
      for (const { what, text } of texts) {
        // A token's bytes, or any 24-character piece of them.
        for (let at = 0; at + 24 <= token.length; at += 24) {
          expect(text.includes(token.slice(at, at + 24)), `${what} carries a token`).toBe(false);
        }
      }
    }
    expect(texts.length).toBeGreaterThan(10);
  });
});
