/**
 * The authentication configuration of an HTTP surface: which issuers are trusted (and with which signing
 * algorithms), the resource this server is, the scopes it requires, the claims that carry groups and
 * roles. Given as a JSON file (`--auth <file>`) or as the same object to the library.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { typoOf } from '../util/closest.js';

/** The asymmetric JWS algorithms an issuer may use (the default allow-list). */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

/** The default clock leeway for `exp` and `nbf`, in seconds. */
export const DEFAULT_LEEWAY_SECONDS = 30;
/** The largest leeway accepted, in seconds. */
export const MAX_LEEWAY_SECONDS = 300;

/** A trusted authorization server. */
export interface AuthIssuerConfig {
  /** Its issuer identifier, exactly as its tokens' `iss` and its metadata's `issuer` spell it. */
  readonly issuer: string;
  /** The JWS algorithms accepted from it (default: every asymmetric one; never `none`, never `HS*`). */
  readonly algorithms?: readonly string[];
  /**
   * Its JWKS URL, when discovery (RFC 8414, then OpenID Connect) should not be used to find it.
   */
  readonly jwksUri?: string;
  /**
   * After fetching its JWKS, how long until an unknown `kid` may fetch it again, in seconds (default 5):
   * the rate limit on refetches a stream of made-up key ids could otherwise cause. A token of a key
   * published meanwhile waits for that fetch, so this is also the longest such a token waits.
   */
  readonly jwksCooldownSeconds?: number;
}

/** The scopes a caller's token must carry. */
export interface AuthScopesConfig {
  /** Required on every request. */
  readonly required?: readonly string[];
  /** Required, besides `required`, to call the named tools. */
  readonly tools?: { readonly [tool: string]: readonly string[] };
  /** Required, besides `required`, to call a tool of the category (`read`, `write`, `destructive`, …). */
  readonly categories?: { readonly [category: string]: readonly string[] };
  /** `scopes_supported` of the protected resource metadata (default: every scope named above). */
  readonly supported?: readonly string[];
}

/** Which claims carry the caller's groups and roles (dotted paths into the token's payload). */
export interface AuthClaimsConfig {
  /** Default `groups`. */
  readonly groups?: string;
  /** Default `roles`. */
  readonly roles?: string;
}

/** How opaque (non-JWT) tokens are checked: RFC 7662 introspection at the authorization server. */
export interface AuthIntrospectionConfig {
  /** The introspection endpoint (default: the `introspection_endpoint` of the first issuer's metadata). */
  readonly endpoint?: string;
  /** This server's client id at the authorization server. */
  readonly clientId: string;
  /** The environment variable holding the client secret (the secret is never in the file). */
  readonly clientSecretEnv: string;
  /** The longest an active answer is reused, in seconds (default 60). */
  readonly cacheMaxAgeSeconds?: number;
}

/** The authentication configuration (the `--auth` file's content). */
export interface AuthConfig {
  /**
   * The canonical URI of this MCP server (RFC 8707): what clients name as `resource`, and what every
   * token's `aud` must contain. E.g. `https://mcp.example.com/mcp`.
   */
  readonly resource: string;
  /** The trusted authorization servers: an issuer identifier, or its settings. */
  readonly issuers: readonly (string | AuthIssuerConfig)[];
  readonly scopes?: AuthScopesConfig;
  readonly claims?: AuthClaimsConfig;
  /** Clock leeway for `exp` and `nbf`, in seconds (default 30, at most 300). */
  readonly leewaySeconds?: number;
  /** Most verified tokens kept until they expire (default 10,000). */
  readonly cacheSize?: number;
  /** A file of static API keys (`toolpact auth`); a relative path is read from the auth file's folder. */
  readonly apiKeys?: string;
  /** Introspection of opaque tokens. */
  readonly introspection?: AuthIntrospectionConfig;
  /** The studio as an OpenID Connect client: how `toolpact studio --auth` signs people in. */
  readonly studio?: AuthStudioConfig;
}

/**
 * The studio as an OpenID Connect client of one of the trusted issuers: it signs a person in with the
 * authorization code flow and PKCE, and their principal decides approvals.
 */
export interface AuthStudioConfig {
  /** The issuer to sign in with: one of `issuers` (default: the first). */
  readonly issuer?: string;
  /** The studio's client id at that issuer. */
  readonly clientId: string;
  /**
   * The environment variable holding the client secret, for a confidential client (the secret is never
   * in the file). Without it the studio is a public client: PKCE only.
   */
  readonly clientSecretEnv?: string;
  /** The scopes asked for at sign-in (default `["openid"]`; `openid` is required). */
  readonly scopes?: readonly string[];
  /**
   * The studio's address as browsers reach it, e.g. `https://studio.example.com` (default: the address
   * it listens on). The redirect URI to register at the provider is this followed by `/auth/callback`.
   */
  readonly url?: string;
  /** The longest a sign-in lasts, in seconds (default 28,800: 8 hours); it also ends with the ID token. */
  readonly sessionMaxAgeSeconds?: number;
}

/** The studio's client settings, checked, defaults filled in. */
export interface ResolvedStudioConfig {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecretEnv: string | undefined;
  readonly scopes: readonly string[];
  /** The origin browsers reach the studio at (`https://studio.example.com`), when given. */
  readonly url: string | undefined;
  readonly sessionMaxAgeSeconds: number;
}

/** An issuer, its defaults filled in. */
export interface ResolvedIssuer {
  readonly issuer: string;
  readonly algorithms: readonly string[];
  readonly jwksUri: string | undefined;
  readonly jwksCooldownSeconds: number;
}

/** The configuration checked, its defaults filled in. */
export interface ResolvedAuthConfig {
  readonly resource: string;
  readonly issuers: readonly ResolvedIssuer[];
  readonly scopes: {
    readonly required: readonly string[];
    readonly tools: ReadonlyMap<string, readonly string[]>;
    readonly categories: ReadonlyMap<string, readonly string[]>;
    readonly supported: readonly string[];
  };
  readonly claims: { readonly groups: readonly string[]; readonly roles: readonly string[] };
  readonly leewaySeconds: number;
  readonly cacheSize: number;
  /** Absolute, when given. */
  readonly apiKeys: string | undefined;
  readonly introspection: AuthIntrospectionConfig | undefined;
  /** The studio's sign-in client, when the file has a `studio` section. */
  readonly studio: ResolvedStudioConfig | undefined;
}

/**
 * An authentication configuration that cannot be used. The message names where (the file and the JSON
 * path), what was received and what to give instead.
 */
export class AuthConfigError extends Error {
  override readonly name = 'AuthConfigError';
  constructor(
    /** The JSON path of the value at fault, e.g. `$.issuers[0].algorithms`. */
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const TOP_KEYS = [
  'resource',
  'issuers',
  'scopes',
  'claims',
  'leewaySeconds',
  'cacheSize',
  'apiKeys',
  'introspection',
  'studio',
  '$schema',
];
const ISSUER_KEYS = ['issuer', 'algorithms', 'jwksUri', 'jwksCooldownSeconds'];
const SCOPE_KEYS = ['required', 'tools', 'categories', 'supported'];
const CLAIM_KEYS = ['groups', 'roles'];
const INTROSPECTION_KEYS = ['endpoint', 'clientId', 'clientSecretEnv', 'cacheMaxAgeSeconds'];
const STUDIO_KEYS = ['issuer', 'clientId', 'clientSecretEnv', 'scopes', 'url', 'sessionMaxAgeSeconds'];
/** The path the studio answers the provider's redirect at, under its `url`. */
export const STUDIO_CALLBACK_PATH = '/auth/callback';

/**
 * Reads and checks an `--auth` file.
 *
 * @example
 * const config = loadAuthConfig('auth.json');
 */
export function loadAuthConfig(file: string): ResolvedAuthConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new AuthConfigError(
      '$',
      `Cannot read the auth file ${file} (${reason}); give the path of a JSON file.`,
      { cause: error },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (error) {
    throw new AuthConfigError(
      '$',
      `The auth file ${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}. Fix its syntax.`,
      { cause: error },
    );
  }
  return resolveAuthConfig(value, { source: file, base: dirname(resolve(file)) });
}

/**
 * Checks an authentication configuration and fills in its defaults. `source` names it in messages
 * (default `auth`); a relative `apiKeys` path is read from `base` (default the working folder).
 *
 * @example
 * resolveAuthConfig({ resource: 'https://mcp.example.com/mcp', issuers: ['https://id.example.com'] });
 */
export function resolveAuthConfig(
  value: unknown,
  options: { readonly source?: string; readonly base?: string } = {},
): ResolvedAuthConfig {
  const source = options.source ?? 'auth';
  const fail = (path: string, message: string): never => {
    throw new AuthConfigError(path, `${source}: ${path} ${message}`);
  };
  const top = objectAt(value, '$', fail);
  knownKeys(top, TOP_KEYS, '$', fail);
  const resource = resourceUri(top.resource, fail);
  if (!Array.isArray(top.issuers) || top.issuers.length === 0) {
    fail(
      '$.issuers',
      `is ${describe(top.issuers)}; give a list of at least one issuer, e.g. ["https://id.example.com"].`,
    );
  }
  const issuers = (top.issuers as unknown[]).map((entry, index) =>
    issuerOf(entry, `$.issuers[${index}]`, fail),
  );
  const seen = new Set<string>();
  for (const [index, each] of issuers.entries()) {
    if (seen.has(each.issuer))
      fail(`$.issuers[${index}]`, `repeats the issuer ${each.issuer}; name each once.`);
    seen.add(each.issuer);
  }
  const scopesValue = top.scopes === undefined ? {} : objectAt(top.scopes, '$.scopes', fail);
  knownKeys(scopesValue, SCOPE_KEYS, '$.scopes', fail);
  const required = scopeList(scopesValue.required, '$.scopes.required', fail) ?? [];
  const tools = scopeMap(scopesValue.tools, '$.scopes.tools', fail);
  const categories = scopeMap(scopesValue.categories, '$.scopes.categories', fail);
  const named = new Set([...required, ...[...tools.values()].flat(), ...[...categories.values()].flat()]);
  const supported = scopeList(scopesValue.supported, '$.scopes.supported', fail) ?? [...named].sort();
  const claimsValue = top.claims === undefined ? {} : objectAt(top.claims, '$.claims', fail);
  knownKeys(claimsValue, CLAIM_KEYS, '$.claims', fail);
  const claims = {
    groups: claimPath(claimsValue.groups, 'groups', '$.claims.groups', fail),
    roles: claimPath(claimsValue.roles, 'roles', '$.claims.roles', fail),
  };
  const leewaySeconds = wholeNumber(
    top.leewaySeconds,
    DEFAULT_LEEWAY_SECONDS,
    0,
    MAX_LEEWAY_SECONDS,
    '$.leewaySeconds',
    fail,
  );
  const cacheSize = wholeNumber(top.cacheSize, 10_000, 0, 10_000_000, '$.cacheSize', fail);
  let apiKeys: string | undefined;
  if (top.apiKeys !== undefined) {
    if (typeof top.apiKeys !== 'string' || top.apiKeys === '') {
      fail('$.apiKeys', `is ${describe(top.apiKeys)}; give the path of the API keys file (toolpact auth).`);
    }
    apiKeys = resolve(options.base ?? process.cwd(), top.apiKeys as string);
  }
  const introspection =
    top.introspection === undefined ? undefined : introspectionOf(top.introspection, fail);
  const studio = top.studio === undefined ? undefined : studioOf(top.studio, issuers, fail);
  return Object.freeze({
    resource,
    issuers: Object.freeze(issuers),
    scopes: Object.freeze({ required, tools, categories, supported }),
    claims: Object.freeze(claims),
    leewaySeconds,
    cacheSize,
    apiKeys,
    introspection,
    studio,
  });
}

/**
 * The canonical form of a resource URI for comparison: scheme and host lowercased, the default port
 * dropped, no trailing slash on an empty path.
 *
 * @example
 * canonicalResource('HTTPS://MCP.Example.com:443/'); // 'https://mcp.example.com'
 */
export function canonicalResource(uri: string): string {
  const url = new URL(uri);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.protocol}//${url.host}${path}${url.search}`;
}

type Fail = (path: string, message: string) => never;

function resourceUri(value: unknown, fail: Fail): string {
  const example = 'e.g. "https://mcp.example.com/mcp"';
  if (typeof value !== 'string' || value === '') {
    return fail('$.resource', `is ${describe(value)}; give this server's canonical URI, ${example}.`);
  }
  const url = parseUrl(value);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    return fail('$.resource', `is ${JSON.stringify(value)}, not an http(s) URI; give ${example}.`);
  }
  if (url.hash !== '' || value.includes('#')) {
    return fail(
      '$.resource',
      `is ${JSON.stringify(value)}; a resource URI has no fragment (RFC 8707). Drop the "#…".`,
    );
  }
  if (url.protocol === 'http:' && !isLoopbackName(url.hostname)) {
    return fail(
      '$.resource',
      `is ${JSON.stringify(value)}: plain http on a host other than loopback. Give the https URI clients reach.`,
    );
  }
  return canonicalResource(value);
}

function issuerOf(entry: unknown, path: string, fail: Fail): ResolvedIssuer {
  const record: Record<string, unknown> =
    typeof entry === 'string' ? { issuer: entry } : objectAt(entry, path, fail);
  knownKeys(record, ISSUER_KEYS, path, fail);
  const issuer = record.issuer;
  const issuerPath = typeof entry === 'string' ? path : `${path}.issuer`;
  if (typeof issuer !== 'string' || issuer === '') {
    return fail(
      issuerPath,
      `is ${describe(issuer)}; give the issuer identifier, e.g. "https://id.example.com".`,
    );
  }
  const url = parseUrl(issuer);
  if (url?.search !== '' || url.hash !== '') {
    return fail(
      issuerPath,
      `is ${JSON.stringify(issuer)}; an issuer is an https URL with no query or fragment.`,
    );
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackName(url.hostname))) {
    return fail(
      issuerPath,
      `is ${JSON.stringify(issuer)}; an issuer must use https (plain http only on loopback).`,
    );
  }
  let algorithms: readonly string[] = ASYMMETRIC_ALGORITHMS;
  if (record.algorithms !== undefined) {
    const list = record.algorithms;
    if (!Array.isArray(list) || list.length === 0 || !list.every((each) => typeof each === 'string')) {
      return fail(`${path}.algorithms`, `is ${describe(list)}; give a list such as ["RS256", "ES256"].`);
    }
    for (const algorithm of list as string[]) {
      if (ASYMMETRIC_ALGORITHMS.includes(algorithm)) continue;
      const why =
        algorithm.toLowerCase() === 'none'
          ? 'unsigned tokens are never accepted'
          : /^HS/i.test(algorithm)
            ? 'a symmetric algorithm would let anyone holding the shared secret (or the public key, misused as one) mint tokens'
            : 'it is not a JWS signature algorithm toolpact accepts';
      fail(
        `${path}.algorithms`,
        `has ${JSON.stringify(algorithm)}: ${why}. Allowed: ${ASYMMETRIC_ALGORITHMS.join(', ')}.`,
      );
    }
    algorithms = Object.freeze([...new Set(list as string[])]);
  }
  let jwksUri: string | undefined;
  if (record.jwksUri !== undefined) {
    const jwks = typeof record.jwksUri === 'string' ? parseUrl(record.jwksUri) : undefined;
    if (
      !jwks ||
      (jwks.protocol !== 'https:' && !(jwks.protocol === 'http:' && isLoopbackName(jwks.hostname)))
    ) {
      return fail(
        `${path}.jwksUri`,
        `is ${describe(record.jwksUri)}; give the https URL of the issuer's JWKS.`,
      );
    }
    jwksUri = jwks.href;
  }
  const jwksCooldownSeconds = wholeNumber(
    record.jwksCooldownSeconds,
    5,
    0,
    3600,
    `${path}.jwksCooldownSeconds`,
    fail,
  );
  return Object.freeze({ issuer, algorithms, jwksUri, jwksCooldownSeconds });
}

function introspectionOf(value: unknown, fail: Fail): AuthIntrospectionConfig {
  const record = objectAt(value, '$.introspection', fail);
  knownKeys(record, INTROSPECTION_KEYS, '$.introspection', fail);
  let endpoint: string | undefined;
  if (record.endpoint !== undefined) {
    const url = typeof record.endpoint === 'string' ? parseUrl(record.endpoint) : undefined;
    if (!url || (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackName(url.hostname)))) {
      return fail(
        '$.introspection.endpoint',
        `is ${describe(record.endpoint)}; give the https URL of the introspection endpoint.`,
      );
    }
    endpoint = url.href;
  }
  if (typeof record.clientId !== 'string' || record.clientId === '') {
    return fail('$.introspection.clientId', `is ${describe(record.clientId)}; give this server's client id.`);
  }
  if (
    typeof record.clientSecretEnv !== 'string' ||
    !/^[A-Za-z_][A-Za-z0-9_]*$/.test(record.clientSecretEnv)
  ) {
    return fail(
      '$.introspection.clientSecretEnv',
      `is ${describe(record.clientSecretEnv)}; give the name of the environment variable holding the client secret.`,
    );
  }
  const cacheMaxAgeSeconds = wholeNumber(
    record.cacheMaxAgeSeconds,
    60,
    0,
    86_400,
    '$.introspection.cacheMaxAgeSeconds',
    fail,
  );
  return Object.freeze({
    ...(endpoint ? { endpoint } : {}),
    clientId: record.clientId,
    clientSecretEnv: record.clientSecretEnv,
    cacheMaxAgeSeconds,
  });
}

function studioOf(value: unknown, issuers: readonly ResolvedIssuer[], fail: Fail): ResolvedStudioConfig {
  const record = objectAt(value, '$.studio', fail);
  knownKeys(record, STUDIO_KEYS, '$.studio', fail);
  const trusted = issuers.map((each) => each.issuer);
  let issuer = trusted[0]!;
  if (record.issuer !== undefined) {
    if (typeof record.issuer !== 'string' || !trusted.includes(record.issuer)) {
      return fail(
        '$.studio.issuer',
        `is ${describe(record.issuer)}; the studio signs people in with one of the trusted issuers: ${trusted.map((each) => JSON.stringify(each)).join(', ')}.`,
      );
    }
    issuer = record.issuer;
  }
  if (typeof record.clientId !== 'string' || record.clientId === '') {
    return fail(
      '$.studio.clientId',
      `is ${describe(record.clientId)}; give the studio's client id at ${issuer} (register a web client whose redirect URI is the studio's address followed by ${STUDIO_CALLBACK_PATH}).`,
    );
  }
  let clientSecretEnv: string | undefined;
  if (record.clientSecretEnv !== undefined) {
    if (
      typeof record.clientSecretEnv !== 'string' ||
      !/^[A-Za-z_][A-Za-z0-9_]*$/.test(record.clientSecretEnv)
    ) {
      return fail(
        '$.studio.clientSecretEnv',
        `is ${describe(record.clientSecretEnv)}; give the name of the environment variable holding the client secret (or leave it out for a public client).`,
      );
    }
    clientSecretEnv = record.clientSecretEnv;
  }
  const scopes = scopeList(record.scopes, '$.studio.scopes', fail) ?? ['openid'];
  if (!scopes.includes('openid')) {
    return fail(
      '$.studio.scopes',
      `is ${describe(record.scopes)}; an OpenID Connect sign-in asks for "openid": add it, e.g. ["openid", "groups"].`,
    );
  }
  let url: string | undefined;
  if (record.url !== undefined) {
    const parsed = typeof record.url === 'string' ? parseUrl(record.url) : undefined;
    const example = 'e.g. "https://studio.example.com"';
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
      return fail(
        '$.studio.url',
        `is ${describe(record.url)}; give the studio's address as browsers reach it, ${example}.`,
      );
    }
    if ((parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search !== '' || parsed.hash !== '') {
      return fail(
        '$.studio.url',
        `is ${JSON.stringify(record.url)}; give an origin only, ${example}: the studio is served at its root, and its redirect URI is that origin followed by ${STUDIO_CALLBACK_PATH}.`,
      );
    }
    if (parsed.username !== '' || parsed.password !== '') {
      return fail(
        '$.studio.url',
        `is ${JSON.stringify(record.url)}; an address with a user or password in it cannot be the studio's. Give ${example}.`,
      );
    }
    url = parsed.origin;
  }
  const sessionMaxAgeSeconds = wholeNumber(
    record.sessionMaxAgeSeconds,
    28_800,
    60,
    604_800,
    '$.studio.sessionMaxAgeSeconds',
    fail,
  );
  return Object.freeze({
    issuer,
    clientId: record.clientId,
    clientSecretEnv,
    scopes: Object.freeze([...scopes]),
    url,
    sessionMaxAgeSeconds,
  });
}

function scopeList(value: unknown, path: string, fail: Fail): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const ok =
    Array.isArray(value) &&
    value.every((each) => typeof each === 'string' && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(each));
  if (!ok) {
    return fail(
      path,
      `is ${describe(value)}; give a list of scope names (no spaces or quotes), e.g. ["tools:read"].`,
    );
  }
  return Object.freeze([...new Set(value as string[])]);
}

function scopeMap(value: unknown, path: string, fail: Fail): ReadonlyMap<string, readonly string[]> {
  const map = new Map<string, readonly string[]>();
  if (value === undefined) return map;
  const record = objectAt(value, path, fail);
  for (const [key, list] of Object.entries(record)) {
    map.set(key, scopeList(list, `${path}.${key}`, fail) ?? []);
  }
  return map;
}

function claimPath(value: unknown, fallback: string, path: string, fail: Fail): readonly string[] {
  if (value === undefined) return Object.freeze([fallback]);
  if (typeof value !== 'string' || value === '' || value.split('.').some((part) => part === '')) {
    return fail(
      path,
      `is ${describe(value)}; give a claim name or a dotted path, e.g. "realm_access.roles".`,
    );
  }
  return Object.freeze(value.split('.'));
}

function wholeNumber(
  value: unknown,
  fallback: number,
  min: number,
  max: number,
  path: string,
  fail: Fail,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    return fail(path, `is ${describe(value)}; give a whole number from ${min} to ${max}.`);
  }
  return value;
}

function objectAt(value: unknown, path: string, fail: Fail): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail(path, `is ${describe(value)}; give an object.`);
  }
  return value as Record<string, unknown>;
}

function knownKeys(
  record: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  fail: Fail,
): void {
  for (const key of Object.keys(record)) {
    if (allowed.includes(key)) continue;
    const near = typoOf(key, allowed);
    fail(
      `${path}.${key}`,
      `is not a known key${near ? `; did you mean "${near}"?` : '.'} Known keys: ${allowed.filter((each) => each !== '$schema').join(', ')}.`,
    );
  }
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function isLoopbackName(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
