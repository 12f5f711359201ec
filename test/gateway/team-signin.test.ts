import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  type PrincipalUpstreams,
  principalUpstreams,
  upstreamPrincipalId,
} from '../../src/gateway/principal-upstreams.js';
import { teamSignIn } from '../../src/gateway/team-signin.js';
import { principalOf, Registry } from '../../src/index.js';
import { McpSignInRequiredError, type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';
import { fileTokenStore, type McpTokenStore } from '../../src/mcp/oauth/token-store.js';
import { remoteTool } from '../../src/mcp/remote-tool.js';
import { call, envelopeIn, spawnServe } from '../auth/support.js';
import { ROOT } from '../mcp/support/wire.js';
import {
  freePort,
  signIn,
  startProvider,
  TEAM_GATEWAY_CLIENT,
  type TestProvider,
  userToken,
} from '../support/oidc-provider.js';

// Per-person sign-ins behind a team gateway. The upstream is a real `toolpact serve --http --auth`
// process whose `whoami` tool answers the caller it authenticated; oidc-provider (in process) signs
// alice and bob in, both to the gateway and, through the gateway's sign-in link, to the upstream.
// The gateway here is serveHttp with --auth, the link mounted beside its MCP endpoint, and one
// tool that calls the upstream through the per-person pool as the calling principal.

const TOOLS = join(ROOT, 'test', 'fixtures', 'whoami-http', 'tools.ts');
const SERVER = 'upstream';

let folder: string;
let provider: TestProvider;
let upstream: { url: string; stderr: () => string; stop: () => Promise<number | null> };
let gateway: RunningHttpServer;
let store: McpTokenStore;
let pool: PrincipalUpstreams;
let clock = 0;
/** Every answer the gateway gave, headers and body, to look for tokens in. */
const answers: string[] = [];
const tokens: Record<'alice' | 'bob', string> = { alice: '', bob: '' };

const principalOfUser = (user: string) => `auth:${user}@${provider.issuer}`;

/** A request to the gateway, kept for the leak check; never follows a redirect. */
async function request(url: string, init: RequestInit = {}) {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const body = await response.text();
  answers.push(`${[...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n')}\n${body}`);
  return { status: response.status, headers: response.headers, body };
}

/** Starts a sign-in to the upstream as `user`, through the gateway's link: answers the link. */
async function start(user: 'alice' | 'bob') {
  const started = await request(`${gateway.url}/signin/${SERVER}`, {
    headers: { authorization: `Bearer ${tokens[user]}`, accept: 'application/json' },
  });
  expect(started.status, started.body).toBe(200);
  return JSON.parse(started.body) as { server: string; url: string; expiresAt: string };
}

/** Follows a link as a browser: answers the cookie it set and where it sent the browser. */
async function follow(link: string) {
  const followed = await request(link);
  expect(followed.status, followed.body).toBe(303);
  const cookie = followed.headers.getSetCookie()[0]!.split(';')[0]!;
  return { cookie, authorization: new URL(followed.headers.get('location')!) };
}

/** The provider's pages as `user`: answers the callback URL the browser is sent back to. */
async function consent(authorization: URL, user: string): Promise<string> {
  const callback = `${gateway.url}/signin/callback`;
  const params = await signIn(authorization, user, callback);
  return `${callback}?${params}`;
}

/** A whole sign-in of `user` to the upstream through the gateway; `meanwhile` runs before it comes back. */
async function signInThroughGateway(user: 'alice' | 'bob', meanwhile?: () => Promise<void>) {
  const { url } = await start(user);
  const { cookie, authorization } = await follow(url);
  const callback = await consent(authorization, user);
  await meanwhile?.();
  const back = await request(callback, { headers: { cookie } });
  expect(back.status, back.body).toBe(200);
  expect(back.body).toContain(`Signed in to ${SERVER}`);
}

/** Calls the gateway's `whoami` as `user`: answers the envelope. */
async function whoami(user: 'alice' | 'bob') {
  const answer = await call(gateway.url, 'whoami', `Bearer ${tokens[user]}`);
  answers.push(answer.body);
  expect(answer.status, answer.body).toBe(200);
  return envelopeIn(answer.body) as {
    ok: boolean;
    result?: { subject: string; issuer: string; clientId: string };
    error?: { type: string; retryable?: boolean; details?: { login?: string } };
  };
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-team-signin-'));
  provider = await startProvider();
  const [upstreamPort, gatewayPort] = [await freePort(), await freePort()];
  const upstreamResource = `http://127.0.0.1:${upstreamPort}/mcp`;
  const gatewayResource = `http://127.0.0.1:${gatewayPort}/mcp`;
  writeFileSync(
    join(folder, 'upstream-auth.json'),
    JSON.stringify({
      resource: upstreamResource,
      issuers: [provider.issuer],
      scopes: { required: ['tools:read'] },
    }),
  );
  upstream = await spawnServe(
    TOOLS,
    ['--http', '--port', String(upstreamPort), '--auth', join(folder, 'upstream-auth.json')],
    { ...process.env, WHOAMI_RELEASE: join(folder, 'release') },
  );
  store = fileTokenStore(join(folder, 'mcp-tokens.json'), { key: 'a'.repeat(64) });
  const auth = { store, server: SERVER, clientId: TEAM_GATEWAY_CLIENT.id };
  pool = principalUpstreams({ url: upstream.url, auth });
  const remote = { name: 'whoami', inputSchema: { type: 'object' as const } };
  const { tool } = remoteTool(remote, {
    name: 'whoami',
    server: SERVER,
    source: `mcp:${SERVER}`,
    category: 'read',
    inferredCategory: false,
    description: 'Answers who the upstream saw.',
    call: ({ remoteName, arguments: args, signal, state }) => {
      const caller = principalOf(state);
      if (!caller) throw new Error('the gateway authenticates every caller');
      return pool.call(upstreamPrincipalId(caller), remoteName, args, signal);
    },
  });
  gateway = await serveHttp(new Registry().register([tool]), {
    port: gatewayPort,
    auth: { resource: gatewayResource, issuers: [provider.issuer] },
    routes: [
      teamSignIn({
        path: '/mcp',
        servers: { [SERVER]: { url: upstream.url, auth } },
        now: () => Date.now() + clock,
      }),
    ],
  });
  [tokens.alice, tokens.bob] = await Promise.all([
    userToken(provider, 'alice', gatewayResource),
    userToken(provider, 'bob', gatewayResource),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([pool?.close(), gateway?.close(), upstream?.stop()]);
  await provider?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('per-person upstream sign-ins behind a team gateway', () => {
  test('a person without a sign-in gets auth_required for their own sign-in', async () => {
    const envelope = await whoami('bob');
    expect(envelope.ok).toBe(false);
    expect(envelope.error).toMatchObject({
      type: 'auth_required',
      retryable: false,
      details: { login: `toolpact gateway login ${SERVER}` },
    });
    const direct = pool.call(principalOfUser('bob'), 'whoami', {}, new AbortController().signal);
    await expect(direct).rejects.toMatchObject({
      name: 'McpSignInRequiredError',
      server: SERVER,
      principal: principalOfUser('bob'),
    });
    await expect(direct).rejects.toBeInstanceOf(McpSignInRequiredError);
    expect(pool.size()).toBe(0);
  });

  test('alice signs in through the link; her calls reach the upstream as alice, bob still needs his own', async () => {
    await signInThroughGateway('alice');
    const record = await store.read(SERVER, principalOfUser('alice'));
    expect(record?.tokens?.access_token).toBeTruthy();
    expect(record?.state).toBeUndefined();
    expect(record?.verifier).toBeUndefined();

    const seen = await whoami('alice');
    expect(seen).toMatchObject({
      ok: true,
      result: { subject: 'alice', issuer: provider.issuer, clientId: TEAM_GATEWAY_CLIENT.id },
    });
    expect((await whoami('bob')).error?.type).toBe('auth_required');
    const bob = await store.read(SERVER, principalOfUser('bob'));
    expect(bob?.tokens).toBeUndefined();
  });

  test('a sign-in kept for the local user is never used for a team member', async () => {
    const alice = await store.read(SERVER, principalOfUser('alice'));
    await store.write(SERVER, 'local', alice!);
    try {
      expect((await whoami('bob')).error?.type).toBe('auth_required');
    } finally {
      await store.remove(SERVER, 'local');
    }
  });

  test('bob signs in as himself, and each call reaches the upstream as its own caller', async () => {
    // A call made while his sign-in is under way fails, and leaves the sign-in as it was.
    await signInThroughGateway('bob', async () => {
      expect((await whoami('bob')).error?.type).toBe('auth_required');
    });
    const [alice, bob] = await Promise.all([whoami('alice'), whoami('bob')]);
    expect(alice.result?.subject).toBe('alice');
    expect(bob.result?.subject).toBe('bob');
    expect(pool.size()).toBe(2);
  });

  test('the pool closes idle connections, and the longest idle first when full', async () => {
    const auth = { store, server: SERVER, clientId: TEAM_GATEWAY_CLIENT.id };
    const signal = new AbortController().signal;
    const idle = principalUpstreams({ url: upstream.url, auth, idleMs: 20 });
    const capped = principalUpstreams({ url: upstream.url, auth, maxConnections: 1 });
    try {
      await idle.call(principalOfUser('alice'), 'whoami', {}, signal);
      expect(idle.size()).toBe(1);
      await vi.waitFor(() => expect(idle.size()).toBe(0), { timeout: 10_000 });

      const first = await capped.call(principalOfUser('alice'), 'whoami', {}, signal);
      const second = await capped.call(principalOfUser('bob'), 'whoami', {}, signal);
      expect(capped.size()).toBe(1);
      expect(
        [first, second].map((result) => (result.structuredContent as { subject: string }).subject),
      ).toEqual(['alice', 'bob']);
    } finally {
      await Promise.all([idle.close(), capped.close()]);
    }
    await expect(capped.call(principalOfUser('bob'), 'whoami', {}, signal)).rejects.toMatchObject({
      type: 'mcp_server_unavailable',
    });
  });

  test('a full pool whose connections are all in use refuses a new person, retryably', async () => {
    const auth = { store, server: SERVER, clientId: TEAM_GATEWAY_CLIENT.id };
    const signal = new AbortController().signal;
    const full = principalUpstreams({ url: upstream.url, auth, maxConnections: 1 });
    try {
      const held = full.call(principalOfUser('alice'), 'hold', {}, signal);
      await expect(full.call(principalOfUser('bob'), 'whoami', {}, signal)).rejects.toMatchObject({
        type: 'mcp_server_busy',
        retryable: true,
      });
      writeFileSync(join(folder, 'release'), '');
      expect((await held).structuredContent).toEqual({ subject: 'alice' });
      const after = await full.call(principalOfUser('bob'), 'whoami', {}, signal);
      expect((after.structuredContent as { subject: string }).subject).toBe('bob');
    } finally {
      await full.close();
    }
  });
});

describe('the sign-in link refuses', () => {
  test('an unauthenticated start, or one with a token for another resource, and starts nothing', async () => {
    const bare = await request(`${gateway.url}/signin/${SERVER}`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toContain('resource_metadata=');
    const upstreamToken = await userToken(provider, 'alice', upstream.url);
    const foreign = await request(`${gateway.url}/signin/${SERVER}`, {
      headers: { authorization: `Bearer ${upstreamToken}` },
    });
    expect(foreign.status).toBe(401);
    const unknown = await request(`${gateway.url}/signin/nope`, {
      headers: { authorization: `Bearer ${tokens.alice}` },
    });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error.message).toContain(SERVER);
  });

  test("a callback completed in another browser (login CSRF): bob's account cannot land in alice's principal", async () => {
    const before = await store.read(SERVER, principalOfUser('alice'));
    const { url } = await start('alice');
    const { authorization } = await follow(url);
    // The attacker completes alice's authorization request with his own account, in his own browser.
    const forged = await request(await consent(authorization, 'bob'));
    expect(forged.status).toBe(403);
    expect(forged.body).toContain('a browser other than the one that followed its link');
    expect((await store.read(SERVER, principalOfUser('alice')))?.tokens).toEqual(before?.tokens);
    expect((await whoami('alice')).result?.subject).toBe('alice');
  });

  test("a sign-in of the attacker's own, sent to the victim's browser, completes nothing", async () => {
    const { url } = await start('bob');
    const attacker = await follow(url);
    const callback = await consent(attacker.authorization, 'bob');
    const victim = await request(callback, { headers: { cookie: 'toolpact_signin_0000=whatever' } });
    expect(victim.status).toBe(403);
    // Refused once, the sign-in is over: not even the attacker's own browser completes it now.
    const late = await request(callback, { headers: { cookie: attacker.cookie } });
    expect(late.status).toBe(400);
  });

  test('a replayed callback, a link followed twice, a forged state and a stale sign-in', async () => {
    const { url } = await start('alice');
    const { cookie, authorization } = await follow(url);
    const again = await request(url);
    expect(again.status).toBe(404);
    const callback = await consent(authorization, 'alice');
    expect((await request(callback, { headers: { cookie } })).status).toBe(200);
    const replay = await request(callback, { headers: { cookie } });
    expect(replay.status).toBe(400);
    expect(replay.body).toContain('not under way');

    const forged = new URL(callback);
    forged.searchParams.set('state', 'made-up');
    expect((await request(forged.href, { headers: { cookie } })).status).toBe(400);

    const stale = await start('alice');
    const staleBrowser = await follow(stale.url);
    const staleCallback = await consent(staleBrowser.authorization, 'alice');
    clock = 11 * 60_000;
    try {
      const expired = await request(staleCallback, { headers: { cookie: staleBrowser.cookie } });
      expect(expired.status).toBe(400);
      expect(expired.body).toContain('expired');
      const unfollowed = await start('alice');
      clock = 22 * 60_000;
      expect((await request(unfollowed.url)).status).toBe(410);
    } finally {
      clock = 0;
    }
  });

  test('a sign-in replaced by a newer one of the same person', async () => {
    const first = await start('alice');
    const firstBrowser = await follow(first.url);
    const firstCallback = await consent(firstBrowser.authorization, 'alice');
    await start('alice');
    const answer = await request(firstCallback, { headers: { cookie: firstBrowser.cookie } });
    expect(answer.status).toBe(400);
  });

  test('a browser is sent on with a redirect, and no answer or the token file carries a token', async () => {
    const browser = await request(`${gateway.url}/signin/${SERVER}`, {
      headers: { authorization: `Bearer ${tokens.bob}`, accept: 'text/html' },
    });
    expect(browser.status).toBe(303);
    expect(browser.headers.get('location')).toMatch(new RegExp(`/mcp/signin/${SERVER}/go/`));

    const kept = await Promise.all(['alice', 'bob'].map((user) => store.read(SERVER, principalOfUser(user))));
    const secrets = kept.flatMap((record) => [record?.tokens?.access_token, record?.tokens?.refresh_token]);
    const present = secrets.filter(
      (secret): secret is string => typeof secret === 'string' && secret.length > 0,
    );
    expect(present.length).toBeGreaterThanOrEqual(2);
    const file = readFileSync(join(folder, 'mcp-tokens.json'), 'utf8');
    const seen = [...answers, file, upstream.stderr()].join('\n');
    for (const secret of present) expect(seen.includes(secret)).toBe(false);
  });
});
