import type { Principal } from '../dispatch/principal.js';
import { foldName } from './fold-name.js';
import { compileGlob, type GlobMatcher, hasWildcard } from './glob.js';
import {
  type DeciderCondition,
  PRINCIPAL_FIELDS,
  type PrincipalCondition,
  type PrincipalField,
} from './policy.js';

/** A compiled {@link PrincipalCondition}: a test on the caller (undefined for a call nobody authenticated). */
export type PrincipalMatcher = (principal: Principal | undefined) => boolean;

/**
 * Compiles a principal test. `broad` (deny and ask rules) compares folded spellings, so a case or
 * look-alike difference can only make a call stricter; an allow rule compares exactly.
 *
 * @example
 * compilePrincipalCondition({ group: 'writers' }, false)(alice); // true when alice is in writers
 * compilePrincipalCondition({ group: 'writers' }, false)(undefined); // false: nobody authenticated
 */
export function compilePrincipalCondition(condition: PrincipalCondition, broad: boolean): PrincipalMatcher {
  const read = (value: string) => (broad ? foldName(value) : value);
  const tests = PRINCIPAL_FIELDS.flatMap((field) => {
    const patterns = condition[field];
    if (patterns === undefined) return [];
    const matchers: GlobMatcher[] = listOf(patterns).map((pattern) => compileGlob(read(pattern)));
    return [
      (principal: Principal) =>
        valuesOf(principal, field).some((value) => matchers.some((match) => match(read(value)))),
    ];
  });
  const local = condition.local === true;
  const authenticated = tests.length > 0 || !local;
  return (principal) => {
    if (principal === undefined) return local;
    return authenticated && tests.every((test) => test(principal));
  };
}

/** What a principal field is compared against: the caller's values for it (none when it has none). */
function valuesOf(principal: Principal, field: PrincipalField): readonly string[] {
  switch (field) {
    case 'subject':
      return [principal.subject];
    case 'group':
      return principal.groups;
    case 'role':
      return principal.roles;
    case 'client':
      return principal.clientId === undefined ? [] : [principal.clientId];
    case 'issuer':
      return principal.issuer === undefined ? [] : [principal.issuer];
    case 'scope':
      return principal.scopes;
    default: {
      const exhaustive: never = field;
      return exhaustive;
    }
  }
}

/**
 * Whether a decider may decide an approval its rule's `decidedBy` governs: undefined when they may,
 * else why not, in words for the decider. `decider` undefined is the local process (the CLI on the
 * machine, an in-process decision): it is in no group and is never the authenticated caller.
 *
 * @example
 * deciderRefusal({ group: 'leads', notCaller: true }, bob, 'auth:alice@https://id.example'); // undefined when bob leads
 */
export function deciderRefusal(
  condition: DeciderCondition | undefined,
  decider: Principal | undefined,
  callerKey: string,
  deciderKey: string,
): string | undefined {
  if (condition === undefined) return undefined;
  if (condition.group !== undefined) {
    const groups = listOf(condition.group);
    const matchers = groups.map((pattern) => compileGlob(pattern));
    const member = decider?.groups.some((group) => matchers.some((match) => match(group))) === true;
    if (!member) {
      const who = decider === undefined ? 'the local process, which is in no group,' : `"${decider.subject}"`;
      return `only a member of ${groups.map((group) => `"${group}"`).join(' or ')} may decide it, and ${who} is not one`;
    }
  }
  if (condition.notCaller === true && deciderKey === callerKey) {
    return 'it must be decided by someone other than the caller who asked';
  }
  return undefined;
}

/**
 * How the calls one principal test holds for compare with another's (see `compareReach`):
 * `narrower`, `same`, or `wider` when no inclusion can be shown. An absent test holds for every caller.
 *
 * @example
 * comparePrincipal({ group: 'writers' }, undefined); // 'narrower'
 */
export function comparePrincipal(
  rule: PrincipalCondition | undefined,
  other: PrincipalCondition | undefined,
): 'narrower' | 'same' | 'wider' {
  if (other === undefined) return rule === undefined ? 'same' : 'narrower';
  if (rule === undefined) return 'wider';
  // A rule that holds for unauthenticated calls is not inside one that does not.
  if (rule.local === true && other.local !== true) return 'wider';
  let narrower = rule.local !== true && other.local === true;
  const localOnly = (condition: PrincipalCondition) =>
    condition.local === true && PRINCIPAL_FIELDS.every((field) => condition[field] === undefined);
  // `{ local: true }` alone holds for no authenticated caller at all.
  if (localOnly(rule)) return localOnly(other) ? 'same' : 'narrower';
  if (localOnly(other)) return 'wider';
  for (const field of PRINCIPAL_FIELDS) {
    const mine = rule[field] === undefined ? undefined : listOf(rule[field]);
    const theirs = other[field] === undefined ? undefined : listOf(other[field]);
    if (theirs === undefined) {
      if (mine !== undefined) narrower = true;
      continue;
    }
    if (mine === undefined) return 'wider';
    const matchers = theirs.map((pattern) => compileGlob(pattern));
    for (const pattern of mine) {
      if (theirs.includes(pattern)) continue;
      if (hasWildcard(pattern) || !matchers.some((match) => match(pattern))) return 'wider';
      narrower = true;
    }
    if (theirs.some((pattern) => !mine.includes(pattern))) narrower = true;
  }
  return narrower ? 'narrower' : 'same';
}

/**
 * A principal test in words, for `toolpact policy` and `gateway check`.
 *
 * @example
 * describePrincipal({ group: ['writers', 'leads'] }); // 'group writers|leads'
 */
export function describePrincipal(condition: PrincipalCondition): string {
  const parts = PRINCIPAL_FIELDS.flatMap((field) =>
    condition[field] === undefined ? [] : [`${field} ${listOf(condition[field]).join('|')}`],
  );
  if (condition.local === true) parts.push(parts.length === 0 ? 'local only' : 'or local');
  return parts.length === 0 ? 'any authenticated caller' : parts.join(', ');
}

function listOf<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}
