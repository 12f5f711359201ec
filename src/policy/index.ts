/**
 * `toolpact/policy`: the permission gate. Rules as data or code with a documented precedence,
 * approvals with an explicit session scope, the sandbox requirement for execute tools, delegation
 * that never widens what the parent may do, and audit sinks with redaction: an append-only JSON
 * Lines file, or a SQLite database (through the optional `better-sqlite3`, loaded only when opened).
 *
 * @example
 * import { createPolicyGate, definePolicy, openAuditLog } from 'toolpact/policy';
 * const audit = openAuditLog('audit.jsonl');
 * const gate = createPolicyGate(definePolicy({ rules: [] }), { approver, observe: audit.observe });
 * const registry = new Registry({ ...gate.registryOptions }).register(tools);
 */

export {
  type AuditEntry,
  type AuditedIssue,
  type AuditLog,
  type AuditLogOptions,
  openAuditLog,
} from '../audit/audit-log.js';
export {
  type AuditQuery,
  auditEntryMatches,
  type ResolvedAuditQuery,
  resolveAuditQuery,
} from '../audit/audit-query.js';
export {
  type AuditSink,
  AuditSinkError,
  type AuditSinkErrorCode,
  combineAuditSinks,
} from '../audit/audit-sink.js';
export { queryAuditLog } from '../audit/query-audit-log.js';
export { type AuditLogContents, readAuditLog } from '../audit/read-audit-log.js';
export {
  openSqliteAuditLog,
  querySqliteAuditLog,
  SQLITE_AUDIT_SCHEMA,
  type SqliteAuditLog,
  type SqliteAuditLogOptions,
} from '../audit/sqlite-audit-log.js';
export { canonicalJson, digestOf } from '../util/digest.js';
export { REDACTED, redactText, redactValue } from '../util/redact.js';
export { ApprovalSession } from './approval-session.js';
export { type Comparison, compareReach, isCarveOut } from './carve-out.js';
export { checkPolicy, type PolicyCheck, type RefusedRule, type RuleReach } from './check-policy.js';
export type { ReadingMode } from './conditions.js';
export { definePolicy, parsePolicy } from './define-policy.js';
export {
  createDelegateRegistry,
  DEFAULT_MAX_DELEGATION_DEPTH,
  type DelegateRegistryOptions,
} from './delegate-registry.js';
export { DELEGATION, type DelegationState, delegatedState, delegationDepth } from './delegation-state.js';
export { evaluatePolicy, mayPass, type PolicyVerdict, specificity } from './evaluate-policy.js';
export { foldName } from './fold-name.js';
export { compileGlob, type GlobMatcher } from './glob.js';
export { loadPolicyFile, loadPolicyFromConfig } from './load-policy.js';
export { type PathReading, pathReadings, type ReadingContext } from './path-readings.js';
export {
  type ArgumentCondition,
  DEFAULT_TARGETS,
  type DeciderCondition,
  effectiveSource,
  type JsonScalar,
  LOCAL_SOURCE,
  POLICY_ACTIONS,
  POLICY_TARGETS,
  type Policy,
  type PolicyAction,
  type PolicyRule,
  type PolicySubject,
  type PolicyTarget,
  PRINCIPAL_FIELDS,
  type PrincipalCondition,
  type PrincipalField,
  sourceOf,
  stricter,
  targetsOf,
} from './policy.js';
export { PolicyError, type PolicyErrorCode } from './policy-error.js';
export {
  type ApprovalRequest,
  createPolicyGate,
  type PolicyApprover,
  type PolicyDecision,
  type PolicyGate,
  type PolicyGateOptions,
} from './policy-gate.js';
export { type SandboxCheck, type SandboxDeclaration, sandboxOf } from './sandbox-declaration.js';
export { uriSpellings } from './uri-readings.js';
