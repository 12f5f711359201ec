import { CATEGORY_DEFAULTS } from '../contract/index.js';
import { testCondition } from './conditions.js';
import { foldName } from './fold-name.js';
import { compileGlob, type GlobMatcher, hasWildcard } from './glob.js';
import {
  type ArgumentCondition,
  LOCAL_SOURCE,
  POLICY_ACTIONS,
  type Policy,
  type PolicyAction,
  type PolicyRule,
  type PolicySubject,
  stricter,
} from './policy.js';

/** What the policy decided, before approvals and the sandbox check. */
export interface PolicyVerdict {
  readonly action: PolicyAction;
  /** The rule that decided, or `default:<category>` / `default:imported` when none matched. */
  readonly rule: string;
  readonly reason: string;
}

/**
 * Decides one call by the policy's precedence (see {@link Policy}): the most specific matching rule,
 * then the most severe action, then the first in order. Pure and synchronous; a `when` predicate
 * that throws counts as matching for a deny or ask rule and as not matching for an allow rule.
 *
 * @example
 * evaluatePolicy(policy, { tool: 'write_file', category: 'write', source: 'local',
 *   arguments: { path: 'docs/a.md' }, meta: {}, state: undefined });
 * // { action: 'allow', rule: 'docs-writable', reason: '…' }
 */
export function evaluatePolicy(policy: Policy, subject: PolicySubject): PolicyVerdict {
  let best: CompiledRule | undefined;
  for (const compiled of compile(policy)) {
    if (best && compareRanks(compiled.rank, best.rank) <= 0) continue;
    if (matches(compiled, subject)) best = compiled;
  }
  if (best) {
    return {
      action: best.rule.action,
      rule: best.rule.id,
      reason: best.rule.reason ?? describeRule(best.rule, subject.tool),
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
    reason: `the default for ${subject.category} tools is ${categoryDefault}`,
  };
}

/** A rule with its matchers built and its rank known, made once per policy. */
interface CompiledRule {
  readonly rule: PolicyRule;
  /** Specificity, then severity: the higher rank decides. */
  readonly rank: readonly number[];
  /** Deny and ask rules read names and values broadly, allow rules narrowly. */
  readonly broad: boolean;
  readonly tool: GlobMatcher[] | undefined;
  readonly source: GlobMatcher[] | undefined;
  readonly categories: readonly string[] | undefined;
  readonly conditions: readonly (readonly [readonly string[], ArgumentCondition])[];
}

const compiledPolicies = new WeakMap<Policy, readonly CompiledRule[]>();

function compile(policy: Policy): readonly CompiledRule[] {
  let compiled = compiledPolicies.get(policy);
  if (!compiled) {
    compiled = policy.rules.map((rule) => {
      const broad = rule.action !== 'allow';
      const matchers = (patterns: readonly string[]) =>
        patterns.map((pattern) => compileGlob(broad ? foldName(pattern) : pattern));
      return {
        rule,
        rank: [...specificity(rule), POLICY_ACTIONS.indexOf(rule.action)],
        broad,
        tool: rule.tool === undefined ? undefined : matchers(listOf(rule.tool)),
        source: rule.source === undefined ? undefined : matchers(listOf(rule.source)),
        categories: rule.category === undefined ? undefined : listOf(rule.category),
        conditions: Object.entries(rule.arguments ?? {}).map(
          ([path, condition]) => [path.split('.'), condition] as const,
        ),
      };
    });
    compiledPolicies.set(policy, compiled);
  }
  return compiled;
}

/**
 * How specific a rule is, compared left to right: the tool name (exact 2, glob 1), a source, the
 * number of argument tests (a `when` counts as one), a category. Wildcard-only globs (`*`) count as absent.
 *
 * @example
 * specificity({ id: 'docs', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } });
 * // [2, 0, 1, 0]
 */
export function specificity(rule: PolicyRule): readonly number[] {
  const tools = listOf(rule.tool).filter((pattern) => !/^\*+$/.test(pattern));
  const toolScore = tools.length === 0 ? 0 : tools.every((pattern) => !hasWildcard(pattern)) ? 2 : 1;
  const sources = listOf(rule.source).filter((pattern) => !/^\*+$/.test(pattern));
  const argumentScore = Object.keys(rule.arguments ?? {}).length + (rule.when ? 1 : 0);
  return [toolScore, sources.length > 0 ? 1 : 0, argumentScore, rule.category === undefined ? 0 : 1];
}

function matches(compiled: CompiledRule, subject: PolicySubject): boolean {
  // Allow rules are read narrowly, deny and ask rules broadly: an ambiguity can only make a call stricter.
  const broad = compiled.broad;
  if (compiled.categories && !compiled.categories.includes(subject.category)) return false;
  if (compiled.tool && !matchesName(compiled.tool, subject.tool, broad)) return false;
  if (compiled.source && !matchesName(compiled.source, subject.source, broad)) return false;
  for (const [keys, condition] of compiled.conditions) {
    if (!testCondition(subject.arguments, keys, condition, broad ? 'any' : 'every')) return false;
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
