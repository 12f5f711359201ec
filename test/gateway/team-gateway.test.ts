// A team gateway: a real `toolpact gateway --http --auth` process in front of a real upstream
// `toolpact serve --http --auth` whose `whoami` tool answers the caller it authenticated, both backed
// by one oidc-provider (two resources). Each person calls the gateway with their own token, signs in to
// the upstream with `toolpact gateway login <server> --gateway <url>` (the browser's part driven over
// HTTP through the gateway's link and callback), and reaches the upstream as themselves only.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { lockEntry } from '../../src/gateway/lock.js';
import { writeLock } from '../../src/gateway/lock-file.js';
import { fileTokenStore } from '../../src/mcp/oauth/token-store.js';
import { call, envelopeIn, lastMessage, spawnServe } from '../auth/support.js';
import { ROOT } from '../mcp/support/wire.js';
import { runCli } from '../support/cli.js';
import { toolpactArgs } from '../support/cli-build.js';
import {
  freePort,
  signIn,
  startProvider,
  TEAM_GATEWAY_CLIENT,
  type TestProvider,
  userToken,
} from '../support/oidc-provider.js';
import { until } from './support.js';

const TOOLS = join(ROOT, 'test', 'fixtures', 'whoami-http', 'tools.ts');
const SERVER = 'upstream';
const KEY = randomBytes(32).toString('hex');
type User = 'alice' | 'bob';

let folder: string;
let provider: TestProvider;
let upstream: Awaited<ReturnType<typeof spawnServe>>;
let gateway: { url: string; stderr: () => string; stop: () => Promise<number | null> };
let tokenFile: string;
/** Each person's token for the gateway (its resource), as their MCP client holds it. */
const tokens: Record<User, string> = { alice: '', bob: '' };
/** Everything the gateway and the CLI answered or printed, for the leak check. */
const outputs: string[] = [];

/** `toolpact gateway …` from the build, resolving once it prints its endpoint. */
async function spawnGateway(args: readonly string[], env: NodeJS.ProcessEnv) {
  const child: ChildProcess = spawn(process.execPath, toolpactArgs('gateway', ...args), {
    cwd: folder,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = / at (http:\/\/[^ ]+\/mcp) \(/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', () => reject(new Error(`the gateway exited early: ${stderr}`)));
  });
  return {
    url,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Calls the gateway's `whoami` as `user`: answers the envelope. */
async function whoami(user: User) {
  const answer = await call(gateway.url, 'whoami', `Bearer ${tokens[user]}`);
  outputs.push(answer.body);
  expect(answer.status, answer.body).toBe(200);
  return envelopeIn(answer.body) as {
    ok: boolean;
    result?: { subject: string; issuer: string; clientId: string };
    error?: { type: string; message?: string; retryable?: boolean; details?: { login?: string } };
  };
}

/**
 * `toolpact gateway login <server> --gateway <url> --no-browser` as `user`, then the browser's part:
 * the printed link (which sets the one-time cookie), the provider's pages, and the gateway's callback
 * in that same browser.
 */
async function logIn(user: User) {
  const login = await runCli(['gateway', 'login', SERVER, '--gateway', gateway.url, '--no-browser'], {
    cwd: folder,
    env: { TOOLPACT_TOKEN: tokens[user] },
  });
  outputs.push(login.stdout, login.stderr);
  expect(login.code, login.stderr).toBe(0);
  expect(login.stdout).toContain(`The sign-in to ${SERVER} finishes in the browser`);
  const link = /(http:\/\/\S+\/signin\/upstream\/go\/\S+)/.exec(login.stderr)?.[1];
  expect(link, login.stderr).toBeDefined();

  const followed = await fetch(link!, { redirect: 'manual' });
  expect(followed.status).toBe(303);
  const cookie = followed.headers.getSetCookie()[0]!.split(';')[0]!;
  const callback = `${gateway.url}/signin/callback`;
  const params = await signIn(new URL(followed.headers.get('location')!), user, callback);
  const back = await fetch(`${callback}?${params}`, { headers: { cookie } });
  const page = await back.text();
  outputs.push(page);
  expect(back.status, page).toBe(200);
  expect(page).toContain(`Signed in to ${SERVER}`);
}

/** The names a revision 2026-07-28 `tools/list` answers `user`. */
async function listed(user: User): Promise<string[]> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
      authorization: `Bearer ${tokens[user]}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        },
      },
    }),
  });
  const { result } = lastMessage(await response.text()) as { result?: { tools: { name: string }[] } };
  return (result?.tools ?? []).map((tool) => tool.name).sort();
}

const principalOfUser = (user: User) => `auth:${user}@${provider.issuer}`;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-team-gateway-'));
  provider = await startProvider();
  const [upstreamPort, gatewayPort] = [await freePort(), await freePort()];
  const upstreamResource = `http://127.0.0.1:${upstreamPort}/mcp`;
  const gatewayResource = `http://127.0.0.1:${gatewayPort}/mcp`;
  const authFile = (name: string, resource: string) => {
    const file = join(folder, name);
    writeFileSync(
      file,
      JSON.stringify({ resource, issuers: [provider.issuer], scopes: { required: ['tools:read'] } }),
    );
    return file;
  };
  upstream = await spawnServe(
    TOOLS,
    ['--http', '--port', String(upstreamPort), '--auth', authFile('upstream-auth.json', upstreamResource)],
    { ...process.env, WHOAMI_RELEASE: join(folder, 'release') },
  );

  // The lock pins the upstream's tools, as `gateway pin` left it: nobody is signed in on the gateway
  // machine, so they are listed from it.
  const client = new Client({ name: 'team-gateway-test', version: '1.0.0' });
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const operator = await userToken(provider, 'alice', upstreamResource);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(upstream.url), {
      requestInit: { headers: { authorization: `Bearer ${operator}` } },
    }),
  );
  const listed = (await client.listTools()).tools;
  await client.close();
  const lock = join(folder, 'gateway.lock.json');
  writeLock(lock, {
    version: 1,
    servers: { [SERVER]: { tools: Object.fromEntries(listed.map((tool) => [tool.name, lockEntry(tool)])) } },
  });

  tokenFile = join(folder, 'state', 'mcp-tokens.json');
  const config = join(folder, '.mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        [SERVER]: { type: 'http', url: upstream.url, oauth: { clientId: TEAM_GATEWAY_CLIENT.id } },
      },
      toolpact: { tokens: tokenFile, policy: { rules: [{ id: 'all', action: 'allow', source: 'mcp:*' }] } },
    }),
  );
  const args = ['--config', config, '--lock', lock, '--http', '--port', String(gatewayPort)];
  gateway = await spawnGateway([...args, '--auth', authFile('gateway-auth.json', gatewayResource)], {
    ...process.env,
    TOOLPACT_TOKEN_KEY: KEY,
    XDG_STATE_HOME: join(folder, 'xdg-state'),
  });
  [tokens.alice, tokens.bob] = await Promise.all([
    userToken(provider, 'alice', gatewayResource),
    userToken(provider, 'bob', gatewayResource),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([gateway?.stop(), upstream?.stop()]);
  await provider?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('a team gateway signs each person in to a remote server as themselves', () => {
  test('before signing in, each person gets auth_required naming the gateway login for themselves', async () => {
    for (const user of ['alice', 'bob'] as const) {
      const envelope = await whoami(user);
      expect(envelope.ok).toBe(false);
      expect(envelope.error).toMatchObject({
        type: 'auth_required',
        retryable: false,
        details: { login: `toolpact gateway login ${SERVER} --gateway ${gateway.url}` },
      });
      expect(envelope.error?.message).toContain(`--gateway ${gateway.url}`);
    }
    // Nobody is signed in on the gateway machine: the pinned tools are listed from the lock.
    expect(await listed('bob')).toEqual(['hold', 'whoami']);
  });

  test('alice signs in through gateway login --gateway; her calls reach the upstream as alice, bob still needs his own', async () => {
    await logIn('alice');
    const store = fileTokenStore(tokenFile, { key: KEY });
    expect((await store.read(SERVER, principalOfUser('alice')))?.tokens?.access_token).toBeTruthy();
    expect((await store.read(SERVER, 'local'))?.tokens).toBeUndefined();

    expect(await whoami('alice')).toMatchObject({
      ok: true,
      result: { subject: 'alice', issuer: provider.issuer, clientId: TEAM_GATEWAY_CLIENT.id },
    });
    const bob = await whoami('bob');
    expect(bob.error).toMatchObject({
      type: 'auth_required',
      details: { login: `toolpact gateway login ${SERVER} --gateway ${gateway.url}` },
    });
  });

  test("a sign-in of the gateway machine's own user is never used for a team member", async () => {
    const store = fileTokenStore(tokenFile, { key: KEY });
    await store.write(SERVER, 'local', (await store.read(SERVER, principalOfUser('alice')))!);
    try {
      await until(() => gateway.stderr().includes(`${SERVER}: up`), 'the local sign-in to be taken up');
      expect((await whoami('bob')).error?.type).toBe('auth_required');
    } finally {
      await store.remove(SERVER, 'local');
    }
  });

  test('bob signs in as himself, and each reaches the upstream as themselves; no output carries a token', async () => {
    await logIn('bob');
    const [alice, bob] = await Promise.all([whoami('alice'), whoami('bob')]);
    expect(alice.result?.subject).toBe('alice');
    expect(bob.result?.subject).toBe('bob');

    const store = fileTokenStore(tokenFile, { key: KEY });
    const held: string[] = [tokens.alice, tokens.bob];
    for (const user of ['alice', 'bob'] as const) {
      const record = await store.read(SERVER, principalOfUser(user));
      for (const token of [record?.tokens?.access_token, record?.tokens?.refresh_token]) {
        if (token) held.push(token);
      }
    }
    expect(held.length).toBeGreaterThan(3);
    const printed = [...outputs, gateway.stderr(), upstream.stderr()].join('\n');
    for (const token of held) expect(printed.includes(token), 'a token in an output').toBe(false);
  });

  test('gateway login --gateway sends the credential to https or loopback only, and needs one', async () => {
    const plain = await runCli(['gateway', 'login', SERVER, '--gateway', 'http://tools.example.com/mcp'], {
      env: { TOOLPACT_TOKEN: 'not-sent' },
    });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('plain http to a host that is not loopback');

    const both = await runCli(
      ['gateway', 'login', SERVER, '--gateway', gateway.url, '--config', '.mcp.json'],
      { env: { TOOLPACT_TOKEN: 'not-sent' } },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('Give one or the other');

    const none = await runCli(['gateway', 'login', SERVER, '--gateway', gateway.url], { env: {} });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('TOOLPACT_TOKEN is not set');

    const refused = await runCli(
      ['gateway', 'login', SERVER, '--gateway', gateway.url, '--token-env', 'OTHER_TOKEN'],
      { env: { OTHER_TOKEN: 'not-a-token' } },
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('refused the credential in OTHER_TOKEN');
  });
});
