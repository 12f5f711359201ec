/**
 * toolpact as an OAuth resource server: an `Authorization` header in, a principal or a refusal out
 * (status, `WWW-Authenticate`, message). Access tokens are JWTs verified with jose against the trusted
 * issuers' keys, found through RFC 8414 or OpenID Connect discovery; verified tokens are kept until
 * they expire, so a caller's next request costs a map lookup.
 */
import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWKSCacheInput,
  type JWSHeaderParameters,
  type JWTPayload,
  errors as joseErrors,
  jwksCache,
  jwtVerify,
  type RemoteJWKSet,
} from 'jose';
import { PRINCIPAL_EXTRA_KEY, type Principal } from '../dispatch/principal.js';
import { type ApiKeyChecker, loadApiKeys } from './api-keys.js';
import {
  type AuthConfig,
  AuthConfigError,
  canonicalResource,
  type ResolvedAuthConfig,
  type ResolvedIssuer,
  resolveAuthConfig,
} from './auth-config.js';
import { principalFromClaims } from './claims-principal.js';
import type { IntrospectionOutcome } from './introspection.js';

/** What a request's authentication gives a transport: the SDK's `authInfo` shape, the token left out. */
export interface VerifiedAuthInfo {
  /** Always empty: the token stops at this server and is never handed on. */
  readonly token: '';
  readonly clientId: string;
  readonly scopes: string[];
  /** Seconds since the epoch. */
  readonly expiresAt?: number;
  readonly resource: URL;
  readonly extra: { readonly [PRINCIPAL_EXTRA_KEY]: Principal };
}

/** A request that may proceed, and who made it. */
export interface AuthAccepted {
  readonly ok: true;
  readonly principal: Principal;
  readonly authInfo: VerifiedAuthInfo;
}

/** A request refused, with what to answer (RFC 6750 §3). */
export interface AuthRefusal {
  readonly ok: false;
  /** 400 (a malformed request), 401 (no token, or a bad one), 403 (a scope missing), 503 (the issuer cannot be reached). */
  readonly status: 400 | 401 | 403 | 503;
  /** The RFC 6750 error code; none when no token was sent. */
  readonly error: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | undefined;
  /** What was wrong, what was received and what to do, for the caller. */
  readonly message: string;
  /** The `WWW-Authenticate` value (absent on 503). */
  readonly wwwAuthenticate: string | undefined;
}

export type AuthOutcome = AuthAccepted | AuthRefusal;

/** Options of {@link createAuthenticator}. */
export interface AuthenticatorOptions {
  /** Static API keys, checked before tokens. */
  readonly apiKeys?: ApiKeyChecker;
  /** Introspection of tokens that are not JWTs (RFC 7662). */
  readonly introspect?: (token: string) => Promise<IntrospectionOutcome>;
  /** The clock, in milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

/** Authenticates the requests of one protected resource. */
export interface Authenticator {
  readonly config: ResolvedAuthConfig;
  /** The URL of the protected resource metadata (path-aware when the resource has a path). */
  readonly metadataUrl: string;
  /** The paths the metadata is served at: the root form, and the path-aware one. */
  readonly metadataPaths: readonly string[];
  /** The protected resource metadata document (RFC 9728 §2). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /**
   * Authenticates a request by its `Authorization` header. `signal`, when given, ends the request's
   * wait for the issuer's keys (a token signed with a key published moments ago waits, at most the
   * JWKS cooldown, for the next fetch): give the request's own, so a client that hangs up stops waiting.
   */
  authenticate(
    authorization: string | undefined,
    options?: { readonly signal?: AbortSignal },
  ): Promise<AuthOutcome>;
  /**
   * The refusal for a call of `tool` (of `category`) by `principal` when a scope it needs is missing,
   * else undefined.
   */
  checkCall(principal: Principal, tool: string, category: string | undefined): AuthRefusal | undefined;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * Makes the authenticator of a configuration (checked here when given as a plain object).
 *
 * @example
 * const auth = createAuthenticator({ resource: 'https://mcp.example.com/mcp', issuers: ['https://id.example.com'] });
 * const outcome = await auth.authenticate(request.headers.authorization);
 * if (!outcome.ok) response.writeHead(outcome.status, { 'WWW-Authenticate': outcome.wwwAuthenticate });
 */
export function createAuthenticator(
  config: AuthConfig | ResolvedAuthConfig,
  options: AuthenticatorOptions = {},
): Authenticator {
  const resolved = isResolved(config) ? config : resolveAuthConfig(config);
  const now = options.now ?? Date.now;
  const resourceUrl = new URL(resolved.resource);
  const resourcePath = resourceUrl.pathname === '/' ? '' : resourceUrl.pathname;
  const metadataUrl = `${resourceUrl.origin}${WELL_KNOWN}${resourcePath}`;
  const metadataPaths = [...new Set([WELL_KNOWN, `${WELL_KNOWN}${resourcePath}`])];
  const metadata = Object.freeze({
    resource: resolved.resource,
    authorization_servers: resolved.issuers.map((each) => each.issuer),
    ...(resolved.scopes.supported.length > 0 ? { scopes_supported: resolved.scopes.supported } : {}),
    bearer_methods_supported: ['header'],
    resource_name: 'toolpact',
  });
  const issuers = new Map(resolved.issuers.map((each) => [each.issuer, new IssuerKeys(each)]));
  const audiences = audienceSpellings(resolved.resource);
  const cache = new Map<string, { readonly accepted: AuthAccepted; readonly until: number }>();
  const required = resolved.scopes.required;

  const challenge = (fields: Record<string, string | undefined>): string => {
    const parts = Object.entries({ ...fields, resource_metadata: metadataUrl })
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([key, value]) => `${key}="${quotable(value)}"`);
    return `Bearer ${parts.join(', ')}`;
  };
  const refuse = (
    status: AuthRefusal['status'],
    error: AuthRefusal['error'],
    message: string,
    scope?: readonly string[],
  ): AuthRefusal => ({
    ok: false,
    status,
    error,
    message,
    wwwAuthenticate:
      status === 503
        ? undefined
        : challenge({
            ...(error ? { error } : {}),
            ...(scope && scope.length > 0 ? { scope: scope.join(' ') } : {}),
            ...(error ? { error_description: message } : {}),
          }),
  });
  const missingScopes = (principal: Principal, needed: readonly string[]): string[] =>
    needed.filter((scope) => !principal.scopes.includes(scope));
  // The scopes to ask for: what this request needs, and what the caller holds that the server names
  // (so that a step-up does not lose them), as the MCP spec's recommended approach says.
  const scopeChallenge = (principal: Principal, needed: readonly string[]): string[] => {
    const named = new Set(resolved.scopes.supported);
    return [...new Set([...needed, ...principal.scopes.filter((scope) => named.has(scope))])];
  };
  const withRequired = (accepted: AuthAccepted): AuthOutcome => {
    const missing = missingScopes(accepted.principal, required);
    if (missing.length === 0) return accepted;
    return refuse(
      403,
      'insufficient_scope',
      `The access token lacks the scope ${missing.join(' ')} this server requires (it has: ${accepted.principal.scopes.join(' ') || 'none'}). Authorize again asking for it.`,
      scopeChallenge(accepted.principal, required),
    );
  };
  const accept = (principal: Principal, expiresAt: number | undefined): AuthAccepted => ({
    ok: true,
    principal,
    authInfo: Object.freeze({
      token: '',
      clientId: principal.clientId ?? principal.subject,
      scopes: [...principal.scopes],
      ...(expiresAt !== undefined ? { expiresAt } : {}),
      resource: resourceUrl,
      extra: Object.freeze({ [PRINCIPAL_EXTRA_KEY]: principal }),
    }),
  });
  const remember = (token: string, accepted: AuthAccepted, until: number) => {
    if (resolved.cacheSize === 0) return;
    if (cache.size >= resolved.cacheSize) {
      // Drop the expired first; when none is, the oldest.
      const at = now();
      for (const [key, entry] of cache) if (entry.until <= at) cache.delete(key);
      if (cache.size >= resolved.cacheSize) cache.delete(cache.keys().next().value as string);
    }
    cache.set(token, { accepted, until });
  };

  const verifyJwt = async (token: string, signal?: AbortSignal): Promise<AuthAccepted | AuthRefusal> => {
    let claimedIssuer: unknown;
    let algorithm: unknown;
    try {
      algorithm = decodeProtectedHeader(token).alg;
      claimedIssuer = decodeJwt(token).iss;
    } catch {
      return refuse(
        401,
        'invalid_token',
        'The access token is not a well-formed JWT. Send an access token from a trusted issuer.',
      );
    }
    const keys = typeof claimedIssuer === 'string' ? issuers.get(claimedIssuer) : undefined;
    if (!keys) {
      return refuse(
        401,
        'invalid_token',
        `The access token's issuer ${shown(claimedIssuer)} is not trusted here (trusted: ${[...issuers.keys()].join(', ')}). Get a token from a trusted issuer.`,
      );
    }
    if (typeof algorithm !== 'string' || !keys.settings.algorithms.includes(algorithm)) {
      return refuse(
        401,
        'invalid_token',
        `The access token is signed with alg ${shown(algorithm)}, which is not accepted from ${keys.settings.issuer} (accepted: ${keys.settings.algorithms.join(', ')}).`,
      );
    }
    let jwks: RemoteJWKSet;
    try {
      jwks = await keys.keySet(now());
    } catch (error) {
      return refuse(
        503,
        undefined,
        `The issuer ${keys.settings.issuer} cannot be reached to verify the token (${error instanceof Error ? error.message : String(error)}). Try again shortly.`,
      );
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, (header, input) => keys.key(jwks, header, input, signal), {
        issuer: keys.settings.issuer,
        audience: audiences,
        algorithms: [...keys.settings.algorithms],
        clockTolerance: resolved.leewaySeconds,
        requiredClaims: ['exp'],
        currentDate: new Date(now()),
      }));
    } catch (error) {
      if (signal?.aborted) {
        return refuse(503, undefined, "The request ended while its token waited for the issuer's keys.");
      }
      // The keys could not be fetched: the issuer's trouble, not the token's.
      if (error instanceof joseErrors.JWKSTimeout || !(error instanceof joseErrors.JOSEError)) {
        return refuse(
          503,
          undefined,
          `The keys of ${keys.settings.issuer} cannot be fetched to verify the token. Try again shortly.`,
        );
      }
      return refuse(401, 'invalid_token', rejection(error, keys.settings, resolved.resource));
    }
    const principal = principalFromClaims(payload, resolved.claims);
    if (!principal) {
      return refuse(
        401,
        'invalid_token',
        'The access token names no subject (no sub, client_id or azp claim).',
      );
    }
    const accepted = accept(principal, payload.exp);
    remember(token, accepted, (payload.exp as number) * 1000);
    return accepted;
  };

  return {
    config: resolved,
    metadataUrl,
    metadataPaths,
    metadata,
    async authenticate(authorization, authenticateOptions = {}) {
      const token = bearerToken(authorization);
      if (token === undefined) {
        return refuse(
          401,
          undefined,
          `This server needs an access token: send Authorization: Bearer <token>, from ${resolved.issuers.map((each) => each.issuer).join(' or ')} for the resource ${resolved.resource}. Its metadata: ${metadataUrl}.`,
          required,
        );
      }
      if (token === null) {
        return refuse(
          400,
          'invalid_request',
          'The Authorization header is malformed; send exactly "Bearer <token>".',
        );
      }
      const cached = cache.get(token);
      if (cached) {
        if (cached.until > now()) return withRequired(cached.accepted);
        cache.delete(token);
      }
      const keyed = options.apiKeys?.check(token);
      if (keyed) return withRequired(accept(keyed, undefined));
      if (token.split('.').length === 3) {
        const verified = await verifyJwt(token, authenticateOptions.signal);
        return verified.ok ? withRequired(verified) : verified;
      }
      if (options.introspect) {
        const outcome = await options.introspect(token);
        if (!outcome.active)
          return refuse(401, 'invalid_token', `The access token is not active: ${outcome.reason}.`);
        // Not cached here: the introspector keeps answers only as long as its own limit, for revocation.
        return withRequired(accept(outcome.principal, outcome.expiresAt));
      }
      return refuse(
        401,
        'invalid_token',
        options.apiKeys
          ? 'The credential is neither a known API key nor a JWT access token. Send a valid one.'
          : 'The access token is not a JWT, and this server verifies only JWT access tokens. Send one from a trusted issuer.',
      );
    },
    checkCall(principal, tool, category) {
      const needed = [
        ...required,
        ...(resolved.scopes.tools.get(tool) ?? []),
        ...(category !== undefined ? (resolved.scopes.categories.get(category) ?? []) : []),
      ];
      const missing = missingScopes(principal, needed);
      if (missing.length === 0) return undefined;
      return refuse(
        403,
        'insufficient_scope',
        `Calling ${tool} needs the scope ${missing.join(' ')}, which the access token lacks. Authorize again asking for it.`,
        scopeChallenge(principal, [...new Set(needed)]),
      );
    },
  };
}

/**
 * The authenticator of a configuration with what it names loaded: the API keys file, and the
 * introspection client with its secret read from `env`. A file or secret that cannot be used is an
 * {@link AuthConfigError}.
 *
 * @example
 * const auth = await openAuthenticator(loadAuthConfig('auth.json'));
 */
export async function openAuthenticator(
  config: AuthConfig | ResolvedAuthConfig,
  env: { readonly [name: string]: string | undefined } = process.env,
): Promise<Authenticator> {
  const resolved = isResolved(config) ? config : resolveAuthConfig(config);
  let apiKeys: ApiKeyChecker | undefined;
  if (resolved.apiKeys !== undefined) {
    try {
      apiKeys = await loadApiKeys(resolved.apiKeys);
    } catch (error) {
      throw new AuthConfigError(
        '$.apiKeys',
        `The API keys file ${resolved.apiKeys} cannot be used: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
  let introspect: AuthenticatorOptions['introspect'];
  const settings = resolved.introspection;
  if (settings) {
    const secret = env[settings.clientSecretEnv];
    if (!secret) {
      throw new AuthConfigError(
        '$.introspection.clientSecretEnv',
        `introspection needs the client secret in the environment variable ${settings.clientSecretEnv}, which is not set. Set it, or drop introspection.`,
      );
    }
    const { introspector } = await import('./introspection.js');
    try {
      introspect = introspector({
        ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
        issuer: resolved.issuers[0]!.issuer,
        clientId: settings.clientId,
        clientSecret: secret,
        audience: resolved.resource,
        groupsClaim: resolved.claims.groups.join('.'),
        rolesClaim: resolved.claims.roles.join('.'),
        ...(settings.cacheMaxAgeSeconds !== undefined
          ? { cacheMaxAgeSeconds: settings.cacheMaxAgeSeconds }
          : {}),
      });
    } catch (error) {
      throw new AuthConfigError(
        '$.introspection',
        `introspection cannot be set up: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
  return createAuthenticator(resolved, {
    ...(apiKeys ? { apiKeys } : {}),
    ...(introspect ? { introspect } : {}),
  });
}

/**
 * The JWKS of one issuer: found by discovery the first time it is needed, then jose's remote key set,
 * which fetches the set again on an unknown `kid` once its cooldown after the last fetch is over.
 *
 * A `kid` unknown inside the cooldown is not refused at once: the issuer may have started signing with
 * a key it published after the last fetch. The request waits for the cooldown's end, with every other
 * request in the same case, and one fetch then answers them all; a `kid` still unknown after it is
 * refused. So a stream of made-up key ids costs at most one fetch per cooldown, and a token of a new
 * key waits at most the cooldown's remainder.
 */
class IssuerKeys {
  #keys: RemoteJWKSet | undefined;
  #finding: Promise<RemoteJWKSet> | undefined;
  #failedAt = Number.NEGATIVE_INFINITY;
  #failure: unknown;
  /** jose's cache of the fetched set: `uat` is when the last fetch landed (`Date.now()`, as jose keeps it). */
  readonly #fetched: { uat?: number; jwks?: JSONWebKeySet } = {};
  /** The fetch at the end of the current cooldown, and how many requests wait for it. */
  #next: { readonly done: Promise<void>; waiting: number; readonly timer: NodeJS.Timeout } | undefined;

  constructor(readonly settings: ResolvedIssuer) {}

  async keySet(at: number): Promise<RemoteJWKSet> {
    if (this.#keys) return this.#keys;
    // After a failed discovery, the same answer for a while rather than a request per token.
    if (at - this.#failedAt < 5_000) throw this.#failure;
    this.#finding ??= this.#find();
    try {
      this.#keys = await this.#finding;
      return this.#keys;
    } catch (error) {
      this.#finding = undefined;
      this.#failedAt = at;
      this.#failure = error;
      throw error;
    }
  }

  /** The key that verifies a token with `header`, waiting for the cooldown's fetch when its `kid` is new. */
  async key(
    keys: RemoteJWKSet,
    header: JWSHeaderParameters,
    input: FlattenedJWSInput,
    signal: AbortSignal | undefined,
  ) {
    const seen = this.#fetched.uat;
    try {
      return await keys(header, input);
    } catch (error) {
      // A set fetched while this token was looked up (jose's own refetch, or another request's) is as
      // new as the token: a key it lacks is not published.
      if (!(error instanceof joseErrors.JWKSNoMatchingKey) || this.#fetched.uat !== seen) throw error;
      await this.#afterCooldown(keys, signal);
      // jose is cooling down again now, so a miss is refused without another fetch.
      return keys(header, input);
    }
  }

  /** Resolves once the set is fetched at the end of the current cooldown; one fetch for all who wait. */
  async #afterCooldown(keys: RemoteJWKSet, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    let next = this.#next;
    if (!next) {
      const since = this.#fetched.uat;
      const remaining =
        since === undefined ? 0 : Math.max(0, since + this.settings.jwksCooldownSeconds * 1000 - Date.now());
      let settle: { resolve: () => void; reject: (reason: unknown) => void } | undefined;
      const done = new Promise<void>((resolve, reject) => {
        settle = { resolve, reject };
      });
      // Whoever waits sees a failed fetch; nobody left waiting is no unhandled rejection.
      done.catch(() => {});
      const timer = setTimeout(() => {
        this.#next = undefined;
        // A fetch that landed meanwhile (the cooldown over, jose fetched for another token) is the one.
        const fetch = this.#fetched.uat === since ? keys.reload() : Promise.resolve();
        fetch.then(settle!.resolve, settle!.reject);
      }, remaining);
      timer.unref();
      next = { done, waiting: 0, timer };
      this.#next = next;
    }
    const waited = next;
    waited.waiting++;
    try {
      await untilAborted(waited.done, signal);
    } finally {
      waited.waiting--;
      // Every request that waited has ended: no fetch for nobody.
      if (waited.waiting === 0 && this.#next === waited) {
        clearTimeout(waited.timer);
        this.#next = undefined;
      }
    }
  }

  async #find(): Promise<RemoteJWKSet> {
    const jwksUri = this.settings.jwksUri ?? (await discoverJwksUri(this.settings.issuer));
    return createRemoteJWKSet(new URL(jwksUri), {
      cooldownDuration: this.settings.jwksCooldownSeconds * 1000,
      timeoutDuration: 5_000,
      [jwksCache]: this.#fetched as JWKSCacheInput,
    });
  }
}

/** `promise`, or a rejection with the signal's reason once it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const aborted = () => reject(signal.reason);
    signal.addEventListener('abort', aborted, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', aborted));
  });
}

/**
 * The `jwks_uri` of an issuer, from its RFC 8414 metadata, else its OpenID Connect discovery document,
 * in the order the MCP specification gives; a document whose `issuer` is not the issuer is not used.
 */
export async function discoverJwksUri(issuer: string): Promise<string> {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const candidates = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    ...(path ? [`${url.origin}${path}/.well-known/openid-configuration`] : []),
  ];
  const tried: string[] = [];
  for (const candidate of candidates) {
    let document: Record<string, unknown>;
    try {
      const response = await fetch(candidate, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(5_000),
      });
      if (!response.ok) {
        tried.push(`${candidate}: HTTP ${response.status}`);
        continue;
      }
      document = (await response.json()) as Record<string, unknown>;
    } catch (error) {
      tried.push(`${candidate}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    if (document.issuer !== issuer) {
      tried.push(`${candidate}: its issuer is ${shown(document.issuer)}, not ${issuer}`);
      continue;
    }
    if (typeof document.jwks_uri !== 'string') {
      tried.push(`${candidate}: no jwks_uri`);
      continue;
    }
    return document.jwks_uri;
  }
  throw new Error(`no usable metadata (${tried.join('; ')})`);
}

/**
 * The token of an `Authorization: Bearer` header: undefined when there is none (or another scheme),
 * null when it is malformed.
 */
function bearerToken(header: string | undefined): string | undefined | null {
  if (header === undefined) return undefined;
  const match = /^\s*(\S+)(?:\s+(.*))?$/.exec(header);
  if (!match || match[1]!.toLowerCase() !== 'bearer') return undefined;
  const token = (match[2] ?? '').trim();
  // RFC 6750 §2.1: b68token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
  return /^[A-Za-z0-9\-._~+/]+=*$/.test(token) ? token : null;
}

// What jose refused, said for the caller.
function rejection(error: unknown, issuer: ResolvedIssuer, resource: string): string {
  if (error instanceof joseErrors.JWTExpired) {
    return `The access token expired (exp ${shown(error.payload.exp)}). Get a new one.`;
  }
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    const { claim, payload } = error;
    if (claim === 'nbf')
      return `The access token is not valid yet (nbf ${shown(payload.nbf)}). Check the clocks, or wait.`;
    if (claim === 'aud') {
      return `The access token was issued for ${shown(payload.aud)}, not for this server (${resource}). Ask for a token with resource=${resource}.`;
    }
    if (claim === 'iss') return `The access token's issuer ${shown(payload.iss)} is not ${issuer.issuer}.`;
    return `The access token's ${claim} claim is ${error.reason === 'missing' ? 'missing' : `not acceptable (${shown(payload[claim])})`}.`;
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) {
    return `The access token's signing algorithm is not accepted from ${issuer.issuer} (accepted: ${issuer.algorithms.join(', ')}).`;
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey) {
    return `The access token is signed with a key ${issuer.issuer} does not publish. Get a new token.`;
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return 'The access token signature does not verify. Get a new token from the issuer.';
  }
  return 'The access token is not valid. Get a new one from a trusted issuer.';
}

// The spellings of the resource an `aud` may carry: as configured, and with or without a final slash.
function audienceSpellings(resource: string): string[] {
  const canonical = canonicalResource(resource);
  return [
    ...new Set([resource, canonical, canonical.endsWith('/') ? canonical.slice(0, -1) : `${canonical}/`]),
  ];
}

function isResolved(config: AuthConfig | ResolvedAuthConfig): config is ResolvedAuthConfig {
  return typeof (config as ResolvedAuthConfig).cacheSize === 'number' && config.scopes?.tools instanceof Map;
}

function shown(value: unknown): string {
  const json = JSON.stringify(value);
  const text = json === undefined ? 'none' : json;
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

// An auth-param value: RFC 6750 allows %x20-21 / %x23-5B / %x5D-7E, so quotes and backslashes go.
function quotable(value: string): string {
  return value.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, "'");
}
