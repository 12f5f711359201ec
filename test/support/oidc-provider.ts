import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportPKCS8, generateKeyPair, type JWK } from 'jose';
// @ts-expect-error oidc-provider 8 ships no type declarations; the part used here is typed below.
import OidcProvider, { errors as oidcErrors } from 'oidc-provider';

/**
 * panva's oidc-provider (8.x: 9.x needs Node 22), in process on a loopback port: a confidential client
 * for client credentials, a public client for the authorization code with PKCE, two users with groups,
 * resource indicators, and JWT access tokens for any resource the test names. The dev login and
 * consent pages are on; `signIn` drives them over HTTP like a browser would. The studio signs in as
 * a native (RFC 8252) client, public or confidential, whose loopback redirect URI takes any port.
 */
export interface TestProvider {
  readonly issuer: string;
  /** Requests to the JWKS endpoint so far. */
  readonly jwksFetches: () => number;
  /** Requests to the token endpoint so far (a code redeemed, a refresh, client credentials). */
  readonly tokenRequests: () => number;
  /**
   * Revokes a token at the revocation endpoint (RFC 7009) as the public client, as a person signing
   * out at the provider does; a refresh token ends its grant.
   */
  revoke(token: string, hint?: 'access_token' | 'refresh_token'): Promise<void>;
  /** The key of {@link KEY_CLIENT} (private_key_jwt), made at start: a PKCS#8 PEM and its algorithm. */
  readonly clientKey: { readonly privateKey: string; readonly algorithm: 'ES256' };
  /** A client credentials token of the confidential client, for `resource`, with `scope`. */
  clientCredentialsToken(resource: string, scope: string): Promise<string>;
  /** Starts signing with a new key; the old one stays published, as a provider rotates. */
  rotateKey(): Promise<void>;
  /** The private key that signs now, and its kid (for tokens a test forges). */
  signingKey(): { readonly privateJwk: JWK; readonly publicJwk: JWK };
  close(): Promise<void>;
}

export const CONFIDENTIAL_CLIENT = { id: 'ci-bot', secret: 'ci-bot-secret-0123456789abcdef' };
/** A confidential client for client credentials that proves itself with a key (private_key_jwt). */
export const KEY_CLIENT = { id: 'ci-bot-key' };
export const PUBLIC_CLIENT = { id: 'desk-app', redirect: 'http://127.0.0.1/callback' };
/** The studio's clients: on 127.0.0.1, any port, path `/auth/callback`. */
export const STUDIO_CLIENT = { id: 'studio', redirect: 'http://127.0.0.1/auth/callback' };
export const STUDIO_CONFIDENTIAL_CLIENT = {
  id: 'studio-confidential',
  secret: 'studio-secret-0123456789abcdef',
  redirect: 'http://127.0.0.1/auth/callback',
};
/**
 * A team gateway's client: public, signing people in to upstream servers through the gateway's
 * `/mcp/signin/callback`, on 127.0.0.1 at any port.
 */
export const TEAM_GATEWAY_CLIENT = { id: 'team-gateway', redirect: 'http://127.0.0.1/mcp/signin/callback' };
/** The users the login page accepts, and the groups their tokens carry. */
export const USERS: Readonly<Record<string, readonly string[]>> = {
  alice: ['developers'],
  bob: ['leads', 'developers'],
};
export const SCOPES = ['tools:read', 'tools:write', 'tools:admin'];

/** The part of oidc-provider's API the test provider uses. */
interface Provider {
  proxy: boolean;
  callback(): (
    request: import('node:http').IncomingMessage,
    response: import('node:http').ServerResponse,
  ) => void;
}
const Provider = OidcProvider as new (issuer: string, configuration: Record<string, unknown>) => Provider;
const InvalidTarget = (oidcErrors as { InvalidTarget: new (detail: string) => Error }).InvalidTarget;

interface Key {
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

async function newKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { privateJwk, publicJwk };
}

/** Options of {@link startProvider}. */
export interface TestProviderOptions {
  /** Lifetime of the user access tokens, in seconds (default 300). */
  readonly accessTokenTtl?: number;
  /** The only resources tokens are issued for; another is refused with `invalid_target`. Default: any. */
  readonly resources?: readonly string[];
}

function configured(
  issuer: string,
  keys: readonly Key[],
  options: TestProviderOptions,
  clientJwk: JWK,
): Provider {
  const accessTokenTTL = options.accessTokenTtl ?? 300;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: KEY_CLIENT.id,
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        jwks: { keys: [clientJwk] },
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: SCOPES.join(' '),
      },
      {
        client_id: CONFIDENTIAL_CLIENT.id,
        client_secret: CONFIDENTIAL_CLIENT.secret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: SCOPES.join(' '),
      },
      {
        client_id: PUBLIC_CLIENT.id,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [PUBLIC_CLIENT.redirect],
        application_type: 'native',
      },
      {
        client_id: TEAM_GATEWAY_CLIENT.id,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [TEAM_GATEWAY_CLIENT.redirect],
        application_type: 'native',
      },
      {
        client_id: STUDIO_CLIENT.id,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: [STUDIO_CLIENT.redirect],
        application_type: 'native',
      },
      {
        client_id: STUDIO_CONFIDENTIAL_CLIENT.id,
        client_secret: STUDIO_CONFIDENTIAL_CLIENT.secret,
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: [STUDIO_CONFIDENTIAL_CLIENT.redirect],
        application_type: 'native',
      },
    ],
    jwks: { keys: keys.map((key) => key.privateJwk) as never },
    scopes: ['openid', 'offline_access', ...SCOPES],
    claims: { openid: ['sub'], groups: ['groups'] },
    pkce: { required: () => true },
    cookies: { keys: ['oidc-test-cookie-key-0123456789'] },
    ttl: { AccessToken: accessTokenTTL, ClientCredentials: 300, Interaction: 600, Session: 600, Grant: 600 },
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf?.[0],
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (options.resources && !options.resources.includes(resource)) {
            throw new InvalidTarget(`${resource} is not a resource this server issues tokens for`);
          }
          return {
            scope: SCOPES.join(' '),
            audience: resource,
            accessTokenTTL,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    async findAccount(_ctx: unknown, id: string) {
      if (!(id in USERS)) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, groups: [...USERS[id]!] }) };
    },
    async extraTokenClaims(_ctx: unknown, token: unknown) {
      const account = (token as { accountId?: string }).accountId;
      return account && account in USERS ? { groups: [...USERS[account]!] } : { groups: ['robots'] };
    },
  });
  provider.proxy = false;
  return provider;
}

/** Starts the provider on a free loopback port. */
export async function startProvider(options: TestProviderOptions = {}): Promise<TestProvider> {
  let fetches = 0;
  let tokenRequests = 0;
  let current: Provider | undefined;
  const http: Server = createServer((request, response) => {
    if (request.url?.startsWith('/jwks')) fetches++;
    if (request.url === '/token') tokenRequests++;
    current!.callback()(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  let keys = [await newKey('key-1')];
  const client = await generateKeyPair('ES256', { extractable: true });
  const clientJwk = { ...(await exportJWK(client.publicKey)), alg: 'ES256', use: 'sig' };
  const clientKey = { privateKey: await exportPKCS8(client.privateKey), algorithm: 'ES256' as const };
  current = configured(issuer, keys, options, clientJwk);
  let generation = 1;

  return {
    issuer,
    clientKey,
    jwksFetches: () => fetches,
    tokenRequests: () => tokenRequests,
    async revoke(token, hint) {
      const response = await fetch(`${issuer}/token/revocation`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token,
          client_id: PUBLIC_CLIENT.id,
          ...(hint ? { token_type_hint: hint } : {}),
        }),
      });
      if (!response.ok) throw new Error(`revocation answered ${response.status}: ${await response.text()}`);
    },
    async clientCredentialsToken(resource, scope) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${CONFIDENTIAL_CLIENT.id}:${CONFIDENTIAL_CLIENT.secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
      });
      const body = (await response.json()) as { access_token?: string; error_description?: string };
      if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async rotateKey() {
      generation++;
      keys = [await newKey(`key-${generation}`), ...keys];
      current = configured(issuer, keys, options, clientJwk);
    },
    signingKey: () => keys[0]!,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * Follows an authorization URL as a browser: the dev login page (as `user`), the consent page, and
 * the redirect back to `redirect` (default the public client's); answers the redirect's query
 * (`code`, `state`, `iss`).
 */
export async function signIn(
  authorizationUrl: URL,
  user: string,
  redirect: string = PUBLIC_CLIENT.redirect,
): Promise<URLSearchParams> {
  const cookies = new Map<string, string>();
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  };
  let url = authorizationUrl.href;
  let submitted = 0;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(redirect)) return new URL(url).searchParams;
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: cookieHeader() } });
    keep(response);
    const location = response.headers.get('location');
    if (location) {
      url = new URL(location, url).href;
      continue;
    }
    // An interaction page: log in, then consent.
    const page = await response.text();
    const interaction = /\/interaction\/[^/"?]+/.exec(url)?.[0];
    if (!interaction || submitted > 2) throw new Error(`unexpected page at ${url}: ${page.slice(0, 300)}`);
    const prompt = page.includes('name="login"') ? 'login' : 'consent';
    const form = new URLSearchParams(
      prompt === 'login' ? { prompt, login: user, password: 'any' } : { prompt },
    );
    const posted = await fetch(new URL(interaction, url), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    keep(posted);
    submitted++;
    const next = posted.headers.get('location');
    if (!next)
      throw new Error(
        `the ${prompt} form was answered ${posted.status}: ${(await posted.text()).slice(0, 300)}`,
      );
    url = new URL(next, url).href;
  }
  throw new Error('too many redirects signing in');
}

export { freePort } from './free-port.js';

/** A user's access token for `resource`: the authorization code flow with PKCE, the login driven by `signIn`. */
export async function userToken(
  provider: TestProvider,
  user: string,
  resource: string,
  scope = 'openid tools:read tools:write',
): Promise<string> {
  const discovery = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as {
    authorization_endpoint: string;
    token_endpoint: string;
  };
  const verifier = randomBytes(32).toString('base64url');
  const authorization = new URL(discovery.authorization_endpoint);
  for (const [name, value] of Object.entries({
    client_id: PUBLIC_CLIENT.id,
    response_type: 'code',
    redirect_uri: PUBLIC_CLIENT.redirect,
    scope,
    resource,
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  })) {
    authorization.searchParams.set(name, value);
  }
  const answer = await signIn(authorization, user);
  const response = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: answer.get('code') ?? '',
      redirect_uri: PUBLIC_CLIENT.redirect,
      client_id: PUBLIC_CLIENT.id,
      code_verifier: verifier,
      resource,
    }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no token for ${user}: ${JSON.stringify(body)}`);
  return body.access_token;
}
