import { CATEGORIES, isToolCategory } from '../contract/index.js';
import { typoOf } from '../util/closest.js';
import { hasWildcard } from './glob.js';
import {
  type ArgumentCondition,
  type DeciderCondition,
  POLICY_ACTIONS,
  POLICY_TARGETS,
  type Policy,
  type PolicyAction,
  type PolicyRule,
  type PolicyTarget,
  PRINCIPAL_FIELDS,
  type PrincipalCondition,
} from './policy.js';
import { PolicyError } from './policy-error.js';

const RULE_KEYS = new Set([
  'id',
  'action',
  'tool',
  'target',
  'uri',
  'category',
  'source',
  'arguments',
  'principal',
  'when',
  'reason',
  'approver',
  'decidedBy',
]);
const POLICY_KEYS = new Set([
  'rules',
  'defaults',
  'importedDefault',
  'approvals',
  'auditFailure',
  '$schema',
  'description',
]);
const CONDITION_KEYS = ['under', 'glob', 'equals', 'oneOf'] as const;
const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/**
 * Checks a policy and returns it frozen. Anything that cannot work throws a {@link PolicyError}
 * naming the rule and the field: an unknown action or category, an empty glob, a condition with
 * none or several tests, a duplicate id, an unknown key (a typo such as `"tools"` would otherwise
 * silently match every tool). `where` prefixes messages (e.g. the file name).
 *
 * @example
 * const policy = definePolicy({
 *   rules: [{ id: 'no-mcp-writes', action: 'deny', source: 'mcp:*', category: 'write' }],
 * });
 */
export function definePolicy(input: Policy, where = 'policy'): Policy {
  return checked.has(input) ? input : parsePolicy(input, where);
}

// Policies that came out of the checks, so the gate can take any policy and check each only once.
const checked = new WeakSet<Policy>();

/**
 * The same checks as {@link definePolicy}, for a value of unknown shape (parsed JSON, a config section).
 *
 * @example
 * const policy = parsePolicy(JSON.parse(text), 'policy.json');
 */
export function parsePolicy(input: unknown, where = 'policy'): Policy {
  if (!isRecord(input)) {
    throw new PolicyError(
      'not_an_object',
      `${where} must be an object such as { "rules": [ ... ] }, received ${describe(input)}.`,
    );
  }
  for (const key of Object.keys(input)) {
    if (!POLICY_KEYS.has(key)) {
      throw new PolicyError(
        'unknown_key',
        `${where} has an unknown key "${key}".${didYouMean(key, POLICY_KEYS)} A policy has "rules", "defaults", "importedDefault", "approvals" and "auditFailure".`,
      );
    }
  }
  const rawRules = input.rules ?? [];
  if (!Array.isArray(rawRules)) {
    throw new PolicyError(
      'invalid_rule',
      `${where}: "rules" must be an array, received ${describe(rawRules)}.`,
    );
  }
  const ids = new Set<string>();
  const rules = rawRules.map((raw, index) => {
    const rule = parseRule(raw, index, where);
    if (ids.has(rule.id)) {
      throw new PolicyError(
        'duplicate_rule_id',
        `${where}: rule #${index} has the id "${rule.id}", which an earlier rule already uses. Give each rule its own id; decisions name it.`,
        rule.id,
      );
    }
    ids.add(rule.id);
    return rule;
  });
  const policy: { -readonly [K in keyof Policy]: Policy[K] } = { rules: Object.freeze(rules) };
  if (input.defaults !== undefined) policy.defaults = parseDefaults(input.defaults, where);
  if (input.importedDefault !== undefined) {
    policy.importedDefault = parseAction(input.importedDefault, `${where}: "importedDefault"`, undefined);
  }
  if (input.approvals !== undefined) policy.approvals = parseApprovals(input.approvals, where);
  if (input.auditFailure !== undefined) {
    if (input.auditFailure !== 'fail' && input.auditFailure !== 'warn') {
      throw new PolicyError(
        'invalid_defaults',
        `${where}: "auditFailure" must be "fail" or "warn", received ${describe(input.auditFailure)}.`,
      );
    }
    policy.auditFailure = input.auditFailure;
  }
  const result = Object.freeze(policy);
  checked.add(result);
  return result;
}

/**
 * Checks one rule of a policy (`index` is its place, for the messages); throws a
 * {@link PolicyError} as {@link parsePolicy} would.
 *
 * @example
 * parseRule({ id: 'no-shell', action: 'deny', category: 'execute' }, 0, 'policy.json');
 */
export function parseRule(raw: unknown, index: number, where: string): PolicyRule {
  const label = (id?: string) => `${where}: rule #${index}${id ? ` ("${id}")` : ''}`;
  if (!isRecord(raw)) {
    throw new PolicyError(
      'invalid_rule',
      `${label()} must be an object, received ${describe(raw)}.`,
      `#${index}`,
    );
  }
  const id = raw.id;
  if (typeof id !== 'string' || !RULE_ID.test(id)) {
    throw new PolicyError(
      'invalid_rule',
      `${label()} needs an "id" of 1 to 64 letters, digits, "_", ".", ":" or "-", received ${describe(id)}.`,
      `#${index}`,
    );
  }
  const at = label(id);
  for (const key of Object.keys(raw)) {
    if (!RULE_KEYS.has(key)) {
      throw new PolicyError(
        'unknown_key',
        `${at} has an unknown key "${key}".${didYouMean(key, RULE_KEYS)} Rule keys: ${[...RULE_KEYS].join(', ')}.`,
        id,
      );
    }
  }
  const rule: { -readonly [K in keyof PolicyRule]: PolicyRule[K] } = {
    id,
    action: parseAction(raw.action, `${at}: "action"`, id),
  };
  if (raw.tool !== undefined) rule.tool = parsePatterns(raw.tool, `${at}: "tool"`, id);
  if (raw.source !== undefined) rule.source = parsePatterns(raw.source, `${at}: "source"`, id);
  if (raw.target !== undefined) {
    const targets = Array.isArray(raw.target) ? raw.target : [raw.target];
    if (
      targets.length === 0 ||
      !targets.every((target) => (POLICY_TARGETS as readonly unknown[]).includes(target))
    ) {
      throw new PolicyError(
        'invalid_rule',
        `${at}: "target" must be one or more of ${POLICY_TARGETS.join(', ')}, received ${JSON.stringify(raw.target)}.`,
        id,
      );
    }
    rule.target = Object.freeze([...new Set(targets as PolicyTarget[])]);
  }
  if (raw.uri !== undefined) {
    const uris = parsePatterns(raw.uri, `${at}: "uri"`, id);
    const schemeless = uris.find((pattern) => !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(pattern));
    if (schemeless !== undefined) {
      throw new PolicyError(
        'invalid_rule',
        `${at}: "uri" globs match whole resource URIs, so each starts with its scheme ("file:///srv/**", "notes://drafts/*"), received ${JSON.stringify(schemeless)}.`,
        id,
      );
    }
    if (rule.target !== undefined && !rule.target.includes('resource')) {
      throw new PolicyError(
        'invalid_rule',
        `${at}: "uri" tests resource reads, but "target" is ${JSON.stringify(rule.target)}; add "resource" to "target" or drop "uri".`,
        id,
      );
    }
    rule.uri = uris;
  }
  if (raw.category !== undefined) {
    const categories = Array.isArray(raw.category) ? raw.category : [raw.category];
    if (categories.length === 0 || !categories.every(isToolCategory)) {
      throw new PolicyError(
        'invalid_rule',
        `${at}: "category" must be one or more of ${CATEGORIES.join(', ')}, received ${JSON.stringify(raw.category)}.`,
        id,
      );
    }
    rule.category = Object.freeze([...categories]);
  }
  if (raw.arguments !== undefined) rule.arguments = parseArgumentConditions(raw.arguments, at, id);
  if (raw.principal !== undefined) rule.principal = parsePrincipal(raw.principal, at, id);
  if (raw.when !== undefined) {
    if (typeof raw.when !== 'function') {
      throw new PolicyError(
        'invalid_rule',
        `${at}: "when" must be a function (available in code, not in JSON), received ${describe(raw.when)}.`,
        id,
      );
    }
    rule.when = raw.when as PolicyRule['when'];
  }
  if (raw.reason !== undefined) {
    if (typeof raw.reason !== 'string' || raw.reason.trim() === '') {
      throw new PolicyError('invalid_rule', `${at}: "reason" must be a non-empty string.`, id);
    }
    rule.reason = raw.reason;
  }
  if (raw.approver !== undefined) {
    if (raw.approver !== 'queue' && raw.approver !== 'in-band' && raw.approver !== 'caller') {
      throw new PolicyError(
        'invalid_rule',
        `${at}: "approver" must be "queue" (a person decides later, from the store's queue), "in-band" (the client asks its user; for an authenticated caller the ask goes to the queue) or "caller" (the client approves its own call, authenticated or not), received ${describe(raw.approver)}.`,
        id,
      );
    }
    if (rule.action !== 'ask') {
      throw new PolicyError(
        'invalid_rule',
        `${at}: "approver" applies only to a rule whose action is "ask", and this one's is "${rule.action}".`,
        id,
      );
    }
    rule.approver = raw.approver;
  }
  if (raw.decidedBy !== undefined) {
    if (rule.action !== 'ask') {
      throw new PolicyError(
        'invalid_rule',
        `${at}: "decidedBy" applies only to a rule whose action is "ask", and this one's is "${rule.action}".`,
        id,
      );
    }
    rule.decidedBy = parseDecidedBy(raw.decidedBy, at, id);
  }
  return Object.freeze(rule);
}

const PRINCIPAL_KEYS = [...PRINCIPAL_FIELDS, 'local'];

function parsePrincipal(value: unknown, at: string, rule: string): PrincipalCondition {
  const here = `${at}: "principal"`;
  if (!isRecord(value)) {
    throw new PolicyError(
      'invalid_rule',
      `${here} must be an object such as { "group": "writers" }, received ${describe(value)}.`,
      rule,
    );
  }
  refuseUnknownKeys(value, PRINCIPAL_KEYS, here, rule);
  const condition: { -readonly [K in keyof PrincipalCondition]: PrincipalCondition[K] } = {};
  for (const field of PRINCIPAL_FIELDS) {
    if (value[field] !== undefined)
      condition[field] = parsePatterns(value[field], `${here}: "${field}"`, rule);
  }
  if (value.local !== undefined) {
    if (typeof value.local !== 'boolean') {
      throw new PolicyError(
        'invalid_rule',
        `${here}: "local" must be true (the rule holds for calls nobody authenticated too) or false, received ${describe(value.local)}.`,
        rule,
      );
    }
    condition.local = value.local;
  }
  return Object.freeze(condition);
}

const DECIDED_BY_KEYS = ['group', 'notCaller'];

function refuseUnknownKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  here: string,
  rule: string,
): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw new PolicyError(
        'unknown_key',
        `${here} has an unknown key "${key}".${didYouMean(key, known)} It has: ${known.join(', ')}.`,
        rule,
      );
    }
  }
}

function parseDecidedBy(value: unknown, at: string, rule: string): DeciderCondition {
  const here = `${at}: "decidedBy"`;
  if (!isRecord(value) || Object.keys(value).length === 0) {
    throw new PolicyError(
      'invalid_rule',
      `${here} must be an object such as { "group": "leads", "notCaller": true }, received ${describe(value)}.`,
      rule,
    );
  }
  refuseUnknownKeys(value, DECIDED_BY_KEYS, here, rule);
  const condition: { -readonly [K in keyof DeciderCondition]: DeciderCondition[K] } = {};
  if (value.group !== undefined) condition.group = parsePatterns(value.group, `${here}: "group"`, rule);
  if (value.notCaller !== undefined) {
    if (typeof value.notCaller !== 'boolean') {
      throw new PolicyError(
        'invalid_rule',
        `${here}: "notCaller" must be true or false, received ${describe(value.notCaller)}.`,
        rule,
      );
    }
    condition.notCaller = value.notCaller;
  }
  return Object.freeze(condition);
}

const APPROVALS_KEYS = ['whenClientCannotAsk', 'expiresIn'];

function parseApprovals(value: unknown, where: string): NonNullable<Policy['approvals']> {
  const at = `${where}: "approvals"`;
  if (!isRecord(value)) {
    throw new PolicyError(
      'invalid_defaults',
      `${at} must be an object such as { "whenClientCannotAsk": "queue", "expiresIn": "24h" }, received ${describe(value)}.`,
    );
  }
  for (const key of Object.keys(value)) {
    if (!APPROVALS_KEYS.includes(key)) {
      throw new PolicyError(
        'unknown_key',
        `${at} has an unknown key "${key}".${didYouMean(key, APPROVALS_KEYS)} It has: ${APPROVALS_KEYS.join(', ')}.`,
      );
    }
  }
  const approvals: {
    -readonly [K in keyof NonNullable<Policy['approvals']>]: NonNullable<Policy['approvals']>[K];
  } = {};
  if (value.whenClientCannotAsk !== undefined) {
    if (value.whenClientCannotAsk !== 'queue' && value.whenClientCannotAsk !== 'deny') {
      throw new PolicyError(
        'invalid_defaults',
        `${at}: "whenClientCannotAsk" must be "queue" or "deny", received ${describe(value.whenClientCannotAsk)}.`,
      );
    }
    approvals.whenClientCannotAsk = value.whenClientCannotAsk;
  }
  if (value.expiresIn !== undefined) {
    const match = typeof value.expiresIn === 'string' ? /^(\d+)(m|h|d)$/.exec(value.expiresIn) : null;
    if (!match || Number(match[1]) <= 0) {
      throw new PolicyError(
        'invalid_defaults',
        `${at}: "expiresIn" must be a duration such as "30m", "24h" or "7d", received ${describe(value.expiresIn)}.`,
      );
    }
    approvals.expiresIn = value.expiresIn as string;
  }
  return Object.freeze(approvals);
}

function parseAction(value: unknown, at: string, rule: string | undefined): PolicyAction {
  if (typeof value === 'string' && (POLICY_ACTIONS as readonly string[]).includes(value)) {
    return value as PolicyAction;
  }
  throw new PolicyError(
    rule === undefined ? 'invalid_defaults' : 'invalid_rule',
    `${at} must be "allow", "ask" or "deny", received ${describe(value)}.`,
    rule,
  );
}

function parsePatterns(value: unknown, at: string, rule: string): readonly string[] {
  const patterns = Array.isArray(value) ? value : [value];
  const bad = patterns.findIndex((pattern) => typeof pattern !== 'string' || pattern.trim() === '');
  if (patterns.length === 0 || bad >= 0) {
    throw new PolicyError(
      'invalid_rule',
      `${at} must be a glob or a non-empty array of globs (non-empty strings), received ${JSON.stringify(value)}.`,
      rule,
    );
  }
  return Object.freeze([...(patterns as string[])]);
}

function parseArgumentConditions(
  value: unknown,
  at: string,
  rule: string,
): { readonly [path: string]: ArgumentCondition } {
  if (!isRecord(value) || Object.keys(value).length === 0) {
    throw new PolicyError(
      'invalid_rule',
      `${at}: "arguments" must map argument paths to tests, e.g. { "path": { "under": "docs" } }, received ${describe(value)}.`,
      rule,
    );
  }
  const conditions: Record<string, ArgumentCondition> = {};
  for (const [path, raw] of Object.entries(value)) {
    const here = `${at}: argument "${path}"`;
    if (path === '' || path.split('.').some((key) => key === '' || key === '__proto__')) {
      throw new PolicyError(
        'invalid_rule',
        `${here}: give a dotted argument path such as "path" or "options.target".`,
        rule,
      );
    }
    const keys = isRecord(raw) ? Object.keys(raw) : [];
    const known = keys.filter((key) => (CONDITION_KEYS as readonly string[]).includes(key));
    if (!isRecord(raw) || known.length !== 1 || keys.length !== 1) {
      throw new PolicyError(
        'invalid_rule',
        `${here} must have exactly one test of ${CONDITION_KEYS.join(', ')}, received ${JSON.stringify(raw)}.`,
        rule,
      );
    }
    const key = known[0]!;
    const test = raw[key];
    switch (key) {
      case 'under': {
        const folders = parsePatterns(test, `${here}: "under"`, rule);
        const climbing = folders.find(
          (folder) =>
            folder.split(/[\\/]/).includes('..') ||
            hasWildcard(folder) ||
            (folder.startsWith('~') && folder !== '~' && !folder.startsWith('~/')),
        );
        if (climbing !== undefined) {
          throw new PolicyError(
            'invalid_rule',
            `${here}: "under" takes folders relative to the roots ("docs"), absolute ("/srv/data") or under the home folder ("~/.ssh"), without ".." or wildcards, received "${climbing}".`,
            rule,
          );
        }
        conditions[path] = Object.freeze({ under: folders });
        break;
      }
      case 'glob': {
        const patterns = parsePatterns(test, `${here}: "glob"`, rule);
        for (const pattern of patterns) {
          const never = neverMatches(pattern);
          if (never) {
            throw new PolicyError(
              'invalid_rule',
              `${here}: the glob "${pattern}" can never match, because ${never}. Paths are compared after ".", ".." and repeated slashes are resolved: write the glob the same way ("docs/**/*.md", "/srv/**", "~/.ssh/**").`,
              rule,
            );
          }
        }
        conditions[path] = Object.freeze({ glob: patterns });
        break;
      }
      case 'equals':
        if (!isScalar(test)) {
          throw new PolicyError(
            'invalid_rule',
            `${here}: "equals" takes a string, number, boolean or null.`,
            rule,
          );
        }
        conditions[path] = Object.freeze({ equals: test });
        break;
      case 'oneOf':
        if (!Array.isArray(test) || test.length === 0 || !test.every(isScalar)) {
          throw new PolicyError('invalid_rule', `${here}: "oneOf" takes a non-empty array of scalars.`, rule);
        }
        conditions[path] = Object.freeze({ oneOf: Object.freeze([...test]) });
        break;
      default:
        throw new PolicyError('invalid_rule', `${here}: unknown test "${key}".`, rule);
    }
  }
  return Object.freeze(conditions);
}

// Why a path glob can never match a path as the gate reads it (resolved, absolute or under a root).
function neverMatches(pattern: string): string | undefined {
  const body = pattern.startsWith('/')
    ? pattern.slice(1)
    : pattern.startsWith('~/')
      ? pattern.slice(2)
      : pattern;
  const segments = body.split('/');
  if (segments.includes('..') || segments.includes('.')) return 'it has a "." or ".." segment';
  if (body !== '' && segments.slice(0, -1).includes('')) return 'it has an empty segment ("//")';
  if (pattern.startsWith('~') && pattern !== '~' && !pattern.startsWith('~/')) {
    return 'only "~/" (the home folder of the user the gate runs as) is read, not "~name"';
  }
  return undefined;
}

function parseDefaults(value: unknown, where: string): Policy['defaults'] {
  if (!isRecord(value)) {
    throw new PolicyError(
      'invalid_defaults',
      `${where}: "defaults" must map categories to actions, received ${describe(value)}.`,
    );
  }
  const defaults: Record<string, PolicyAction> = {};
  for (const [category, action] of Object.entries(value)) {
    if (!isToolCategory(category)) {
      throw new PolicyError(
        'invalid_defaults',
        `${where}: "defaults" has the key "${category}", which is not a category (${CATEGORIES.join(', ')}).`,
      );
    }
    defaults[category] = parseAction(action, `${where}: "defaults.${category}"`, undefined);
  }
  return Object.freeze(defaults);
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** ` Did you mean "tool"?` when `key` looks like a typo of an allowed key; empty otherwise. */
function didYouMean(key: string, allowed: Iterable<string>): string {
  const near = typoOf(key, allowed);
  return near === undefined ? '' : ` Did you mean "${near}"?`;
}
