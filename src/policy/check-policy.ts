import { compareReach, isCarveOut } from './carve-out.js';
import { parsePolicy, parseRule } from './define-policy.js';
import { specificity } from './evaluate-policy.js';
import { POLICY_ACTIONS, type Policy, type PolicyAction, type PolicyRule } from './policy.js';
import { PolicyError } from './policy-error.js';
import { describePrincipal } from './principal-condition.js';

/** What {@link checkPolicy} found about one rule. */
export interface RuleReach {
  readonly id: string;
  readonly action: PolicyAction;
  /**
   * Set when the rule can never decide a call: every call it matches is decided by another rule.
   * `by` names that rule; `why` says how.
   */
  readonly neverDecides?: { readonly by: string; readonly why: string };
  /** The deny rules this allow or ask rule is a carve-out of (it decides inside them). */
  readonly carvesOutOf: readonly string[];
  /** Who the rule holds for, in words, when it tests the caller (`group writers`, `local only`). */
  readonly principal?: string;
}

/** A rule refused at load, with the reason. */
export interface RefusedRule {
  /** The rule's id, or `#<index>` when it has none. */
  readonly rule: string;
  readonly message: string;
}

/** What {@link checkPolicy} reports. */
export interface PolicyCheck {
  /** The policy as loaded, without the refused rules; undefined when the policy itself is unusable. */
  readonly policy: Policy | undefined;
  readonly rules: readonly RuleReach[];
  readonly refused: readonly RefusedRule[];
}

/**
 * Each rule's effective reach under the gate's precedence: the rules that can never decide (every
 * call they match is decided by another rule), the carve-outs and what they carve out of, and the
 * rules refused at load, each with its reason. Unlike `parsePolicy`, which stops at the first
 * refused rule, this reports every one. Judged on the rules' fields, as the precedence is: a `when`
 * predicate is opaque, so a rule with one is never reported as unable to decide because of it.
 *
 * @example
 * const report = checkPolicy(JSON.parse(text), 'policy.json');
 * report.rules.filter((rule) => rule.neverDecides); // rules that only look like they do something
 */
export function checkPolicy(input: unknown, where = 'policy'): PolicyCheck {
  const refused: RefusedRule[] = [];
  let raw: unknown = input;
  if (input !== null && typeof input === 'object' && Array.isArray((input as { rules?: unknown }).rules)) {
    const rules = (input as { rules: unknown[] }).rules;
    const kept: unknown[] = [];
    const ids = new Set<string>();
    rules.forEach((rule, index) => {
      try {
        const id = parseRule(rule, index, where).id;
        if (ids.has(id)) {
          refused.push({
            rule: id,
            message: `${where}: rule #${index} has the id "${id}", which an earlier rule already uses.`,
          });
          return;
        }
        ids.add(id);
        kept.push(rule);
      } catch (error) {
        if (!(error instanceof PolicyError)) throw error;
        refused.push({ rule: error.rule ?? `#${index}`, message: error.message });
      }
    });
    raw = { ...(input as object), rules: kept };
  }
  let policy: Policy;
  try {
    policy = parsePolicy(raw, where);
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    return {
      policy: undefined,
      rules: [],
      refused: [...refused, { rule: error.rule ?? where, message: error.message }],
    };
  }
  const rules = policy.rules.map((rule) => {
    const reach = reachOf(rule, policy.rules);
    return rule.principal === undefined ? reach : { ...reach, principal: describePrincipal(rule.principal) };
  });
  return { policy, rules, refused };
}

function reachOf(rule: PolicyRule, rules: readonly PolicyRule[]): RuleReach {
  const carvesOutOf = rules.filter((other) => isCarveOut(rule, other)).map((other) => other.id);
  const index = rules.indexOf(rule);
  for (const [otherIndex, other] of rules.entries()) {
    if (other === rule) continue;
    const reach = compareReach(rule, other);
    if (reach === 'wider') continue;
    // Every call `rule` matches, `other` matches too. Does `other` then always win?
    if (other.action === 'deny' && rule.action !== 'deny' && !carvesOutOf.includes(other.id)) {
      return {
        id: rule.id,
        action: rule.action,
        neverDecides: {
          by: other.id,
          why: `every call it matches, the deny "${other.id}" matches too, and it is no carve-out of it (it constrains nothing more)`,
        },
        carvesOutOf,
      };
    }
    if ((other.action === 'deny') !== (rule.action === 'deny')) continue;
    if (outranks(other, otherIndex, rule, index)) {
      return {
        id: rule.id,
        action: rule.action,
        neverDecides: {
          by: other.id,
          why: `every call it matches, "${other.id}" matches too and takes precedence (${reach === 'same' ? 'the same criteria' : 'broader criteria'}, ${precedenceWords(other, otherIndex, rule, index)})`,
        },
        carvesOutOf,
      };
    }
  }
  return { id: rule.id, action: rule.action, carvesOutOf };
}

function rank(rule: PolicyRule): number[] {
  return [...specificity(rule), POLICY_ACTIONS.indexOf(rule.action)];
}

function outranks(other: PolicyRule, otherIndex: number, rule: PolicyRule, index: number): boolean {
  const a = rank(other);
  const b = rank(rule);
  for (let position = 0; position < a.length; position++) {
    const difference = (a[position] ?? 0) - (b[position] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  return otherIndex < index;
}

function precedenceWords(other: PolicyRule, otherIndex: number, rule: PolicyRule, index: number): string {
  const a = rank(other);
  const b = rank(rule);
  if (a.join() === b.join()) return otherIndex < index ? 'listed earlier' : 'listed later';
  return a[a.length - 1] !== b[b.length - 1] && a.slice(0, -1).join() === b.slice(0, -1).join()
    ? `${other.action} before ${rule.action}`
    : 'more specific';
}
