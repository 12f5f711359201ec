/**
 * Opaque access tokens, checked by asking the authorization server (RFC 7662 token introspection).
 * The answer is checked again here: the server's `active` alone does not say the token was issued for
 * this resource (RFC 8707), by the expected issuer, or that it is still within its lifetime by this
 * host's clock. Active answers are cached until the token expires, bounded in age and in number.
 */
import { createHash } from 'node:crypto';
import type { Principal } from '../dispatch/principal.js';

/** How toolpact reaches the introspection endpoint, and what a token must be to be accepted. */
export interface IntrospectionOptions {
  /** The introspection endpoint; when absent, read from the issuer's metadata (`introspection_endpoint`). */
  readonly endpoint?: string;
  /**
   * The authorization server's issuer identifier. Its metadata (RFC 8414, else OpenID Connect
   * discovery) names the endpoint when `endpoint` is absent, and an answer naming another `iss` is refused.
   */
  readonly issuer?: string;
  /** This server's client id at the authorization server, sent with `client_secret_basic`. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** This server's resource URI (or URIs): the token's `aud` must name one of them. */
  readonly audience: string | readonly string[];
  /** Where the groups are in the answer: a claim name, or a dotted path (`realm_access.groups`). Default `groups`. */
  readonly groupsClaim?: string;
  /** Where the roles are in the answer, as `groupsClaim`. Default `roles`. */
  readonly rolesClaim?: string;
  /** How long one request to the authorization server may take; default 5000 ms. */
  readonly timeoutMs?: number;
  /**
   * The longest an active answer is reused, in seconds, even when the token lives longer: a token
   * revoked at the authorization server is still accepted here for up to this long. Default 60.
   */
  readonly cacheMaxAgeSeconds?: number;
  /** How many answers are cached at most; the least recently used go first. Default 10000. */
  readonly cacheMaxEntries?: number;
  /** The time now, in milliseconds since the epoch; `Date.now` unless given. */
  readonly clock?: () => number;
}

/** What introspection made of a token: the caller it names, or why it is refused. */
export type IntrospectionOutcome =
  | {
      readonly active: true;
      readonly principal: Principal;
      /** The token's `exp`, in seconds since the epoch (as the MCP SDK's `AuthInfo.expiresAt`). */
      readonly expiresAt: number | undefined;
      readonly scopes: readonly string[];
    }
  | { readonly active: false; readonly reason: string };

/** Options that cannot work, refused when the introspector is made. */
export class IntrospectionOptionsError extends Error {
  override readonly name = 'IntrospectionOptionsError';
}

/** How far the clocks of this host and the authorization server may differ for `exp` and `nbf`. */
export const INTROSPECTION_LEEWAY_SECONDS = 30;

const MAX_TOKEN_LENGTH = 16_384;
const MAX_ANSWER_LENGTH = 65_536;
const DISCOVERY_RETRY_MS = 10_000;
const STALE_CONNECTION = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);

/**
 * A function that checks an opaque access token at the authorization server. It never throws: a
 * network failure, a timeout or an answer it cannot use is an inactive outcome with the reason.
 *
 * @example
 * const introspect = introspector({
 *   issuer: 'https://id.example.com',
 *   clientId: 'toolpact', clientSecret: process.env.INTROSPECTION_SECRET!,
 *   audience: 'https://tools.example.com/mcp',
 * });
 * const outcome = await introspect(bearerToken);
 * if (outcome.active) console.log(outcome.principal.subject);
 */
export function introspector(
  options: IntrospectionOptions,
): (token: string) => Promise<IntrospectionOutcome> {
  const settings = settle(options);
  const clock = options.clock ?? Date.now;
  const cache = new Map<string, { readonly outcome: IntrospectionOutcome; readonly until: number }>();
  const inFlight = new Map<string, Promise<IntrospectionOutcome>>();
  let endpoint: Promise<string> | undefined =
    options.endpoint === undefined ? undefined : Promise.resolve(options.endpoint);
  let discoveryFailedAt = Number.NEGATIVE_INFINITY;

  const endpointOf = (): Promise<string> => {
    if (endpoint === undefined) {
      if (clock() - discoveryFailedAt < DISCOVERY_RETRY_MS) {
        return Promise.reject(new Error('the last discovery failed moments ago; retrying shortly'));
      }
      endpoint = discoverEndpoint(settings.issuer as string, settings.timeoutMs).catch((error: unknown) => {
        endpoint = undefined;
        discoveryFailedAt = clock();
        throw error;
      });
    }
    return endpoint;
  };

  const ask = async (token: string): Promise<IntrospectionOutcome> => {
    let url: string;
    try {
      url = await endpointOf();
    } catch (error) {
      return inactive(`could not find the introspection endpoint: ${(error as Error).message}`);
    }
    const answer = await post(url, token, settings);
    if (!answer.ok) return inactive(answer.reason);
    return judgeIntrospection(answer.body, {
      issuer: settings.issuer ?? new URL(url).origin,
      issuerRequired: settings.issuer !== undefined,
      audiences: settings.audiences,
      groupsClaim: settings.groupsClaim,
      rolesClaim: settings.rolesClaim,
      now: clock(),
    });
  };

  return async (token) => {
    if (typeof token !== 'string' || token === '' || token.length > MAX_TOKEN_LENGTH) {
      return inactive(`the token is empty or longer than ${MAX_TOKEN_LENGTH} characters`);
    }
    const key = createHash('sha256').update(token).digest('base64url');
    const now = clock();
    const cached = cache.get(key);
    if (cached !== undefined) {
      cache.delete(key);
      if (cached.until > now) {
        cache.set(key, cached);
        return cached.outcome;
      }
    }
    const pending = inFlight.get(key);
    if (pending !== undefined) return pending;
    const asked = ask(token)
      .catch((error: unknown) => inactive(`introspection failed: ${(error as Error).message}`))
      .then((outcome) => {
        if (outcome.active) {
          const bound = now + settings.cacheMaxAgeSeconds * 1000;
          const until = outcome.expiresAt === undefined ? bound : Math.min(bound, outcome.expiresAt * 1000);
          if (cache.size >= settings.cacheMaxEntries) cache.delete(cache.keys().next().value as string);
          if (settings.cacheMaxEntries > 0) cache.set(key, { outcome, until });
        }
        return outcome;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, asked);
    return asked;
  };
}

/** What {@link judgeIntrospection} holds an answer to. */
export interface IntrospectionExpectations {
  /** The issuer the principal is vouched for by; an answer's `iss` must equal it when `issuerRequired`. */
  readonly issuer: string;
  readonly issuerRequired: boolean;
  readonly audiences: readonly string[];
  readonly groupsClaim: string;
  readonly rolesClaim: string;
  /** Milliseconds since the epoch. */
  readonly now: number;
}

/**
 * What an introspection answer (the parsed JSON body) grants: a pure function of the answer and the
 * expectations, so every rule is tested by a table.
 *
 * @example
 * judgeIntrospection({ active: true, sub: 'alice', aud: 'https://tools.example.com/mcp', exp: 1893456000 }, expectations);
 * // { active: true, principal: { subject: 'alice', … }, expiresAt: 1893456000, scopes: [] }
 */
export function judgeIntrospection(
  answer: unknown,
  expected: IntrospectionExpectations,
): IntrospectionOutcome {
  if (!isRecord(answer)) return inactive('the introspection answer is not a JSON object');
  if (answer.active !== true) {
    return inactive('the authorization server says the token is not active (unknown, revoked or expired)');
  }
  const { iss, aud, exp, nbf, sub, client_id: clientId, token_type: tokenType, cnf } = answer;
  if (tokenType !== undefined && (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer')) {
    return inactive(`the token is of type ${JSON.stringify(tokenType)}, not a bearer access token`);
  }
  if (cnf !== undefined) {
    return inactive('the token is bound to a key (cnf), and its proof of possession is not checked here');
  }
  if (iss !== undefined && iss !== expected.issuer && expected.issuerRequired) {
    return inactive(`the token was issued by ${JSON.stringify(iss)}, not by ${expected.issuer}`);
  }
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.some((each) => typeof each === 'string' && expected.audiences.includes(each))) {
    return inactive(
      `the token's audience is ${JSON.stringify(aud ?? null)}, not this server's resource (${expected.audiences.join(', ')}): it was issued for another resource`,
    );
  }
  if (exp !== undefined && !(typeof exp === 'number' && Number.isFinite(exp))) {
    return inactive(`the token's exp is ${JSON.stringify(exp)}, not a time in seconds`);
  }
  if (typeof exp === 'number' && exp + INTROSPECTION_LEEWAY_SECONDS <= expected.now / 1000) {
    return inactive(`the token expired at ${new Date(exp * 1000).toISOString()}`);
  }
  if (typeof nbf === 'number' && nbf - INTROSPECTION_LEEWAY_SECONDS > expected.now / 1000) {
    return inactive(`the token is not valid before ${new Date(nbf * 1000).toISOString()}`);
  }
  const client = typeof clientId === 'string' && clientId !== '' ? clientId : undefined;
  // A token of the client credentials grant names no user: the client is who calls.
  const subject = typeof sub === 'string' && sub !== '' ? sub : client;
  if (subject === undefined)
    return inactive('the token names neither a subject (sub) nor a client (client_id)');
  const scope = answer.scope;
  const scopes = typeof scope === 'string' ? scope.split(' ').filter((each) => each !== '') : strings(scope);
  const principal: Principal = Object.freeze({
    subject,
    issuer: typeof iss === 'string' && iss !== '' ? iss : expected.issuer,
    clientId: client,
    groups: Object.freeze(strings(claimAt(answer, expected.groupsClaim))),
    roles: Object.freeze(strings(claimAt(answer, expected.rolesClaim))),
    scopes: Object.freeze(scopes),
  });
  return Object.freeze({
    active: true as const,
    principal,
    expiresAt: typeof exp === 'number' ? exp : undefined,
    scopes: principal.scopes,
  });
}

interface Settled {
  readonly issuer: string | undefined;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly audiences: readonly string[];
  readonly groupsClaim: string;
  readonly rolesClaim: string;
  readonly timeoutMs: number;
  readonly cacheMaxAgeSeconds: number;
  readonly cacheMaxEntries: number;
}

function settle(options: IntrospectionOptions): Settled {
  const refuse = (message: string) => new IntrospectionOptionsError(`Token introspection: ${message}`);
  if (options.endpoint === undefined && options.issuer === undefined) {
    throw refuse('give the introspection endpoint, or the issuer whose metadata names it.');
  }
  for (const [name, value] of [
    ['endpoint', options.endpoint],
    ['issuer', options.issuer],
  ] as const) {
    if (value !== undefined && !isSafeUrl(value)) {
      throw refuse(
        `${name} is ${JSON.stringify(value)}; give an https:// URL (http:// only on loopback), since the client secret and tokens travel to it.`,
      );
    }
  }
  for (const [name, value] of [
    ['clientId', options.clientId],
    ['clientSecret', options.clientSecret],
  ] as const) {
    if (typeof value !== 'string' || value === '') {
      throw refuse(`${name} is missing: introspection needs this server's own client credentials.`);
    }
  }
  const audiences = typeof options.audience === 'string' ? [options.audience] : [...(options.audience ?? [])];
  if (audiences.length === 0 || audiences.some((each) => typeof each !== 'string' || each === '')) {
    throw refuse(`audience is ${JSON.stringify(options.audience)}; give this server's resource URI.`);
  }
  const whole = (name: string, value: number | undefined, fallback: number, least: number) => {
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value < least) {
      throw refuse(`${name} is ${JSON.stringify(value)}; give a whole number of at least ${least}.`);
    }
    return value;
  };
  return {
    issuer: options.issuer,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    audiences,
    groupsClaim: options.groupsClaim ?? 'groups',
    rolesClaim: options.rolesClaim ?? 'roles',
    timeoutMs: whole('timeoutMs', options.timeoutMs, 5000, 1),
    cacheMaxAgeSeconds: whole('cacheMaxAgeSeconds', options.cacheMaxAgeSeconds, 60, 0),
    cacheMaxEntries: whole('cacheMaxEntries', options.cacheMaxEntries, 10_000, 0),
  };
}

type Answer = { readonly ok: true; readonly body: unknown } | { readonly ok: false; readonly reason: string };

/** One introspection request, with `client_secret_basic` (RFC 6749 §2.3.1: each part form-encoded). */
async function post(url: string, token: string, settings: Settled): Promise<Answer> {
  const credentials = `${formEncode(settings.clientId)}:${formEncode(settings.clientSecret)}`;
  const request = () =>
    fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
  let response: Response;
  try {
    // Introspection changes nothing, so a request whose kept-alive connection the server had already
    // closed is sent once more, on a new connection.
    response = await request().catch((error: unknown) => {
      if (!STALE_CONNECTION.has(causeCode(error) ?? '')) throw error;
      return request();
    });
  } catch (error) {
    return {
      ok: false,
      reason: `the introspection endpoint ${url} ${unreachable(error, settings.timeoutMs)}`,
    };
  }
  const text = await readBounded(response);
  if (response.status !== 200) {
    const code = errorCode(text);
    const hint =
      code === 'invalid_client' || response.status === 401
        ? ': check the client id and secret this server introspects with'
        : '';
    return {
      ok: false,
      reason: `the introspection endpoint ${url} answered HTTP ${response.status}${code ? ` (${code})` : ''}${hint}`,
    };
  }
  if (text === undefined)
    return { ok: false, reason: `the introspection answer is over ${MAX_ANSWER_LENGTH} bytes` };
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch {
    return { ok: false, reason: 'the introspection answer is not JSON' };
  }
}

/**
 * The introspection endpoint named by the issuer's metadata: RFC 8414 first, then OpenID Connect
 * discovery, each path-aware. The metadata must name the same issuer (RFC 8414 §3.3).
 */
async function discoverEndpoint(issuer: string, timeoutMs: number): Promise<string> {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  const candidates = [
    ...new Set([
      `${url.origin}/.well-known/oauth-authorization-server${path}`,
      `${url.origin}/.well-known/openid-configuration${path}`,
      `${url.origin}${path}/.well-known/openid-configuration`,
    ]),
  ];
  const failures: string[] = [];
  for (const candidate of candidates) {
    let response: Response;
    try {
      response = await fetch(candidate, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      failures.push(`${candidate} ${unreachable(error, timeoutMs)}`);
      continue;
    }
    const text = await readBounded(response);
    if (response.status !== 200 || text === undefined) {
      failures.push(`${candidate} answered HTTP ${response.status}`);
      continue;
    }
    let metadata: unknown;
    try {
      metadata = JSON.parse(text);
    } catch {
      failures.push(`${candidate} is not JSON`);
      continue;
    }
    if (!isRecord(metadata) || metadata.issuer !== issuer) {
      failures.push(
        `${candidate} names issuer ${JSON.stringify(isRecord(metadata) ? metadata.issuer : null)}`,
      );
      continue;
    }
    const endpoint = metadata.introspection_endpoint;
    if (typeof endpoint !== 'string' || !isSafeUrl(endpoint)) {
      throw new Error(
        `${candidate} names no usable introspection_endpoint (${JSON.stringify(endpoint ?? null)}); configure the endpoint`,
      );
    }
    return endpoint;
  }
  throw new Error(failures.join('; '));
}

/** The text of a response, or undefined when it is longer than any introspection answer should be. */
async function readBounded(response: Response): Promise<string | undefined> {
  try {
    const text = await response.text();
    return text.length > MAX_ANSWER_LENGTH ? undefined : text;
  } catch {
    return undefined;
  }
}

function unreachable(error: unknown, timeoutMs: number): string {
  const failure = error as Error;
  if (failure.name === 'TimeoutError' || failure.name === 'AbortError') {
    return `did not answer within ${timeoutMs} ms`;
  }
  return `could not be reached (${causeCode(error) ?? failure.message})`;
}

function causeCode(error: unknown): string | undefined {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

function errorCode(text: string | undefined): string | undefined {
  try {
    const body: unknown = JSON.parse(text ?? '');
    return isRecord(body) && typeof body.error === 'string' ? body.error.slice(0, 64) : undefined;
  } catch {
    return undefined;
  }
}

/** The value at a claim name, or, when no claim has that name, at its dotted path. */
function claimAt(answer: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(answer, path)) return answer[path];
  let value: unknown = answer;
  for (const step of path.split('.')) {
    if (!isRecord(value) || !Object.hasOwn(value, step)) return undefined;
    value = value[step];
  }
  return value;
}

/** A claim as a list of strings: a list keeps its strings, one string is a list of one. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  return Array.isArray(value)
    ? value.filter((each): each is string => typeof each === 'string' && each !== '')
    : [];
}

function formEncode(text: string): string {
  return encodeURIComponent(text).replace(/%20/g, '+');
}

function isSafeUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

function inactive(reason: string): IntrospectionOutcome {
  return Object.freeze({ active: false as const, reason });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
