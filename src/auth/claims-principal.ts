/**
 * Who a set of verified claims names: the mapping from a token's (or an ID token's and userinfo's)
 * claims to a {@link Principal}, with the auth file's `claims.groups` and `claims.roles` paths.
 */
import type { Principal } from '../dispatch/principal.js';

/** The dotted claim paths of the groups and roles, split (`realm_access.roles` → `['realm_access', 'roles']`). */
export interface ClaimPaths {
  readonly groups: readonly string[];
  readonly roles: readonly string[];
}

/**
 * The principal of verified claims: `sub` (else `client_id`, else `azp`) is the subject, `client_id`
 * or `azp` the client, `scope` (space-separated) or `scp` the scopes, and the groups and roles are
 * read at the configured paths (a string or a list of strings). Undefined when no subject is named.
 *
 * @example
 * principalFromClaims({ iss: 'https://id.example', sub: 'bob', groups: ['leads'] }, { groups: ['groups'], roles: ['roles'] });
 * // { subject: 'bob', issuer: 'https://id.example', clientId: undefined, groups: ['leads'], roles: [], scopes: [] }
 */
export function principalFromClaims(
  claims: Readonly<Record<string, unknown>>,
  paths: ClaimPaths,
): Principal | undefined {
  const clientId = text(claims.client_id) ?? text(claims.azp);
  const subject = text(claims.sub) ?? clientId;
  if (subject === undefined) return undefined;
  return Object.freeze({
    subject,
    issuer: text(claims.iss),
    clientId,
    groups: Object.freeze(listAt(claims, paths.groups)),
    roles: Object.freeze(listAt(claims, paths.roles)),
    scopes: Object.freeze(scopesOf(claims.scope ?? claims.scp)),
  });
}

function scopesOf(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((each) => each !== '');
  if (Array.isArray(value)) return value.filter((each): each is string => typeof each === 'string');
  return [];
}

function listAt(claims: Readonly<Record<string, unknown>>, path: readonly string[]): string[] {
  let value: unknown = claims;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return [];
    value = (value as Record<string, unknown>)[part];
  }
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((each): each is string => typeof each === 'string') : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
