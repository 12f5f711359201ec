/**
 * Who is calling. One principal per call, built in one place ({@link principalFromAuthInfo}) from what
 * the transport established, and carried in the call's MCP request context. This module loads nothing,
 * so every layer can read it.
 */

/**
 * An authenticated caller: who the token (or API key) says it is, and who vouched for it. Without
 * authentication there is no principal: the call is the local process's.
 */
export interface Principal {
  /** Who: the access token's `sub`, or the subject an API key was issued to. */
  readonly subject: string;
  /**
   * Who vouched for the subject: the token's `iss`; `api-key` for a static API key; undefined when the
   * transport's `authInfo` came from an authenticator of your own that did not say.
   */
  readonly issuer: string | undefined;
  /** The OAuth client the token was issued to (`client_id`, else `azp`), when it names one. */
  readonly clientId: string | undefined;
  /** The groups the configured claims carry (empty when none). */
  readonly groups: readonly string[];
  /** The roles the configured claims carry (empty when none). */
  readonly roles: readonly string[];
  /** The scopes the token was granted (`scope`, `scp`). */
  readonly scopes: readonly string[];
}

/**
 * The part of an MCP transport's `authInfo` toolpact reads. toolpact's own authentication puts the
 * principal it built in `extra.principal`; an authenticator of your own may set only `clientId` and
 * `scopes`, and then the client id is the subject.
 */
export interface AuthInfoLike {
  readonly clientId?: unknown;
  readonly scopes?: unknown;
  readonly extra?: unknown;
}

/** The key under which toolpact's authentication keeps the {@link Principal} in `authInfo.extra`. */
export const PRINCIPAL_EXTRA_KEY = 'toolpactPrincipal';

/**
 * The principal of a transport's `authInfo`, or undefined when nothing authenticated the request.
 * Malformed values (a subject that is not a non-empty string, groups that are not strings) count as no
 * authentication rather than as a principal with holes.
 *
 * @example
 * principalFromAuthInfo({ clientId: 'ci', scopes: ['tools'] });
 * // { subject: 'ci', issuer: undefined, clientId: 'ci', groups: [], roles: [], scopes: ['tools'] }
 */
export function principalFromAuthInfo(authInfo: AuthInfoLike | undefined): Principal | undefined {
  if (authInfo === undefined || authInfo === null) return undefined;
  const extra = authInfo.extra;
  if (extra !== null && typeof extra === 'object') {
    const built = (extra as Record<string, unknown>)[PRINCIPAL_EXTRA_KEY];
    if (built !== undefined) return asPrincipal(built);
  }
  const clientId = authInfo.clientId;
  if (typeof clientId !== 'string' || clientId === '') return undefined;
  return Object.freeze({
    subject: clientId,
    issuer: undefined,
    clientId,
    groups: Object.freeze([]),
    roles: Object.freeze([]),
    scopes: Object.freeze(stringList(authInfo.scopes) ?? []),
  });
}

/**
 * The value as a {@link Principal}, frozen, or undefined when it is not one.
 *
 * @example
 * asPrincipal({ subject: 'alice', issuer: 'https://id.example', groups: ['leads'] });
 */
export function asPrincipal(value: unknown): Principal | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  const subject = record.subject;
  if (typeof subject !== 'string' || subject === '') return undefined;
  const issuer = optionalText(record.issuer);
  const clientId = optionalText(record.clientId);
  const groups = stringList(record.groups ?? []);
  const roles = stringList(record.roles ?? []);
  const scopes = stringList(record.scopes ?? []);
  if (issuer === null || clientId === null) return undefined;
  if (groups === undefined || roles === undefined || scopes === undefined) return undefined;
  return Object.freeze({
    subject,
    issuer,
    clientId,
    groups: Object.freeze(groups),
    roles: Object.freeze(roles),
    scopes: Object.freeze(scopes),
  });
}

/**
 * The principal as one string, for keys: `auth:<subject>@<issuer>`, or `auth:<subject>` when no
 * issuer is known. Approvals, request states and audit rows bind to it, so the same subject from
 * two issuers is two principals.
 *
 * @example
 * principalKey({ subject: 'alice', issuer: 'https://id.example', ... }); // 'auth:alice@https://id.example'
 */
export function principalKey(principal: Principal): string {
  return principal.issuer === undefined
    ? `auth:${principal.subject}`
    : `auth:${principal.subject}@${principal.issuer}`;
}

function optionalText(value: unknown): string | undefined | null {
  if (value === undefined) return undefined;
  return typeof value === 'string' && value !== '' ? value : null;
}

function stringList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.every((each) => typeof each === 'string') ? [...value] : undefined;
}
