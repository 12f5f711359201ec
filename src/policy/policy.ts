import type { ToolCategory } from '../contract/index.js';
import type { ToolMeta } from '../contract/tool.js';
import type { GateTarget } from '../dispatch/gate.js';

/** What a rule, a default or the gate decides for a call. */
export type PolicyAction = 'allow' | 'ask' | 'deny';

/** Every action, from the least to the most severe: a deny beats an ask, an ask beats an allow. */
export const POLICY_ACTIONS: readonly PolicyAction[] = Object.freeze(['allow', 'ask', 'deny']);

/** What a rule decides on: a tool call, a resource read, a prompt get or a sampling request (see {@link GateTarget}). */
export type PolicyTarget = GateTarget;

/** Every target, in a stable order. */
export const POLICY_TARGETS: readonly PolicyTarget[] = Object.freeze([
  'tool',
  'resource',
  'prompt',
  'sampling',
]);

/**
 * The targets a rule without `target` matches: tools, resources and prompts, which each have a name,
 * a category (a resource read and a prompt get are `read`s) and arguments. Sampling is matched only
 * by a rule that names it.
 */
export const DEFAULT_TARGETS: readonly PolicyTarget[] = Object.freeze(['tool', 'resource', 'prompt']);

/** A plain JSON scalar, for `equals` and `oneOf`. */
export type JsonScalar = string | number | boolean | null;

/**
 * A test on one validated argument, named by its dotted path (`"path"`, `"options.target"`).
 * Exactly one of the keys is given. String tests read the value every way a tool might (see
 * {@link PolicyRule}): an allow rule's test must hold for every reading, a deny or ask rule's for any.
 *
 * - `under`: a workspace-relative path at or below one of these folders (`"docs"` holds for
 *   `"docs/a.md"`, never for `"docs-old/a.md"` or `"docs/../etc"`).
 * - `glob`: the string matches one of these globs (`*` within a segment, `**` across `/`, `?` one character).
 * - `equals`, `oneOf`: the value is this JSON scalar, or one of these.
 */
export type ArgumentCondition =
  | { readonly under: string | readonly string[] }
  | { readonly glob: string | readonly string[] }
  | { readonly equals: JsonScalar }
  | { readonly oneOf: readonly JsonScalar[] };

/**
 * A test on who is calling: the principal the transport authenticated (see `principalOf`). Each field
 * is a glob or a list of globs (`*` any run of characters but `/`, `?` one character), and the test
 * holds when every field given holds:
 *
 * - `subject`: the caller's subject (the token's `sub`, an API key's subject).
 * - `group`, `role`: one of the caller's groups (roles) matches one of the globs.
 * - `client`: the OAuth client the token was issued to; a caller without one never matches.
 * - `issuer`: who vouched for the caller (the token's `iss`, or `api-key`); a caller without one never matches.
 * - `scope`: one of the caller's granted scopes matches one of the globs.
 *
 * A principal test never holds for a call nobody authenticated (the local process, stdio, HTTP
 * without authentication), whatever its globs say, unless it says `local: true`; then it holds for
 * such a call too (and `{ local: true }` alone holds only for such calls). So an unauthenticated
 * caller can never pass for a member of a group. An allow rule compares exactly; a deny or ask rule
 * compares case-insensitively and across look-alike characters, as it does tool names.
 */
export interface PrincipalCondition {
  readonly subject?: string | readonly string[];
  readonly group?: string | readonly string[];
  readonly role?: string | readonly string[];
  readonly client?: string | readonly string[];
  readonly issuer?: string | readonly string[];
  readonly scope?: string | readonly string[];
  /** The test holds for a call nobody authenticated too (default false). */
  readonly local?: boolean;
}

/** The fields of a {@link PrincipalCondition} that take globs, in the order they are reported. */
export const PRINCIPAL_FIELDS = Object.freeze([
  'subject',
  'group',
  'role',
  'client',
  'issuer',
  'scope',
] as const);

/** One field of a {@link PrincipalCondition} that takes globs. */
export type PrincipalField = (typeof PRINCIPAL_FIELDS)[number];

/** What a rule's `when` predicate and the approver see about a call. */
export interface PolicySubject {
  /**
   * The registered name of the tool (aliases are resolved before the gate), or the name of the
   * resource or prompt, or `sampling`.
   */
  readonly tool: string;
  /** What is decided on (absent: a tool call). */
  readonly target?: PolicyTarget;
  readonly category: ToolCategory;
  /** `meta.source`, or `"local"` for a tool defined in this process. */
  readonly source: string;
  /** The validated arguments: what the tool would receive. */
  readonly arguments: unknown;
  readonly meta: ToolMeta;
  readonly state: unknown;
}

/**
 * One rule. A rule matches a call when every criterion it gives matches; a rule without criteria
 * matches every call. Criteria:
 *
 * - `target`: what the rule decides on: `tool`, `resource` (a read, whose `arguments` are `{ uri }`),
 *   `prompt` (a get, with the prompt's arguments) or `sampling` (a request a server sends back through
 *   the gateway). Without it, a rule matches tools, resources and prompts, never sampling.
 * - `uri`: globs on a resource's URI (the rule then decides resource reads only).
 * - `tool`: globs on the registered tool name (or the resource's or prompt's name). An allow rule
 *   matches the name exactly as written; a deny or ask rule matches case-insensitively and across
 *   look-alike characters (`Delete_File`, `delete-file` and `dеlete_file` with a Cyrillic `е` all
 *   match `delete_file`).
 * - `category`: one or more of the five categories.
 * - `source`: globs on where the tool comes from (`meta.source`; `"local"` when absent), e.g. `"mcp:*"`.
 * - `arguments`: tests on validated arguments, all of which must hold.
 * - `principal`: a test on who is calling (see {@link PrincipalCondition}); never met by a call nobody
 *   authenticated unless it says `local: true`.
 * - `when`: a predicate in code (not available in JSON policies); it must return `true` to match.
 *
 * @example
 * const rule: PolicyRule = {
 *   id: 'docs-writable',
 *   action: 'allow',
 *   tool: 'write_file',
 *   arguments: { path: { under: 'docs' } },
 * };
 */
export interface PolicyRule {
  /** Named in every decision this rule makes, in the envelope and the audit log. Unique in a policy. */
  readonly id: string;
  readonly action: PolicyAction;
  readonly tool?: string | readonly string[];
  /**
   * What the rule decides on (default: tools, resources and prompts, see {@link DEFAULT_TARGETS};
   * `resource` alone for a rule with `uri`).
   */
  readonly target?: PolicyTarget | readonly PolicyTarget[];
  /**
   * Globs on a resource's URI (`file:///srv/private/**`, `notes://drafts/*`): the rule then decides
   * resource reads only. Compared on every spelling a server might read as the same resource (see
   * `uriSpellings`): a deny or ask matches any of them, ignoring case; an allow must match all.
   */
  readonly uri?: string | readonly string[];
  readonly category?: ToolCategory | readonly ToolCategory[];
  readonly source?: string | readonly string[];
  readonly arguments?: { readonly [path: string]: ArgumentCondition };
  readonly principal?: PrincipalCondition;
  readonly when?: (subject: PolicySubject) => boolean;
  /** Said to the model when this rule denies, and to the approver when it asks. */
  readonly reason?: string;
  /**
   * Who decides this rule's `ask`: `in-band` (default: the client asks its user, by elicitation) or
   * `queue` (the ask goes to the store's queue and a person decides later, out of band: the call
   * answers `approval_pending` at once, and the same call after the approval runs once), or `caller`
   * (the client approves in band even when the caller is authenticated: see below).
   *
   * An in-band approval (an elicitation, or the input of a revision 2026-07-28 retry) is the client
   * approving its own call. For a caller nobody authenticated (the local process) `in-band` is that.
   * For an authenticated caller it counts only under a rule that says `caller`; under any other rule
   * the ask goes to the store's queue where one is configured, and is refused otherwise.
   */
  readonly approver?: 'in-band' | 'queue' | 'caller';
  /**
   * Who may decide this rule's queued approvals: a member of one of these groups (globs), and with
   * `notCaller`, someone other than the caller who asked. A decision by anyone else is refused and
   * recorded. Only for a rule whose action is `ask`.
   */
  readonly decidedBy?: DeciderCondition;
}

/** Who may decide a rule's queued approvals ({@link PolicyRule.decidedBy}). */
export interface DeciderCondition {
  /** The decider is in one of these groups (globs). */
  readonly group?: string | readonly string[];
  /** The decider is not the caller who asked (another subject, or the same subject of another issuer). */
  readonly notCaller?: boolean;
}

/**
 * A policy: rules, and what to do when no rule matches.
 *
 * Precedence: among the rules that match a call, the most specific wins (a rule naming the tool
 * exactly, then one naming it by a glob, then one naming a source, then one testing arguments,
 * then one naming a category); among equally specific rules, deny beats ask beats allow; among
 * those, the first in the list decides and is reported. When no rule matches, the category's
 * default applies (`defaults`, else the taxonomy: read and search allow, the rest ask), and for an
 * imported tool (any source but `local`) the stricter of that and `importedDefault`.
 *
 * @example
 * const policy = definePolicy({
 *   rules: [
 *     { id: 'docs-writable', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } },
 *     { id: 'no-shell', action: 'deny', category: 'execute', reason: 'commands are not run here' },
 *   ],
 * });
 */
export interface Policy {
  readonly rules: readonly PolicyRule[];
  /** Overrides of the taxonomy's default permission, by category. */
  readonly defaults?: { readonly [C in ToolCategory]?: PolicyAction };
  /** The least a tool from another source gets when no rule matches (default `ask`). */
  readonly importedDefault?: PolicyAction;
  /** Out-of-band approvals, where a store holds them (`--store`; see docs/deploy.md). */
  readonly approvals?: {
    /** An `ask` from a client that cannot elicit: `deny` (default) or `queue` it. */
    readonly whenClientCannotAsk?: 'queue' | 'deny';
    /** How long a queued approval waits for a decision (`30m`, `24h`, `7d`; default `24h`). */
    readonly expiresIn?: string;
  };
  /**
   * When a call's audit record cannot be committed to a shared store: `fail` (default) withholds the
   * outcome and answers `store_unavailable`; `warn` sends the result and reports the lost record.
   */
  readonly auditFailure?: 'fail' | 'warn';
}

/** The source name of tools defined in this process. */
export const LOCAL_SOURCE = 'local';

/**
 * `meta.source`, or {@link LOCAL_SOURCE}.
 *
 * @example
 * sourceOf({ source: 'mcp:github' }); // 'mcp:github'
 */
export function sourceOf(meta: ToolMeta): string {
  return typeof meta.source === 'string' && meta.source !== '' ? meta.source : LOCAL_SOURCE;
}

/**
 * What a rule decides on: its `target`, else `resource` for a rule with `uri`, else tools, resources
 * and prompts.
 *
 * @example
 * targetsOf({ id: 'r', action: 'deny', uri: 'file:///secret/**' }); // ['resource']
 */
export function targetsOf(rule: PolicyRule): readonly PolicyTarget[] {
  if (rule.target !== undefined) return typeof rule.target === 'string' ? [rule.target] : rule.target;
  return rule.uri !== undefined ? RESOURCE_ONLY : DEFAULT_TARGETS;
}

const RESOURCE_ONLY: readonly PolicyTarget[] = Object.freeze(['resource']);

/**
 * The more severe of two actions.
 *
 * @example
 * stricter('allow', 'ask'); // 'ask'
 */
export function stricter(a: PolicyAction, b: PolicyAction): PolicyAction {
  return POLICY_ACTIONS.indexOf(a) >= POLICY_ACTIONS.indexOf(b) ? a : b;
}

/**
 * The sources a rule covers: as written; for an allow rule that names tools and no source, only
 * `local`, so that a name an imported server chooses never inherits an allowance written for a
 * local tool. A deny or ask rule without a source covers every source (it can only make a call
 * stricter).
 *
 * @example
 * effectiveSource({ id: 'r', action: 'allow', tool: 'read_note' }); // ['local']
 */
export function effectiveSource(rule: PolicyRule): readonly string[] | undefined {
  if (rule.source !== undefined) return typeof rule.source === 'string' ? [rule.source] : rule.source;
  if (rule.action === 'allow' && rule.tool !== undefined) return [LOCAL_SOURCE];
  return undefined;
}
