// Opaque access tokens checked by RFC 7662 introspection at a real OpenID provider (oidc-provider 8,
// in process on a loopback port): real tokens active with their subject, client, groups and scopes;
// revoked, foreign-resource, foreign-issuer and expired tokens inactive; wrong client credentials, a
// provider that does not answer and a provider that is down, each inactive with its reason.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations; the part this file uses is typed below.
import OidcProvider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type IntrospectionExpectations, judgeIntrospection } from '../../src/auth/introspection.js';
import { type IntrospectionOptions, IntrospectionOptionsError, introspector } from '../../src/mcp/index.js';

const GATE = { id: 'toolpact-gate', secret: 'gate:secret with spaces+plus%' };
const AGENT = { id: 'agent', secret: 'agent-secret' };
const PEOPLE: Record<string, { groups: string[]; roles: string[] }> = {
  alice: { groups: ['leads'], roles: ['approver'] },
  bob: { groups: ['developers'], roles: [] },
};

/** The part of oidc-provider's API this file uses. */
interface Provider {
  use(middleware: (ctx: { path: string }, next: () => Promise<void>) => Promise<void>): void;
  callback(): (request: IncomingMessage, response: import('node:http').ServerResponse) => void;
  Client: { find(id: string): Promise<unknown> };
  AccessToken: new (fields: Record<string, unknown>) => { save(): Promise<string> };
  ResourceServer: new (identifier: string, data: Record<string, unknown>) => unknown;
}
const Provider = OidcProvider as new (issuer: string, configuration: Record<string, unknown>) => Provider;

let server: Server;
let issuer: string;
let resource: string;
let provider: Provider;
/** How many introspection requests reached the provider. */
let introspections = 0;

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  issuer = `http://127.0.0.1:${port}`;
  resource = `http://127.0.0.1:${port}/mcp`;
  provider = new Provider(issuer, {
    clients: [
      {
        client_id: GATE.id,
        client_secret: GATE.secret,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        client_id: AGENT.id,
        client_secret: AGENT.secret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
    ],
    features: {
      introspection: { enabled: true },
      revocation: { enabled: true },
      clientCredentials: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => ({
          scope: 'tools',
          accessTokenFormat: 'opaque',
          audience: indicator,
        }),
      },
    },
    // Groups at the top, roles at a nested path (as Keycloak's realm_access.roles).
    extraTokenClaims: (_ctx: unknown, token: { accountId?: unknown }) => {
      const person = typeof token.accountId === 'string' ? PEOPLE[token.accountId] : undefined;
      return person
        ? { groups: person.groups, realm_access: { roles: person.roles } }
        : { groups: ['automation'] };
    },
  });
  provider.use(async (ctx, next) => {
    if (ctx.path === '/token/introspection') introspections++;
    await next();
  });
  server.on('request', provider.callback());
});

afterAll(async () => {
  if (server.listening) await new Promise((resolve) => server.close(resolve));
});

/** A user's opaque access token for a resource, issued by the provider to the agent client. */
async function userToken(accountId: string, forResource = resource): Promise<string> {
  const client = await provider.Client.find(AGENT.id);
  const token = new provider.AccessToken({
    accountId,
    client,
    scope: 'tools',
    resourceServer: new provider.ResourceServer(forResource, {
      scope: 'tools',
      accessTokenFormat: 'opaque',
      audience: forResource,
    }),
  });
  return token.save();
}

/** The agent's own token through the client credentials grant at the token endpoint. */
async function clientToken(forResource = resource): Promise<string> {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: basic(AGENT.id, AGENT.secret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'tools', resource: forResource }),
  });
  const body = (await response.json()) as { access_token?: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.access_token as string;
}

async function revoke(token: string): Promise<void> {
  const response = await fetch(`${issuer}/token/revocation`, {
    method: 'POST',
    headers: {
      authorization: basic(AGENT.id, AGENT.secret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token }),
  });
  expect(response.status).toBe(200);
}

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

function gate(options: Partial<IntrospectionOptions> = {}) {
  return introspector({
    issuer,
    clientId: GATE.id,
    clientSecret: GATE.secret,
    audience: resource,
    rolesClaim: 'realm_access.roles',
    ...options,
  });
}

describe('introspection at a real OpenID provider', () => {
  test("a user's token is active, with the subject, client, groups, roles and scopes it carries", async () => {
    const token = await userToken('alice');
    // The provider serves OpenID Connect discovery only: the endpoint is found through the fallback.
    const outcome = await gate()(token);
    expect(outcome).toEqual({
      active: true,
      principal: {
        subject: 'alice',
        issuer,
        clientId: AGENT.id,
        groups: ['leads'],
        roles: ['approver'],
        scopes: ['tools'],
      },
      expiresAt: expect.any(Number),
      scopes: ['tools'],
    });
    const expiresAt = (outcome as { expiresAt: number }).expiresAt;
    expect(expiresAt).toBeGreaterThan(Date.now() / 1000);
  });

  test('a client credentials token names the client as its subject', async () => {
    const outcome = await gate({ endpoint: `${issuer}/token/introspection` })(await clientToken());
    expect(outcome).toMatchObject({
      active: true,
      principal: { subject: AGENT.id, clientId: AGENT.id, issuer, groups: ['automation'], roles: [] },
    });
  });

  test('an active answer is reused until its bound, and one request serves callers asking at once', async () => {
    const token = await userToken('bob');
    const introspect = gate();
    const before = introspections;
    const together = await Promise.all([introspect(token), introspect(token), introspect(token)]);
    expect(together.every((each) => each.active)).toBe(true);
    expect(await introspect(token)).toBe(together[0]);
    expect(introspections - before).toBe(1);
  });

  test('a revoked token is inactive; a cache bounded at zero seconds sees the revocation at once', async () => {
    const token = await clientToken();
    const cached = gate();
    const uncached = gate({ cacheMaxAgeSeconds: 0 });
    expect((await cached(token)).active).toBe(true);
    expect((await uncached(token)).active).toBe(true);
    await revoke(token);
    expect(await uncached(token)).toEqual({
      active: false,
      reason: expect.stringContaining('says the token is not active'),
    });
    expect((await gate()(token)).active).toBe(false);
    // Within the cache's bound (60 s by default) the revocation is not seen: the documented window.
    expect((await cached(token)).active).toBe(true);
  });

  test('an unknown token is inactive', async () => {
    const outcome = await gate()('not-a-token-the-provider-issued');
    expect(outcome).toMatchObject({ active: false, reason: expect.stringContaining('not active') });
  });

  test('a token issued for another resource is refused, and the reason does not repeat the token', async () => {
    const other = 'https://other.example.com/mcp';
    for (const token of [await userToken('alice', other), await clientToken(other)]) {
      const outcome = await gate()(token);
      expect(outcome).toEqual({
        active: false,
        reason: expect.stringContaining('issued for another resource'),
      });
      expect((outcome as { reason: string }).reason).toContain(other);
      expect((outcome as { reason: string }).reason).not.toContain(token);
    }
  });

  test('an answer from another issuer than the one configured is refused', async () => {
    const introspect = gate({ endpoint: `${issuer}/token/introspection`, issuer: 'https://id.example.com' });
    const outcome = await introspect(await userToken('alice'));
    expect(outcome).toEqual({
      active: false,
      reason: `the token was issued by "${issuer}", not by https://id.example.com`,
    });
  });

  test('a token past its exp by this host’s clock is refused, though the provider still calls it active', async () => {
    const token = await userToken('alice');
    const later = gate({ clock: () => Date.now() + 24 * 3_600_000 });
    expect(await later(token)).toEqual({
      active: false,
      reason: expect.stringMatching(/^the token expired at \d{4}-/),
    });
    expect((await gate()(token)).active).toBe(true);
  });

  test('wrong client credentials are an HTTP 401 that names what to check', async () => {
    const token = await userToken('alice');
    for (const credentials of [{ clientSecret: 'wrong' }, { clientId: 'nobody' }]) {
      const outcome = await gate(credentials)(token);
      expect(outcome).toEqual({
        active: false,
        reason: expect.stringMatching(/answered HTTP 401 \(invalid_client\): check the client id and secret/),
      });
    }
  });

  test('a provider that does not answer in time is inactive with the timeout', async () => {
    const held: IncomingMessage[] = [];
    const silent = createServer((request) => held.push(request));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const outcome = await gate({ endpoint: `http://127.0.0.1:${port}/introspect`, timeoutMs: 200 })(
        'token',
      );
      expect(outcome).toEqual({
        active: false,
        reason: expect.stringContaining('did not answer within 200 ms'),
      });
      expect(held).toHaveLength(1);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('a provider that is down: inactive, through a known endpoint and through discovery', async () => {
    const token = await userToken('alice');
    const known = gate({ endpoint: `${issuer}/token/introspection`, cacheMaxAgeSeconds: 0 });
    expect((await known(token)).active).toBe(true);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    expect(await known(token)).toEqual({
      active: false,
      reason: expect.stringMatching(/token\/introspection could not be reached \(ECONNREFUSED\)$/),
    });
    const discovering = gate();
    expect(await discovering(token)).toEqual({
      active: false,
      reason: expect.stringMatching(/^could not find the introspection endpoint: .*could not be reached/),
    });
  });
});

describe('options that cannot work are refused when the introspector is made', () => {
  test.each<[Partial<IntrospectionOptions>, RegExp]>([
    [{ issuer: undefined }, /give the introspection endpoint, or the issuer/],
    [
      { endpoint: 'http://id.example.com/introspect' },
      /endpoint is "http:\/\/id.example.com\/introspect"; give an https:\/\/ URL/,
    ],
    [{ issuer: 'not a url' }, /issuer is "not a url"/],
    [{ clientSecret: '' }, /clientSecret is missing/],
    [{ audience: [] }, /audience is \[\]; give this server's resource URI/],
    [{ timeoutMs: 0 }, /timeoutMs is 0; give a whole number of at least 1/],
    [{ cacheMaxEntries: 1.5 }, /cacheMaxEntries is 1.5/],
  ])('%o', (options, message) => {
    const made = () =>
      introspector({
        issuer: 'https://id.example.com',
        clientId: 'c',
        clientSecret: 's',
        audience: 'https://r',
        ...options,
      });
    expect(made).toThrow(IntrospectionOptionsError);
    expect(made).toThrow(message);
  });
});

describe('what an answer grants', () => {
  const expected: IntrospectionExpectations = {
    issuer: 'https://id.example.com',
    issuerRequired: true,
    audiences: ['https://tools.example.com/mcp'],
    groupsClaim: 'https://example.com/groups',
    rolesClaim: 'realm_access.roles',
    now: Date.UTC(2027, 0, 1),
  };
  const now = expected.now / 1000;
  const base = { active: true, sub: 'alice', aud: 'https://tools.example.com/mcp', exp: now + 600 };

  test.each<[string, unknown, RegExp]>([
    ['a list', [base], /not a JSON object/],
    ['active as a string', { ...base, active: 'true' }, /not active/],
    [
      'a refresh token',
      { ...base, token_type: 'refresh_token' },
      /of type "refresh_token", not a bearer access token/,
    ],
    ['a key-bound token', { ...base, cnf: { jkt: 'x' } }, /bound to a key/],
    ['no audience', { ...base, aud: undefined }, /audience is null/],
    [
      'an audience list without this server',
      { ...base, aud: ['https://a', 'https://b'] },
      /another resource/,
    ],
    ['exp as text', { ...base, exp: '1893456000' }, /exp is "1893456000", not a time in seconds/],
    ['expired beyond the leeway', { ...base, exp: now - 31 }, /expired at 2026-12-31T23:59:29/],
    ['not yet valid beyond the leeway', { ...base, nbf: now + 31 }, /not valid before 2027-01-01T00:00:31/],
    ['neither subject nor client', { ...base, sub: '' }, /names neither a subject/],
  ])('%s is refused', (_name, answer, reason) => {
    expect(judgeIntrospection(answer, expected)).toEqual({
      active: false,
      reason: expect.stringMatching(reason),
    });
  });

  test('within the leeway, with claims at a namespaced name and a dotted path', () => {
    const outcome = judgeIntrospection(
      {
        ...base,
        exp: now - 29,
        nbf: now + 29,
        aud: ['https://a', 'https://tools.example.com/mcp'],
        token_type: 'Bearer',
        client_id: 'agent',
        scope: 'tools  write',
        'https://example.com/groups': ['leads', 7, ''],
        realm_access: { roles: 'approver' },
      },
      expected,
    );
    expect(outcome).toEqual({
      active: true,
      principal: {
        subject: 'alice',
        issuer: 'https://id.example.com',
        clientId: 'agent',
        groups: ['leads'],
        roles: ['approver'],
        scopes: ['tools', 'write'],
      },
      expiresAt: now - 29,
      scopes: ['tools', 'write'],
    });
    expect(Object.isFrozen(outcome)).toBe(true);
  });
});
