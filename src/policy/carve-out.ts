import { foldName } from './fold-name.js';
import { compileGlob, hasWildcard } from './glob.js';
import { absoluteSegments } from './path-readings.js';
import {
  type ArgumentCondition,
  effectiveSource,
  type JsonScalar,
  type PolicyRule,
  targetsOf,
} from './policy.js';
import { comparePrincipal } from './principal-condition.js';
import { uriPattern } from './uri-readings.js';

/**
 * Whether an allow or ask rule is a carve-out of a deny rule: narrower than the deny, or as narrow,
 * in every field the deny constrains, and not the same rule over again. Only a carve-out can
 * outrank a deny that matches a call; a broader allow (one that says nothing about a field the deny
 * tests) never does. Judged on the rules as written, failing closed: where narrowness cannot be
 * shown (a glob inside another glob, a `when` predicate other than the deny's own), the rule is not
 * a carve-out.
 *
 * - target: the rule decides on some of what the deny decides on (a rule without `target` decides on
 *   tools, resources and prompts).
 * - uri: every URI glob the rule gives is a literal one of the deny's globs matches.
 * - tool: every name the rule gives is one the deny names (a literal the deny's glob matches).
 * - category: the rule's categories are among the deny's, or the rule names tools exactly (a tool
 *   has one category).
 * - source: every source the rule covers is one the deny covers.
 * - arguments: the rule tests each argument the deny tests, at least as narrowly (`under` a folder
 *   inside one of the deny's, a glob under one of them, the same `equals`, a subset of `oneOf`).
 * - principal: the rule tests every field of the caller the deny tests, with literals the deny's
 *   globs match, and holds for unauthenticated calls only where the deny does.
 * - when: the same predicate.
 *
 * @example
 * isCarveOut(
 *   { id: 'docs', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } },
 *   { id: 'no-writes', action: 'deny', category: 'write' },
 * ); // true
 * isCarveOut(
 *   { id: 'reads', action: 'allow', source: 'mcp:*', category: 'read' },
 *   { id: 'ssh', action: 'deny', arguments: { path: { under: '.ssh' } } },
 * ); // false: the allow says nothing about the path
 */
export function isCarveOut(rule: PolicyRule, deny: PolicyRule): boolean {
  if (rule.action === 'deny' || deny.action !== 'deny') return false;
  return compareReach(rule, deny) === 'narrower';
}

/**
 * How the calls `rule` matches compare with those `other` matches, judged on the rules' fields
 * (see {@link isCarveOut}): `narrower` (every call `rule` matches, `other` matches too, and `rule`
 * constrains more), `same` (the same constraints), or `wider` (no such inclusion can be shown).
 *
 * @example
 * compareReach({ id: 'a', action: 'allow', tool: 'write_file' }, { id: 'b', action: 'deny', category: 'write' });
 * // 'narrower'
 */
export function compareReach(rule: PolicyRule, other: PolicyRule): Comparison {
  let narrower = false;
  const note = (result: Comparison): boolean => {
    if (result === 'narrower') narrower = true;
    return result !== 'wider';
  };
  if (!note(compareTargets(rule, other))) return 'wider';
  if (!note(compareNames(urisOf(rule), urisOf(other), true))) return 'wider';
  const ruleTools = meaningful(rule.tool);
  const otherTools = meaningful(other.tool);
  if (!note(compareNames(ruleTools, otherTools, true))) return 'wider';
  const exactTools = ruleTools?.every((name) => !hasWildcard(name));
  const ruleCategories = listOf(rule.category);
  const otherCategories = listOf(other.category);
  if (otherCategories.length > 0) {
    if (ruleCategories.length > 0) {
      if (!ruleCategories.every((category) => otherCategories.includes(category))) return 'wider';
      note(ruleCategories.length < otherCategories.length ? 'narrower' : 'same');
    } else if (exactTools === true) note('narrower');
    else return 'wider';
  } else if (ruleCategories.length > 0) note('narrower');
  // An allow that names tools covers local tools only; that alone does not make it narrower than a
  // rule that names no source (the two would be the same rule over again).
  const otherSources = meaningful(effectiveSource(other));
  const ruleSources = meaningful(otherSources === undefined ? rule.source : effectiveSource(rule));
  if (!note(compareNames(ruleSources, otherSources, false))) return 'wider';
  if (!note(comparePrincipal(rule.principal, other.principal))) return 'wider';
  const ruleArguments = rule.arguments ?? {};
  const otherArguments = other.arguments ?? {};
  for (const [path, condition] of Object.entries(otherArguments)) {
    const own = Object.hasOwn(ruleArguments, path) ? ruleArguments[path] : undefined;
    if (!own || !note(compareConditions(own, condition))) return 'wider';
  }
  const extra = Object.entries(ruleArguments).filter(([path]) => !Object.hasOwn(otherArguments, path));
  if (extra.some(([, condition]) => !vacuous(condition))) note('narrower');
  if (other.when !== undefined && rule.when !== other.when) return 'wider';
  if (rule.when !== undefined && other.when === undefined) note('narrower');
  return narrower ? 'narrower' : 'same';
}

/** How one rule's reach compares with another's. */
export type Comparison = 'narrower' | 'same' | 'wider';

// Patterns that constrain something: a bare `*` (or `**`) is the same as no pattern.
function meaningful(patterns: string | readonly string[] | undefined): readonly string[] | undefined {
  const list = listOf(patterns).filter((pattern) => !/^\*+$/.test(pattern));
  return list.length === 0 ? undefined : list;
}

function compareNames(
  rule: readonly string[] | undefined,
  deny: readonly string[] | undefined,
  fold: boolean,
): Comparison {
  if (deny === undefined) return rule === undefined ? 'same' : 'narrower';
  if (rule === undefined) return 'wider';
  const read = (name: string) => (fold ? foldName(name) : name);
  const denyMatchers = deny.map((pattern) => compileGlob(read(pattern)));
  let same = rule.length === deny.length;
  for (const name of rule) {
    if (deny.includes(name)) continue;
    same = false;
    if (hasWildcard(name) || !denyMatchers.some((match) => match(read(name)))) return 'wider';
  }
  return same && deny.every((name) => rule.includes(name)) ? 'same' : 'narrower';
}

function compareConditions(rule: ArgumentCondition, other: ArgumentCondition): Comparison {
  // Narrower only when the rule's values are inside the other's and not the other way round: two
  // spellings of one test (`docs/` and `docs`, `equals` and a `oneOf` of that value) are the same.
  if (!within(rule, other)) return 'wider';
  return within(other, rule) ? 'same' : 'narrower';
}

// Whether every value `inner` holds for, `outer` holds for too (shown on the tests as written;
// false where it cannot be shown).
function within(inner: ArgumentCondition, outer: ArgumentCondition): boolean {
  if ('under' in outer) {
    const folders = listOf(outer.under).map(folderKey);
    if ('under' in inner) {
      return listOf(inner.under).every((folder) =>
        folders.some((folderOut) => inside(folderKey(folder), folderOut)),
      );
    }
    if ('glob' in inner) {
      return listOf(inner.glob).every((pattern) => {
        const prefix = literalFolder(pattern);
        return prefix !== undefined && folders.some((folderOut) => inside(prefix, folderOut));
      });
    }
    return false;
  }
  if ('glob' in outer) {
    const patterns = listOf(outer.glob);
    const matchers = patterns.map((pattern) => compileGlob(pattern));
    if ('glob' in inner) {
      return listOf(inner.glob).every(
        (pattern) =>
          patterns.includes(pattern) ||
          patterns.includes('**') ||
          (!hasWildcard(pattern) && matchers.some((match) => match(pattern))) ||
          coveringFolders(patterns).some((folder) => {
            const prefix = literalFolder(pattern);
            return prefix !== undefined && inside(prefix, folder);
          }),
      );
    }
    if ('under' in inner) {
      const covering = coveringFolders(patterns);
      return listOf(inner.under).every((folder) =>
        covering.some((folderOut) => inside(folderKey(folder), folderOut)),
      );
    }
    if ('equals' in inner) {
      return typeof inner.equals === 'string' && matchers.some((match) => match(inner.equals as string));
    }
    return false;
  }
  const allowed: readonly JsonScalar[] =
    'equals' in outer ? [outer.equals] : 'oneOf' in outer ? outer.oneOf : [];
  // Compared as the gate compares them: strictly, so 1 and "1" differ.
  if ('equals' in inner) return allowed.some((value) => value === inner.equals);
  if ('oneOf' in inner) return inner.oneOf.every((value) => allowed.some((option) => option === value));
  return false;
}

// A test every value passes (`glob: "**"`) constrains nothing.
function vacuous(condition: ArgumentCondition): boolean {
  return 'glob' in condition && listOf(condition.glob).includes('**');
}

// The folders a glob set covers whole: `folder/**` covers the folder, `**` everything.
function coveringFolders(patterns: readonly string[]): string[][] {
  return patterns.flatMap((pattern) => {
    if (pattern === '**') return [['.'], ['/'], ['~']];
    const match = /^(.*)\/\*\*$/.exec(pattern);
    return match && !hasWildcard(match[1]!) ? [folderKey(match[1]!)] : [];
  });
}

// A folder as written, as a comparable key: absolute folders as they are, `~/` and relative ones
// marked so that only folders written the same way are compared.
function folderKey(folder: string): string[] {
  const spelling = folder.normalize('NFC');
  if (spelling.startsWith('/')) return ['/', ...absoluteSegments(spelling)];
  if (spelling === '~' || spelling.startsWith('~/')) return ['~', ...absoluteSegments(spelling.slice(1))];
  return ['.', ...absoluteSegments(`/${spelling}`)];
}

// The literal folder a glob stays under (`docs/**/*.md` stays under `docs`), if any.
function literalFolder(pattern: string): string[] | undefined {
  const segments = pattern.split('/');
  const literal: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (hasWildcard(segment)) break;
    literal.push(segment);
  }
  if (literal.length === 0 || literal.every((segment) => segment === '')) return undefined;
  return folderKey(literal.join('/') || '/');
}

function inside(folder: readonly string[], outer: readonly string[]): boolean {
  return outer.length <= folder.length && outer.every((segment, index) => folder[index] === segment);
}

function listOf<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

// What a rule decides on, compared as sets: a subset is narrower, the same set the same.
function compareTargets(rule: PolicyRule, other: PolicyRule): Comparison {
  const own = new Set(targetsOf(rule));
  const others = new Set(targetsOf(other));
  if (![...own].every((target) => others.has(target))) return 'wider';
  return own.size < others.size ? 'narrower' : 'same';
}

// A rule's URI globs as compared: scheme lowercased; a glob of only `*` says nothing.
function urisOf(rule: PolicyRule): readonly string[] | undefined {
  return meaningful(listOf(rule.uri).map(uriPattern));
}
