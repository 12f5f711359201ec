import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { Registry } from '../../src/index.js';
import {
  connectMcpServer,
  fileTokenStore,
  importMcpTools,
  type McpOAuth,
  McpSignInRequiredError,
  type McpTokenStore,
} from '../../src/mcp/index.js';
import { PUBLIC_CLIENT, startProvider, type TestProvider } from '../support/oidc-provider.js';
import { drivenSignIn, startUpstream } from './support/oauth-upstream.js';

// The library's OAuth client against the real thing: `toolpact serve --http --auth` as the upstream,
// oidc-provider as its authorization server, a real loopback listener for the redirect, and the
// provider's own login and consent pages driven over HTTP as the browser.

const KEY = 'a'.repeat(64);
/** Short-lived access tokens, so that a test sees one expire and be refreshed. */
const ACCESS_TOKEN_TTL = 4;

let folder: string;
let provider: TestProvider;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-oauth-client-'));
  provider = await startProvider({ accessTokenTtl: ACCESS_TOKEN_TTL });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  for (const served of upstreams.values()) {
    // One that did not start failed its first test already.
    await served.then((started) => started.stop()).catch(() => undefined);
  }
  await provider?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
/**
 * One upstream per set of scopes for the whole file: it keeps no state of a sign-in (each test signs in
 * with a token store and a listener of its own), so a process start is paid once, not per test.
 */
const upstreams = new Map<string, Promise<Upstream>>();

function upstream(scopes: Parameters<typeof startUpstream>[2] = { required: ['tools:read'] }) {
  const key = JSON.stringify(scopes);
  let served = upstreams.get(key);
  if (!served) {
    served = startUpstream(folder, provider.issuer, scopes);
    upstreams.set(key, served);
  }
  return served;
}

async function driven(user = 'alice') {
  const signIn = await drivenSignIn(user);
  cleanups.push(() => signIn.driver.close());
  return signIn;
}

async function imported(url: string, auth: McpOAuth) {
  const registry = new Registry();
  const connection = await importMcpTools(registry, { url }, { name: 'upstream', auth });
  cleanups.push(() => registry.close());
  return { registry, connection };
}

/** Waits until the upstream refuses `token`, that is until it expired. */
async function untilRefused(served: Upstream, token: string): Promise<void> {
  while ((await served.statusFor(token)) !== 401) await sleep(100);
}

async function accessToken(store: McpTokenStore): Promise<{ access: string; refresh: string | undefined }> {
  const tokens = (await store.read('upstream', 'local'))?.tokens;
  if (!tokens) throw new Error('no tokens kept');
  return { access: tokens.access_token, refresh: tokens.refresh_token };
}

describe('signing in to a real upstream', () => {
  test('signs in through the loopback listener, lists and calls with the token, keeps it sealed in the file', async () => {
    const served = await upstream();
    const { driver, visits } = await driven();
    const file = join(folder, 'tokens-first.json');
    const store = fileTokenStore(file, { key: KEY });
    const { registry, connection } = await imported(served.url, {
      store,
      server: 'upstream',
      clientId: PUBLIC_CLIENT.id,
      signIn: driver,
    });

    expect(connection.tools().map((tool) => tool.name)).toContain('echo');
    expect(await registry.call('echo', { text: 'signed in' })).toEqual({ ok: true, result: 'signed in' });

    expect(visits).toHaveLength(1);
    const asked = visits[0]!.searchParams;
    expect(asked.get('client_id')).toBe(PUBLIC_CLIENT.id);
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('resource')).toBe(served.resource);
    expect(asked.get('redirect_uri')).toBe(driver.redirectUrl);
    expect(asked.get('scope')?.split(' ')).toContain('tools:read');

    const { access } = await accessToken(store);
    expect(await served.statusFor(access)).toBe(200);
    const kept = readFileSync(file, 'utf8');
    for (const clear of [access, 'upstream', 'local', PUBLIC_CLIENT.id]) expect(kept).not.toContain(clear);
    expect(served.stderr()).not.toContain(access);
  });

  test('refreshes an expired access token without a new sign-in, and keeps the rotated refresh token', async () => {
    const served = await upstream();
    const { driver, visits } = await driven();
    const store = fileTokenStore(join(folder, 'tokens-refresh.json'), { key: KEY });
    const { registry } = await imported(served.url, {
      store,
      server: 'upstream',
      clientId: PUBLIC_CLIENT.id,
      signIn: driver,
    });
    expect(await registry.call('echo', { text: 'one' })).toEqual({ ok: true, result: 'one' });
    const first = await accessToken(store);
    expect(first.refresh).toBeDefined();

    await untilRefused(served, first.access);
    const requestsBefore = provider.tokenRequests();
    expect(await registry.call('echo', { text: 'two' })).toEqual({ ok: true, result: 'two' });

    expect(visits).toHaveLength(1);
    expect(provider.tokenRequests()).toBeGreaterThan(requestsBefore);
    const second = await accessToken(store);
    expect(second.access).not.toBe(first.access);
    // oidc-provider rotates the refresh tokens of a public client.
    expect(second.refresh).toBeDefined();
    expect(second.refresh).not.toBe(first.refresh);
  });

  test('steps up on insufficient_scope: a second sign-in asks for the union of scopes, then the call runs', async () => {
    const served = await upstream({ required: ['tools:read'], tools: { add: ['tools:write'] } });
    const { driver, visits } = await driven();
    const store = fileTokenStore(join(folder, 'tokens-step-up.json'), { key: KEY });
    const { registry } = await imported(served.url, {
      store,
      server: 'upstream',
      clientId: PUBLIC_CLIENT.id,
      signIn: driver,
    });
    expect(visits).toHaveLength(1);
    const firstScopes = visits[0]!.searchParams.get('scope')?.split(' ');
    expect(firstScopes).toContain('tools:read');
    expect(firstScopes).not.toContain('tools:write');
    expect(await registry.call('echo', { text: 'read' })).toEqual({ ok: true, result: 'read' });

    expect(await registry.call('add', { a: 2, b: 3 })).toEqual({ ok: true, result: { sum: 5 } });
    expect(visits).toHaveLength(2);
    const secondScopes = visits[1]!.searchParams.get('scope')?.split(' ');
    expect(secondScopes).toEqual(expect.arrayContaining(['tools:read', 'tools:write']));
    expect((await store.read('upstream', 'local'))?.tokens?.scope?.split(' ')).toEqual(
      expect.arrayContaining(['tools:read', 'tools:write']),
    );
  });

  test('a step-up whose sign-in comes back forged fails the call saying why, and keeps the first sign-in', async () => {
    const served = await upstream({ required: ['tools:read'], tools: { add: ['tools:write'] } });
    let visit = 0;
    const signIn = await drivenSignIn('alice', {
      tamper: (query) => {
        if (++visit === 2) query.set('state', 'forged-by-an-attacker');
      },
    });
    cleanups.push(() => signIn.driver.close());
    const store = fileTokenStore(join(folder, 'tokens-step-up-forged.json'), { key: KEY });
    const { registry } = await imported(served.url, {
      store,
      server: 'upstream',
      clientId: PUBLIC_CLIENT.id,
      signIn: signIn.driver,
    });
    const before = await accessToken(store);

    const refused = await registry.call('add', { a: 2, b: 3 });
    expect(refused).toMatchObject({ ok: false, error: { type: 'mcp_protocol_error' } });
    const message = (refused as { error: { message: string } }).error.message;
    expect(message).toMatch(/state that does not match/);
    expect(message).not.toContain(before.access);
    expect(signIn.visits).toHaveLength(2);
    expect((await accessToken(store)).access).toBe(before.access);
    expect(await registry.call('echo', { text: 'still' })).toEqual({ ok: true, result: 'still' });
  });

  test('a revoked refresh token: after expiry a call answers auth_required, and connecting fails with McpSignInRequiredError', async () => {
    const served = await upstream();
    const { driver } = await driven();
    const store = fileTokenStore(join(folder, 'tokens-revoked.json'), { key: KEY });
    const auth = { store, server: 'upstream', clientId: PUBLIC_CLIENT.id };
    const signedIn = await imported(served.url, { ...auth, signIn: driver });
    await signedIn.registry.close();

    // The gateway's case: a connection that cannot send anyone to a browser.
    const { registry } = await imported(served.url, auth);
    expect(await registry.call('echo', { text: 'before' })).toEqual({ ok: true, result: 'before' });
    const { access, refresh } = await accessToken(store);
    await provider.revoke(refresh!);
    await untilRefused(served, access);

    const written: unknown[] = [];
    const console = vi.spyOn(globalThis.console, 'warn').mockImplementation((...args) => {
      written.push(args);
    });
    const envelope = await registry.call('echo', { text: 'after' }).finally(() => console.mockRestore());
    // What the SDK says as it drops the refused grant names neither token.
    expect(JSON.stringify(written)).toContain('invalid_grant');
    expect(JSON.stringify(written)).not.toContain(access);
    expect(JSON.stringify(written)).not.toContain(refresh);
    expect(envelope).toMatchObject({
      ok: false,
      error: {
        type: 'auth_required',
        retryable: false,
        details: { login: 'toolpact gateway login upstream' },
      },
    });
    expect(JSON.stringify(envelope)).not.toContain(access);
    expect(JSON.stringify(envelope)).not.toContain(refresh);

    const connecting = connectMcpServer({ url: served.url }, { auth });
    await expect(connecting).rejects.toBeInstanceOf(McpSignInRequiredError);
    await expect(connecting).rejects.toThrow(/needs a sign-in.*Run: toolpact gateway login upstream/);
  });
});
