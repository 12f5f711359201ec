import { CATEGORY_DEFAULTS } from '../contract/index.js';
import { principalOf } from '../dispatch/tool-identity.js';
import { isCarveOut } from './carve-out.js';
import { testCondition } from './conditions.js';
import { foldName } from './fold-name.js';
import { compileGlob, type GlobMatcher, hasWildcard } from './glob.js';
import { defaultReadingContext, type ReadingContext } from './path-readings.js';
import {
  type ArgumentCondition,
  effectiveSource,
  LOCAL_SOURCE,
  POLICY_ACTIONS,
  type Policy,
  type PolicyAction,
  type PolicyRule,
  type PolicySubject,
  type PolicyTarget,
  stricter,
  targetsOf,
} from './policy.js';
import { compilePrincipalCondition, type PrincipalMatcher } from './principal-condition.js';
import { uriPattern, uriSpellings } from './uri-readings.js';

/** What the policy decided, before approvals and the sandbox check. */
export interface PolicyVerdict {
  readonly action: PolicyAction;
  /** The rule that decided, or `default:<category>` / `default:imported` when none matched. */
  readonly rule: string;
  readonly reason: string;
}

/**
 * Decides one call by the policy's precedence (see {@link Policy}). A matching deny decides unless
 * a matching allow or ask rule is a carve-out of it: narrower in every field the deny constrains
 * (see {@link isCarveOut}). Otherwise, or among carve-outs, the most specific matching rule wins,
 * ask before allow at equal specificity, then the first in order. Pure and synchronous; a `when`
 * predicate that throws counts as matching for a deny or ask rule and as not matching for an allow
 * rule. Path tests read relative paths against `context`'s roots.
 *
 * @example
 * evaluatePolicy(policy, { tool: 'write_file', category: 'write', source: 'local',
 *   arguments: { path: 'docs/a.md' }, meta: {}, state: undefined });
 * // { action: 'allow', rule: 'docs-writable', reason: '…' }
 */
export function evaluatePolicy(
  policy: Policy,
  subject: PolicySubject,
  context?: ReadingContext,
): PolicyVerdict {
  const { denies, others } = compile(policy);
  const readIn = context ?? fallbackContext();
  let deny: CompiledRule | undefined;
  let matchedDenies: number[] | undefined;
  for (const compiled of denies) {
    if (!matches(compiled, subject, readIn)) continue;
    matchedDenies ??= [];
    matchedDenies.push(compiled.index);
    if (!deny || compareRanks(compiled.rank, deny.rank) > 0) deny = compiled;
  }
  let best: CompiledRule | undefined;
  for (const compiled of others) {
    if (best && compareRanks(compiled.rank, best.rank) <= 0) continue;
    if (matchedDenies && !matchedDenies.every((index) => compiled.carvesOut.has(index))) continue;
    if (matches(compiled, subject, readIn)) best = compiled;
  }
  const decided = best ?? deny;
  if (decided) {
    return {
      action: decided.rule.action,
      rule: decided.rule.id,
      reason: decided.rule.reason ?? describeRule(decided.rule, subject.tool),
    };
  }
  if (subject.target === 'sampling') {
    return {
      action: 'ask',
      rule: 'default:sampling',
      reason: `no rule covers a sampling request from ${subject.source}, and one asks by default`,
    };
  }
  if (categoryUntrusted(subject)) {
    const imported = policy.importedDefault ?? 'ask';
    return {
      action: imported,
      rule: 'default:imported',
      reason: `"${subject.tool}" comes from ${subject.source}, no rule covers it, and its category is only what its server says about it (configure one to apply that category's default)`,
    };
  }
  const categoryDefault =
    policy.defaults?.[subject.category] ?? CATEGORY_DEFAULTS[subject.category].permission;
  if (subject.source !== LOCAL_SOURCE) {
    const imported = stricter(categoryDefault, policy.importedDefault ?? 'ask');
    if (imported !== categoryDefault) {
      return {
        action: imported,
        rule: 'default:imported',
        reason: `"${subject.tool}" comes from ${subject.source}, and no rule covers that source; what its server claims about it does not loosen the local policy`,
      };
    }
  }
  return {
    action: categoryDefault,
    rule: `default:${subject.category}`,
    reason: `the default for ${subject.category} ${subject.target && subject.target !== 'tool' ? `${subject.target}s` : 'tools'} is ${categoryDefault}`,
  };
}

/**
 * Whether some call of a tool by this caller could be anything but denied, whatever its arguments:
 * false only when every path for the caller ends in deny (a deny that holds whatever the arguments,
 * with no allow or ask rule that may match and carve it out, or a default of deny that no allow or
 * ask rule may override). Judged without the arguments, failing open: a rule that tests arguments
 * or has a `when` may match. What a listing per caller uses; the gate still decides every call.
 *
 * @example
 * mayPass(policy, { tool: 'deploy', category: 'execute', source: 'local', meta: {}, state });
 */
export function mayPass(policy: Policy, subject: Omit<PolicySubject, 'arguments'>): boolean {
  const { denies, others } = compile(policy);
  const whole = { ...subject, arguments: undefined };
  const certain: number[] = [];
  for (const compiled of denies) {
    if (
      compiled.conditions.length === 0 &&
      !compiled.uri &&
      !compiled.rule.when &&
      matchesCall(compiled, whole)
    ) {
      certain.push(compiled.index);
    }
  }
  for (const compiled of others) {
    if (!certain.every((index) => compiled.carvesOut.has(index))) continue;
    if (matchesCall(compiled, whole)) return true;
  }
  if (certain.length > 0) return false;
  return evaluatePolicy({ ...policy, rules: [] }, whole).action !== 'deny';
}

// Whether a rule matches a call on everything but its arguments and its `when` (both may match).
function matchesCall(compiled: CompiledRule, subject: PolicySubject): boolean {
  if (!compiled.targets.includes(subject.target ?? 'tool')) return false;
  const broad = compiled.broad;
  if (compiled.categories && !compiled.categories.includes(subject.category)) {
    if (!(broad && categoryUntrusted(subject))) return false;
  } else if (compiled.categories && !broad && categoryUntrusted(subject)) return false;
  if (compiled.tool && !matchesName(compiled.tool, subject.tool, broad)) return false;
  if (compiled.source && !matchesName(compiled.source, subject.source, broad)) return false;
  return !compiled.principal || compiled.principal(principalOf(subject.state));
}

let fallback: ReadingContext | undefined;
function fallbackContext(): ReadingContext {
  fallback ??= defaultReadingContext();
  return fallback;
}

/** A rule with its matchers built and its rank known, made once per policy. */
interface CompiledRule {
  readonly rule: PolicyRule;
  /** Its place in the policy. */
  readonly index: number;
  /** Specificity, then severity: the higher rank decides. */
  readonly rank: readonly number[];
  /** Deny and ask rules read names and values broadly, allow rules narrowly. */
  readonly broad: boolean;
  /** What the rule decides on. */
  readonly targets: readonly PolicyTarget[];
  /** Globs on a resource's URI (lowercased for a broad rule). */
  readonly uri: GlobMatcher[] | undefined;
  readonly tool: GlobMatcher[] | undefined;
  readonly source: GlobMatcher[] | undefined;
  readonly categories: readonly string[] | undefined;
  readonly conditions: readonly (readonly [readonly string[], ArgumentCondition])[];
  readonly principal: PrincipalMatcher | undefined;
  /** The deny rules (by index) this allow or ask rule is a carve-out of. */
  readonly carvesOut: ReadonlySet<number>;
}

interface CompiledPolicy {
  readonly denies: readonly CompiledRule[];
  /** Allow and ask rules, most decisive first, so the search can stop at the first match. */
  readonly others: readonly CompiledRule[];
}

const compiledPolicies = new WeakMap<Policy, CompiledPolicy>();

function compile(policy: Policy): CompiledPolicy {
  let compiled = compiledPolicies.get(policy);
  if (!compiled) {
    const denies = policy.rules
      .map((rule, index) => [rule, index] as const)
      .filter(([rule]) => rule.action === 'deny');
    const rules = policy.rules.map((rule, index): CompiledRule => {
      const broad = rule.action !== 'allow';
      const matchers = (patterns: readonly string[]) =>
        patterns.map((pattern) => compileGlob(broad ? foldName(pattern) : pattern));
      const source = effectiveSource(rule);
      return {
        rule,
        index,
        rank: [...specificity(rule), POLICY_ACTIONS.indexOf(rule.action)],
        broad,
        targets: targetsOf(rule),
        uri:
          rule.uri === undefined
            ? undefined
            : listOf(rule.uri).map((pattern) => {
                const spelling = uriPattern(pattern);
                return compileGlob(broad ? spelling.toLowerCase() : spelling);
              }),
        tool: rule.tool === undefined ? undefined : matchers(listOf(rule.tool)),
        source: source === undefined ? undefined : matchers(source),
        categories: rule.category === undefined ? undefined : listOf(rule.category),
        conditions: Object.entries(rule.arguments ?? {}).map(
          ([path, condition]) => [path.split('.'), condition] as const,
        ),
        principal:
          rule.principal === undefined ? undefined : compilePrincipalCondition(rule.principal, broad),
        carvesOut: new Set(
          rule.action === 'deny'
            ? []
            : denies.filter(([deny]) => isCarveOut(rule, deny)).map(([, otherIndex]) => otherIndex),
        ),
      };
    });
    compiled = {
      denies: rules.filter((rule) => rule.rule.action === 'deny'),
      others: rules
        .filter((rule) => rule.rule.action !== 'deny')
        .sort((a, b) => compareRanks(b.rank, a.rank) || a.index - b.index),
    };
    compiledPolicies.set(policy, compiled);
  }
  return compiled;
}

/**
 * How specific a rule is, compared left to right: the tool name (exact 2, glob 1), a source, the
 * number of argument tests (a `when` counts as one), a principal test, a category. Wildcard-only
 * globs (`*`) count as absent.
 *
 * @example
 * specificity({ id: 'docs', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } });
 * // [2, 0, 1, 0, 0]
 */
export function specificity(rule: PolicyRule): readonly number[] {
  const tools = listOf(rule.tool).filter((pattern) => !/^\*+$/.test(pattern));
  const toolScore = tools.length === 0 ? 0 : tools.every((pattern) => !hasWildcard(pattern)) ? 2 : 1;
  const sources = listOf(rule.source).filter((pattern) => !/^\*+$/.test(pattern));
  const argumentScore =
    Object.keys(rule.arguments ?? {}).length + (rule.when ? 1 : 0) + (rule.uri === undefined ? 0 : 1);
  return [
    toolScore,
    sources.length > 0 ? 1 : 0,
    argumentScore,
    rule.principal === undefined ? 0 : 1,
    rule.category === undefined ? 0 : 1,
  ];
}

function matches(compiled: CompiledRule, subject: PolicySubject, context: ReadingContext): boolean {
  // Allow rules are read narrowly, deny and ask rules broadly: an ambiguity can only make a call
  // stricter. An imported tool's category guessed from its server's own hints decides nothing: a
  // deny or ask on a category still holds for it, an allow never does.
  if (!matchesCall(compiled, subject)) return false;
  const broad = compiled.broad;
  if (compiled.uri && !matchesUri(compiled.uri, subject, broad)) return false;
  for (const [keys, condition] of compiled.conditions) {
    if (!testCondition(subject.arguments, keys, condition, broad ? 'any' : 'every', context)) return false;
  }
  const when = compiled.rule.when;
  if (when) {
    try {
      if (when(subject) !== true) return false;
    } catch {
      return broad;
    }
  }
  return true;
}

/**
 * Whether a call's category was guessed from what an imported tool's server says about it
 * (`meta.inferredCategory`, as the MCP importer and the gateway mark a category no configuration
 * gave), rather than given by the configuration. Such a category informs and never decides.
 */
function categoryUntrusted(subject: PolicySubject): boolean {
  return subject.source !== LOCAL_SOURCE && subject.meta.inferredCategory === true;
}

// A broad rule matches a URI when a glob matches any spelling of it; a narrow one, every spelling.
function matchesUri(globs: readonly GlobMatcher[], subject: PolicySubject, broad: boolean): boolean {
  const uri = (subject.arguments as { readonly uri?: unknown } | undefined)?.uri;
  if (typeof uri !== 'string') return false;
  const spellings = uriSpellings(uri);
  return broad
    ? spellings.some((spelling) => globs.some((match) => match(spelling.toLowerCase())))
    : spellings.every((spelling) => globs.some((match) => match(spelling)));
}

function matchesName(matchers: readonly GlobMatcher[], name: string, broad: boolean): boolean {
  const value = broad ? foldName(name) : name;
  return matchers.some((match) => match(value));
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < a.length; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  // Equal ranks: the earlier rule keeps its place.
  return 0;
}

function describeRule(rule: PolicyRule, tool: string): string {
  switch (rule.action) {
    case 'allow':
      return `rule "${rule.id}" allows "${tool}"`;
    case 'ask':
      return `rule "${rule.id}" asks for approval before "${tool}" runs`;
    case 'deny':
      return `rule "${rule.id}" denies "${tool}"`;
    default: {
      const exhaustive: never = rule.action;
      return exhaustive;
    }
  }
}

function listOf<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}
