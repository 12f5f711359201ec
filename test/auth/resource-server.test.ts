import { createHmac } from 'node:crypto';
import {
  Client,
  ClientCredentialsProvider,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { type CryptoKey, generateKeyPair, importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import {
  type AuthConfig,
  createAuthenticator,
  INSECURE_WARNING_HEADER,
  type RunningHttpServer,
  serveHttp,
} from '../../src/mcp/index.js';
import {
  CONFIDENTIAL_CLIENT,
  freePort,
  PUBLIC_CLIENT,
  signIn,
  startProvider,
  type TestProvider,
} from '../support/oidc-provider.js';
import { call } from './support.js';

// toolpact as an OAuth resource server against a real OpenID provider (oidc-provider 8, in process):
// the protected resource metadata, the 401 and 403 challenges, hostile tokens (each refused before any
// tool runs), the v2 SDK client's own OAuth flows, and the issuer rotating its signing key.

let provider: TestProvider;
let server: RunningHttpServer;
let resource: string;
const runs = { read: 0, write: 0 };

function tools(): Registry {
  return new Registry().register([
    defineTool({
      name: 'look',
      description: 'Return "seen". Reads nothing; counts its runs for the test.',
      category: 'read',
      input: z.object({}),
      execute: () => {
        runs.read++;
        return 'seen';
      },
    }),
    defineTool({
      name: 'jot',
      description: 'Pretend to write a note. Counts its runs for the test.',
      category: 'write',
      input: z.object({}),
      execute: () => {
        runs.write++;
        return 'written';
      },
    }),
  ]);
}

function config(extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    resource,
    // A short cooldown: a token of an unknown kid waits for its end before it is refused.
    issuers: [{ issuer: provider.issuer, jwksCooldownSeconds: 2 }],
    scopes: { required: ['tools:read'], categories: { write: ['tools:write'] } },
    ...extra,
  };
}

async function forge(
  claims: Record<string, unknown>,
  options: { key?: 'provider' | 'stranger' | CryptoKey; kid?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const signer = provider.signingKey();
  const key =
    options.key === 'stranger'
      ? (await generateKeyPair('RS256')).privateKey
      : options.key === undefined || options.key === 'provider'
        ? await importJWK(signer.privateJwk, 'RS256')
        : options.key;
  return new SignJWT({
    iss: provider.issuer,
    sub: 'mallory',
    aud: resource,
    scope: 'tools:read tools:write',
    iat: now,
    exp: now + 300,
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? (signer.publicJwk.kid as string) })
    .sign(key);
}

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

beforeAll(async () => {
  provider = await startProvider();
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  server = await serveHttp(tools(), { port, auth: config() });
});

afterAll(async () => {
  await server?.close();
  await provider?.close();
});

describe('protected resource metadata and challenges', () => {
  test('the metadata is served at the root and at the path-aware well-known URL (RFC 9728)', async () => {
    const origin = new URL(resource).origin;
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status, path).toBe(200);
      expect(await response.json()).toMatchObject({
        resource,
        authorization_servers: [provider.issuer],
        scopes_supported: ['tools:read', 'tools:write'],
        bearer_methods_supported: ['header'],
      });
    }
  });

  test('no token: 401 with resource_metadata and the scope every request needs, no error code', async () => {
    const answer = await call(server.url, 'look');
    expect(answer.status).toBe(401);
    expect(answer.challenge).toBe(
      `Bearer scope="tools:read", resource_metadata="${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(answer.body).toContain('needs an access token');
  });

  test('a valid token calls the tool; one without the write scope gets 403 insufficient_scope at tools/call', async () => {
    const before = { ...runs };
    const reader = await provider.clientCredentialsToken(resource, 'tools:read');
    const read = await call(server.url, 'look', `Bearer ${reader}`);
    expect(read.status, read.body).toBe(200);
    expect(read.body).toContain('seen');
    const write = await call(server.url, 'jot', `Bearer ${reader}`);
    expect(write.status).toBe(403);
    expect(write.challenge).toMatch(
      /^Bearer error="insufficient_scope", scope="tools:read tools:write", error_description="[^"]+", resource_metadata="[^"]+"$/,
    );
    expect(runs).toEqual({ read: before.read + 1, write: before.write });
    const writer = await provider.clientCredentialsToken(resource, 'tools:read tools:write');
    expect((await call(server.url, 'jot', `Bearer ${writer}`)).status).toBe(200);
    expect(runs.write).toBe(before.write + 1);
  });
});

describe('hostile tokens are refused before any tool runs', () => {
  const hostile: [string, () => Promise<string>, 401 | 403, RegExp][] = [
    ['expired', () => forge({ exp: Math.floor(Date.now() / 1000) - 3600 }), 401, /expired/],
    ['not yet valid', () => forge({ nbf: Math.floor(Date.now() / 1000) + 3600 }), 401, /not valid yet/],
    ['wrong audience', () => forge({ aud: 'https://elsewhere.example/mcp' }), 401, /issued for/],
    ['wrong issuer', () => forge({ iss: 'https://evil.example' }), 401, /not trusted/],
    [
      'alg none',
      async () =>
        `${base64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url(
          JSON.stringify({
            iss: provider.issuer,
            sub: 'mallory',
            aud: resource,
            scope: 'tools:read tools:write',
            exp: Math.floor(Date.now() / 1000) + 300,
          }),
        )}.`,
      401,
      /alg "none"/,
    ],
    [
      'HS256 signed with the public key as the secret',
      async () => {
        const header = base64url(
          JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: provider.signingKey().publicJwk.kid }),
        );
        const payload = base64url(
          JSON.stringify({
            iss: provider.issuer,
            sub: 'mallory',
            aud: resource,
            scope: 'tools:read tools:write',
            exp: Math.floor(Date.now() / 1000) + 300,
          }),
        );
        const secret = JSON.stringify(provider.signingKey().publicJwk);
        const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
        return `${header}.${payload}.${signature}`;
      },
      401,
      /alg "HS256"/,
    ],
    [
      'a tampered payload',
      async () => {
        const [header, payload, signature] = (
          await provider.clientCredentialsToken(resource, 'tools:read')
        ).split('.');
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
        const raised = base64url(JSON.stringify({ ...claims, scope: 'tools:read tools:write tools:admin' }));
        return `${header}.${raised}.${signature}`;
      },
      401,
      /signature does not verify/,
    ],
    ['an unknown kid', () => forge({}, { key: 'stranger', kid: 'not-published' }), 401, /does not publish/],
    [
      'a token minted for another resource',
      () => provider.clientCredentialsToken('http://127.0.0.1:9/other-mcp', 'tools:read tools:write'),
      401,
      /issued for/,
    ],
    [
      'a token missing the scope every request needs',
      () => forge({ scope: 'tools:admin' }),
      403,
      /lacks the scope tools:read/,
    ],
  ];

  test.each(hostile)('%s', async (_name, mint, status, reason) => {
    const before = { ...runs };
    const token = await mint();
    for (const tool of ['look', 'jot']) {
      const answer = await call(server.url, tool, `Bearer ${token}`);
      expect(answer.status, answer.body).toBe(status);
      expect(answer.challenge).toContain(
        status === 401 ? 'Bearer error="invalid_token"' : 'Bearer error="insufficient_scope"',
      );
      expect(answer.challenge).toContain('resource_metadata="');
      expect(JSON.parse(answer.body).error.message).toMatch(reason);
    }
    expect(runs).toEqual(before);
  });

  test('a malformed Authorization header is 400 invalid_request; another scheme counts as no token', async () => {
    const malformed = await call(server.url, 'look', 'Bearer two words');
    expect(malformed.status).toBe(400);
    expect(malformed.challenge).toContain('error="invalid_request"');
    const basic = await call(server.url, 'look', 'Basic YWxpY2U6c2VjcmV0');
    expect(basic.status).toBe(401);
    expect(basic.challenge).not.toContain('error=');
  });

  test('a burst of unknown key ids refetches the JWKS at most once per cooldown', async () => {
    const first = await forge({}, { key: 'stranger', kid: 'made-up-first' });
    const tokens = await Promise.all(
      Array.from({ length: 8 }, (_, index) => forge({}, { key: 'stranger', kid: `made-up-${index}` })),
    );
    // One made-up kid first: when it is answered, the set was just fetched and a cooldown begins.
    expect((await call(server.url, 'look', `Bearer ${first}`)).status).toBe(401);
    const fetched = provider.jwksFetches();
    // Sent together: those that wait for the cooldown's end share its one fetch.
    const answers = await Promise.all(tokens.map((token) => call(server.url, 'look', `Bearer ${token}`)));
    expect(answers.map((answer) => answer.status)).toEqual(tokens.map(() => 401));
    expect(provider.jwksFetches() - fetched).toBeLessThanOrEqual(1);
  });
});

describe('the v2 SDK client', () => {
  test('client credentials: 401, metadata discovery, token, the call', async () => {
    const before = runs.read;
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      authProvider: new ClientCredentialsProvider({
        clientId: CONFIDENTIAL_CLIENT.id,
        clientSecret: CONFIDENTIAL_CLIENT.secret,
        scope: 'tools:read',
        expectedIssuer: provider.issuer,
      }),
    });
    const client = new Client({ name: 'ci', version: '1' });
    await client.connect(transport);
    const result = await client.callTool({ name: 'look', arguments: {} });
    expect(JSON.stringify(result.content)).toContain('seen');
    expect(runs.read).toBe(before + 1);
    await client.close();
  });

  test('authorization code with PKCE: the test logs in and consents over HTTP, then the call goes through', async () => {
    const before = runs.read;
    const state: { verifier?: string; tokens?: unknown; redirect?: URL; discovery?: unknown } = {};
    const authProvider: OAuthClientProvider = {
      get redirectUrl() {
        return PUBLIC_CLIENT.redirect;
      },
      get clientMetadata() {
        return {
          redirect_uris: [PUBLIC_CLIENT.redirect],
          client_name: 'desk app',
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        };
      },
      clientInformation: () => ({ client_id: PUBLIC_CLIENT.id, issuer: provider.issuer }),
      tokens: () => state.tokens as never,
      saveTokens: (tokens) => {
        state.tokens = tokens;
      },
      redirectToAuthorization: (url) => {
        state.redirect = url;
      },
      saveCodeVerifier: (verifier) => {
        state.verifier = verifier;
      },
      codeVerifier: () => state.verifier!,
      saveDiscoveryState: (discovery) => {
        state.discovery = discovery;
      },
      discoveryState: () => state.discovery as never,
    };
    const url = new URL(server.url);
    const first = new StreamableHTTPClientTransport(url, { authProvider });
    const client = new Client({ name: 'desk', version: '1' });
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(state.redirect?.searchParams.get('resource')).toBe(resource);
    expect(state.redirect?.searchParams.get('code_challenge_method')).toBe('S256');
    const answer = await signIn(state.redirect!, 'alice');
    await first.finishAuth(answer.get('code')!, answer.get('iss') ?? undefined);
    const second = new Client({ name: 'desk', version: '1' });
    await second.connect(new StreamableHTTPClientTransport(url, { authProvider }));
    const result = await second.callTool({ name: 'look', arguments: {} });
    expect(JSON.stringify(result.content)).toContain('seen');
    expect(runs.read).toBe(before + 1);
    await second.close();
  });
});

describe('2025 sessions', () => {
  test("a session belongs to the caller that opened it: another caller's valid token does not reach into it", async () => {
    const post = (token: string, body: object, session?: string) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
    const alice = await forge({ sub: 'alice', scope: 'tools:read' });
    const bob = await forge({ sub: 'bob', scope: 'tools:read' });
    const opened = await post(alice, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect((await post(bob, list, session)).status).toBe(404);
    expect((await post(alice, list, session)).status).toBe(200);
  });
});

describe('key rotation', () => {
  test('after the issuer starts signing with a new key, no valid call is refused', async () => {
    const port = await freePort();
    const rotatingResource = `http://127.0.0.1:${port}/mcp`;
    const rotating = await serveHttp(tools(), {
      port,
      // Without a cooldown, the first token signed with the new key fetches the JWKS again at once.
      auth: {
        ...config(),
        resource: rotatingResource,
        issuers: [{ issuer: provider.issuer, jwksCooldownSeconds: 0 }],
      },
    });
    try {
      const old = await provider.clientCredentialsToken(rotatingResource, 'tools:read');
      expect((await call(rotating.url, 'look', `Bearer ${old}`)).status).toBe(200);
      await provider.rotateKey();
      for (let index = 0; index < 3; index++) {
        const fresh = await provider.clientCredentialsToken(rotatingResource, 'tools:read');
        expect(JSON.parse(Buffer.from(fresh.split('.')[0]!, 'base64url').toString()).kid).toBe(
          provider.signingKey().publicJwk.kid,
        );
        const answer = await call(rotating.url, 'look', `Bearer ${fresh}`);
        expect(answer.status, answer.body).toBe(200);
      }
      // A token of the old key, still published, still verifies.
      expect((await call(rotating.url, 'look', `Bearer ${old}`)).status).toBe(200);
    } finally {
      await rotating.close();
    }
  });
});

describe('a key the issuer publishes inside the JWKS cooldown', () => {
  const COOLDOWN_SECONDS = 1;
  const authenticator = () =>
    createAuthenticator({
      ...config(),
      issuers: [{ issuer: provider.issuer, jwksCooldownSeconds: COOLDOWN_SECONDS }],
    });
  const reason = (outcome: Awaited<ReturnType<ReturnType<typeof createAuthenticator>['authenticate']>>) =>
    outcome.ok ? 'accepted' : `${outcome.status} ${outcome.message}`;

  test('a flood of made-up key ids makes at most one JWKS fetch per cooldown, and every token is refused', async () => {
    const auth = authenticator();
    expect((await auth.authenticate(`Bearer ${await forge({})}`)).ok).toBe(true);
    const stranger = (await generateKeyPair('RS256')).privateKey;
    const fetched = provider.jwksFetches();
    const started = Date.now();
    // Six callers, each sending made-up key ids one after the other as fast as it is answered.
    const outcomes = (
      await Promise.all(
        Array.from({ length: 6 }, async (_, caller) => {
          const answered: string[] = [];
          for (let index = 0; index < 3; index++) {
            const token = await forge({}, { key: stranger, kid: `flood-${caller}-${index}` });
            answered.push(reason(await auth.authenticate(`Bearer ${token}`)));
          }
          return answered;
        }),
      )
    ).flat();
    const window = Date.now() - started;
    expect(outcomes).toHaveLength(18);
    expect(outcomes.filter((outcome) => !/^401 .*does not publish/.test(outcome))).toEqual([]);
    const fetches = provider.jwksFetches() - fetched;
    expect(fetches).toBeLessThanOrEqual(Math.ceil(window / (COOLDOWN_SECONDS * 1000)) + 1);
    expect(fetches).toBeLessThan(outcomes.length);
  });

  test('tokens of a key published right after a fetch are accepted after the cooldown, with one fetch; a made-up kid among them is refused', async () => {
    const auth = authenticator();
    const old = await provider.clientCredentialsToken(resource, 'tools:read');
    // The first token fetches the set: the cooldown starts now.
    expect(reason(await auth.authenticate(`Bearer ${old}`))).toBe('accepted');
    const fetched = provider.jwksFetches();
    await provider.rotateKey();
    const kid = provider.signingKey().publicJwk.kid;
    const fresh = await Promise.all(
      Array.from({ length: 3 }, () => provider.clientCredentialsToken(resource, 'tools:read')),
    );
    for (const token of fresh) {
      expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid).toBe(kid);
    }
    const forged = await forge({}, { key: 'stranger', kid: 'not-published-either' });
    const outcomes = await Promise.all(
      [...fresh, forged].map(async (token) => reason(await auth.authenticate(`Bearer ${token}`))),
    );
    expect(outcomes.slice(0, 3)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(outcomes[3]).toMatch(/^401 .*does not publish/);
    expect(provider.jwksFetches() - fetched).toBe(1);
    // The old key is still published: its token still verifies (from the cache, or against the set).
    expect(reason(await auth.authenticate(`Bearer ${old}`))).toBe('accepted');
  });

  test('a request that ends while it waits for the cooldown stops waiting', async () => {
    // A cooldown longer than the test may take: only the abort can end the wait.
    const auth = createAuthenticator({
      ...config(),
      issuers: [{ issuer: provider.issuer, jwksCooldownSeconds: 600 }],
    });
    expect((await auth.authenticate(`Bearer ${await forge({})}`)).ok).toBe(true);
    const fetched = provider.jwksFetches();
    const hangUp = new AbortController();
    const waiting = auth.authenticate(
      `Bearer ${await forge({}, { key: 'stranger', kid: 'never-published' })}`,
      { signal: hangUp.signal },
    );
    hangUp.abort();
    const outcome = await waiting;
    expect(outcome).toMatchObject({ ok: false, status: 503 });
    expect(reason(outcome)).toMatch(/request ended/);
    expect(provider.jwksFetches()).toBe(fetched);
  });
});

describe('the authenticator on its own', () => {
  test("keys that cannot be fetched are the issuer's trouble: 503, no challenge, not invalid_token", async () => {
    const port = await freePort();
    const auth = createAuthenticator({
      ...config(),
      issuers: [{ issuer: provider.issuer, jwksUri: `http://127.0.0.1:${port}/jwks` }],
    });
    const token = await provider.clientCredentialsToken(resource, 'tools:read');
    const outcome = await auth.authenticate(`Bearer ${token}`);
    expect(outcome).toMatchObject({ ok: false, status: 503, error: undefined, wwwAuthenticate: undefined });
    expect(outcome.ok === false && outcome.message).toMatch(/cannot be fetched.*Try again/);
  });

  test('a verified token is answered from the cache until it expires: the JWKS is not fetched again', async () => {
    const auth = createAuthenticator(config());
    const token = await provider.clientCredentialsToken(resource, 'tools:read');
    const first = await auth.authenticate(`Bearer ${token}`);
    expect(first.ok).toBe(true);
    const fetched = provider.jwksFetches();
    for (let index = 0; index < 5; index++) {
      const again = await auth.authenticate(`bearer ${token}`);
      expect(again.ok && again.principal.clientId).toBe(CONFIDENTIAL_CLIENT.id);
    }
    expect(provider.jwksFetches()).toBe(fetched);
    if (first.ok) {
      expect(first.authInfo.token).toBe('');
      expect(first.principal).toMatchObject({
        issuer: provider.issuer,
        groups: ['robots'],
        scopes: ['tools:read'],
      });
    }
  });
});

describe('binding beyond loopback', () => {
  test('without auth it refuses to start, saying how to fix it; with insecureNoAuth every response carries Toolpact-Warning', async () => {
    await expect(serveHttp(tools(), { host: '0.0.0.0' })).rejects.toThrow(
      /reachable from the network, and no auth is configured.*Give auth.*insecureNoAuth/,
    );
    const open = await serveHttp(tools(), { host: '0.0.0.0', insecureNoAuth: true });
    try {
      const port = new URL(open.url).port;
      const answer = await fetch(`http://127.0.0.1:${port}/nowhere`);
      expect(answer.status).toBe(404);
      expect(answer.headers.get(INSECURE_WARNING_HEADER)).toMatch(/^no-auth: /);
    } finally {
      await open.close();
    }
  });
});
