import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import { importMcpTools, McpSignInError, memoryTokenStore } from '../../src/mcp/index.js';
import { PUBLIC_CLIENT, startProvider, type TestProvider, userToken } from '../support/oidc-provider.js';
import { drivenSignIn, startUpstream } from './support/oauth-upstream.js';

// Hostile servers against the library's OAuth client. Each is refused with a message that says what
// was wrong, the person is not sent to sign in where the refusal comes first, no code is redeemed, and
// no token reaches a server it was not issued for. The hostile servers are written here with
// node:http: they are the attacker.

let folder: string;
let provider: TestProvider;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-oauth-hostile-'));
  provider = await startProvider();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await provider?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
}

/** A hand-written server on loopback that records every request it gets. */
async function hostile(answer: (request: IncomingMessage, response: ServerResponse, origin: string) => void) {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    seen.push({
      method: request.method ?? '',
      path: request.url ?? '',
      authorization: request.headers.authorization,
    });
    request.resume();
    request.on('end', () => answer(request, response, origin));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { origin, url: `${origin}/mcp`, seen };
}

const json = (response: ServerResponse, body: unknown) =>
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/**
 * An MCP endpoint that asks for a sign-in and serves protected resource metadata (RFC 9728) made by
 * `metadata` from its own origin.
 */
function protectedEndpoint(metadata: (origin: string) => Record<string, unknown>) {
  return hostile((request, response, origin) => {
    if (request.url === '/.well-known/oauth-protected-resource/mcp') return json(response, metadata(origin));
    response
      .writeHead(401, {
        'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
      })
      .end();
  });
}

/** The real provider's metadata, changed by `change`, served from a hostile origin. */
async function metadataServer(change: (metadata: Record<string, unknown>, origin: string) => void) {
  const real = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as Record<
    string,
    unknown
  >;
  return hostile((request, response, origin) => {
    if (request.url?.startsWith('/.well-known/')) {
      const metadata = structuredClone(real);
      change(metadata, origin);
      return json(response, metadata);
    }
    response.writeHead(404).end();
  });
}

async function driven(options?: Parameters<typeof drivenSignIn>[1]) {
  const signIn = await drivenSignIn('alice', options);
  cleanups.push(() => signIn.driver.close());
  return signIn;
}

async function importFrom(url: string, signIn: Awaited<ReturnType<typeof driven>>['driver']) {
  const registry = new Registry();
  cleanups.push(() => registry.close());
  return importMcpTools(
    registry,
    { url },
    { name: 'upstream', auth: { store: memoryTokenStore(), clientId: PUBLIC_CLIENT.id, signIn } },
  );
}

/** Refused as a sign-in error whose message names what was wrong and what came. */
async function refused(importing: Promise<unknown>, what: RegExp): Promise<void> {
  const error = await importing.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpSignInError);
  expect((error as Error).message).toMatch(/^The sign-in to http:\/\/127\.0\.0\.1:\d+\/mcp was refused: /);
  expect((error as Error).message).toMatch(what);
}

const carried = (seen: readonly Seen[]) => seen.filter((request) => request.authorization !== undefined);

describe('refused before the person is sent to sign in', () => {
  test('protected resource metadata naming another origin as the resource', async () => {
    const endpoint = await protectedEndpoint(() => ({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: [provider.issuer],
    }));
    const { driver, visits } = await driven();
    const tokenRequests = provider.tokenRequests();

    await refused(
      importFrom(endpoint.url, driver),
      /Protected resource https:\/\/mcp\.example\.com\/mcp does not match/,
    );
    expect(visits).toHaveLength(0);
    expect(provider.tokenRequests()).toBe(tokenRequests);
    expect(carried(endpoint.seen)).toEqual([]);
  });

  test('authorization server metadata whose issuer is not the server it was fetched from', async () => {
    const impostor = await metadataServer(() => {});
    const endpoint = await protectedEndpoint((origin) => ({
      resource: `${origin}/mcp`,
      authorization_servers: [impostor.origin],
    }));
    const { driver, visits } = await driven();
    const tokenRequests = provider.tokenRequests();

    await refused(
      importFrom(endpoint.url, driver),
      new RegExp(`Issuer mismatch in authorization server metadata.*received "${provider.issuer}"`),
    );
    expect(visits).toHaveLength(0);
    expect(provider.tokenRequests()).toBe(tokenRequests);
    expect(carried(endpoint.seen)).toEqual([]);
  });

  test.each([
    ['absent', undefined],
    ['without S256', ['plain']],
  ])('an authorization server whose code_challenge_methods_supported is %s', async (_, methods) => {
    const noPkce = await metadataServer((metadata, origin) => {
      metadata.issuer = origin;
      if (methods === undefined) delete metadata.code_challenge_methods_supported;
      else metadata.code_challenge_methods_supported = methods;
    });
    const endpoint = await protectedEndpoint((origin) => ({
      resource: `${origin}/mcp`,
      authorization_servers: [noPkce.origin],
    }));
    const { driver, visits } = await driven();
    const tokenRequests = provider.tokenRequests();

    const importing = importFrom(endpoint.url, driver);
    await expect(importing).rejects.toBeInstanceOf(McpSignInError);
    await expect(importing).rejects.toThrow(/does not say it supports PKCE with S256/);
    expect(visits).toHaveLength(0);
    expect(provider.tokenRequests()).toBe(tokenRequests);
    expect(carried(endpoint.seen)).toEqual([]);
  });
});

describe('refused when the person comes back', () => {
  test('an authorization server of another origin that does not serve this resource', async () => {
    const elsewhere = await startProvider({ resources: ['https://mcp.example.com/mcp'] });
    cleanups.push(() => elsewhere.close());
    const endpoint = await protectedEndpoint((origin) => ({
      resource: `${origin}/mcp`,
      authorization_servers: [elsewhere.issuer],
    }));
    const { driver, visits } = await driven();

    await refused(importFrom(endpoint.url, driver), /is not a resource this server issues tokens for/);
    expect(visits).toHaveLength(1);
    expect(elsewhere.tokenRequests()).toBe(0);
    expect(carried(endpoint.seen)).toEqual([]);
  });

  test('an iss in the redirect that is not the authorization server (RFC 9207 mix-up)', async () => {
    const served = await startUpstream(folder, provider.issuer, { required: ['tools:read'] });
    cleanups.push(() => served.stop());
    const { driver, visits } = await driven({
      tamper: (query) => query.set('iss', 'https://id.example.com'),
    });
    const tokenRequests = provider.tokenRequests();

    await refused(
      importFrom(served.url, driver),
      /Issuer mismatch in authorization response \(RFC 9207\).*received "https:\/\/id\.example\.com"/,
    );
    expect(visits).toHaveLength(1);
    expect(provider.tokenRequests()).toBe(tokenRequests);
  });

  test('a forged callback with another state reaching the loopback listener first', async () => {
    const served = await startUpstream(folder, provider.issuer, { required: ['tools:read'] });
    cleanups.push(() => served.stop());
    const { driver, visits } = await driven({
      before: async (redirectUrl) => {
        await (await fetch(`${redirectUrl}?code=forged-code&state=forged-state`)).text();
      },
    });
    const tokenRequests = provider.tokenRequests();

    const importing = importFrom(served.url, driver);
    await expect(importing).rejects.toBeInstanceOf(McpSignInError);
    await expect(importing).rejects.toThrow(/a state that does not match the one sent.*Sign in again/);
    expect(visits).toHaveLength(1);
    expect(provider.tokenRequests()).toBe(tokenRequests);
  });
});

describe('a token goes to its own server only', () => {
  test('an MCP endpoint that redirects to another origin: the token does not follow', async () => {
    const elsewhere = await hostile((_, response) => response.writeHead(404).end());
    const redirecting = await hostile((request, response) =>
      response.writeHead(307, { location: `${elsewhere.origin}${request.url}` }).end(),
    );
    const token = await userToken(provider, 'alice', redirecting.url);
    const store = memoryTokenStore();
    await store.write('upstream', 'local', {
      tokens: { access_token: token, token_type: 'Bearer', expires_in: 300, obtainedAt: Date.now() },
    });
    const registry = new Registry();
    cleanups.push(() => registry.close());

    const importing = importMcpTools(
      registry,
      { url: redirecting.url },
      { name: 'upstream', auth: { store, server: 'upstream', clientId: PUBLIC_CLIENT.id } },
    );
    await expect(importing).rejects.toThrow(/Redirect to http:\/\/127\.0\.0\.1:\d+\/mcp not followed/);
    await expect(importing).rejects.not.toThrow(token);
    expect(redirecting.seen.map((request) => request.authorization)).toContain(`Bearer ${token}`);
    expect(elsewhere.seen.filter((request) => request.authorization?.includes(token))).toEqual([]);
    expect(elsewhere.seen).toEqual([]);
  });
});
