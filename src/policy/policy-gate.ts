import { homedir } from 'node:os';
import {
  CATEGORY_DEFAULTS,
  type RiskLevel,
  type ToolCategory,
  type ToolContract,
} from '../contract/index.js';
import type { ToolMeta } from '../contract/tool.js';
import type { ApprovalAnswer, GateDecision, GateRequest, VisibilityRequest } from '../dispatch/gate.js';
import { toolIdentity } from '../dispatch/tool-identity.js';
import type { CallRecord, RegistryOptions } from '../registry/registry.js';
import { ApprovalSession } from './approval-session.js';
import { definePolicy } from './define-policy.js';
import { evaluatePolicy, mayPass, type PolicyVerdict } from './evaluate-policy.js';
import { defaultReadingContext, type ReadingContext } from './path-readings.js';
import { type Policy, type PolicyRule, sourceOf } from './policy.js';
import { type SandboxCheck, sandboxOf } from './sandbox-declaration.js';

/** What an approver is asked: the call, its risk, and the rule that asked. */
export interface ApprovalRequest {
  readonly tool: string;
  readonly category: ToolCategory;
  readonly risk: RiskLevel;
  /** `meta.source`, or `"local"`. */
  readonly source: string;
  /** The validated arguments: what the tool would receive. */
  readonly arguments: unknown;
  /** The id of the rule (or default) that asked. */
  readonly rule: string;
  readonly reason: string;
  readonly contract: ToolContract;
  readonly callId: string | undefined;
  readonly state: unknown;
}

/**
 * Answers an `ask`: allow once, allow for the rest of the session, or deny with a reason the model
 * reads. An approver that throws, or answers something else, denies.
 */
export type PolicyApprover = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** A gate decision with how an approval went, when one was involved (the audit log records it). */
export type PolicyDecision = GateDecision & {
  readonly approval?: 'once' | 'session' | 'remembered' | 'declined';
  /** The source the policy saw (`meta.source`, or `local`), for the audit log. */
  readonly source?: string;
};

/** Options of {@link createPolicyGate}. */
export interface PolicyGateOptions {
  /**
   * Answers `ask`. Without one the gate passes `ask` on to the registry, which uses its own
   * `approver` or, having none, refuses with `permission_denied` saying approval was required.
   */
  readonly approver?: PolicyApprover;
  /** Where "allow for the session" answers are kept (default: a new session for this gate). */
  readonly session?: ApprovalSession;
  /**
   * Told of every finished call, e.g. an audit log's `observe`; a promise it answers holds the call's
   * result until the record is committed (see `RegistryOptions.observe`).
   */
  readonly observe?: (record: CallRecord) => unknown;
  /** How long to wait for the approver before denying, in milliseconds (default: no limit). */
  readonly approvalTimeoutMs?: number;
  /**
   * The folders relative paths are read against, for local tools (default: the current folder). An
   * imported tool's own roots come with it (`meta.roots`, set from the gateway's configuration).
   * A path rule decides the same for a relative path and for its absolute spelling under a root.
   */
  readonly roots?: readonly string[];
  /** The home folder `~` names (default: the home of the user the gate runs as). */
  readonly home?: string;
}

/** A policy made into a Registry's gate. */
export interface PolicyGate {
  readonly policy: Policy;
  readonly session: ApprovalSession;
  /** Decides one call, synchronously unless it must wait; never throws (a failure inside denies). */
  readonly decide: (request: GateRequest) => PolicyDecision | Promise<PolicyDecision>;
  /**
   * The options to spread into `new Registry({ ... })`; with `visibleTo` when the policy tests who is
   * calling, so that each caller is listed only the tools it may call.
   */
  readonly registryOptions: Pick<RegistryOptions, 'beforeCall' | 'observe' | 'visibleTo'>;
}

/**
 * Builds the permission gate from a policy: the policy's verdict, then the sandbox requirement for
 * execute tools (a tool in that category without a working `meta.sandbox` is refused, whatever the
 * rules say), then approvals for `ask`. Every decision names the rule that made it.
 *
 * @example
 * const gate = createPolicyGate(policy, { approver: async (request) => ({ action: 'allow' }) });
 * const registry = new Registry({ ...gate.registryOptions }).register(readFile, writeFile);
 */
export function createPolicyGate(input: Policy, options: PolicyGateOptions = {}): PolicyGate {
  // A policy written as a literal is checked here, so a typo throws now rather than matching everything.
  const policy = definePolicy(input);
  const session = options.session ?? new ApprovalSession();
  const timeoutMs = options.approvalTimeoutMs;
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new RangeError(
      `approvalTimeoutMs must be a positive number of milliseconds, received ${String(timeoutMs)}.`,
    );
  }
  const approver =
    options.approver && timeoutMs !== undefined ? withTimeout(options.approver, timeoutMs) : options.approver;
  const readings = readingContexts(options);
  // Synchronous unless a sandbox check or an approver has to wait, so the registry's fast path holds.
  const decide = (request: GateRequest): PolicyDecision | Promise<PolicyDecision> => {
    const source = sourceOf(request.meta);
    try {
      const decision = decideCall(policy, session, approver, request, source, readings(request.meta));
      return decision instanceof Promise ? decision.catch(() => gateError(source)) : decision;
    } catch {
      return gateError(source);
    }
  };
  return Object.freeze({
    policy,
    session,
    decide,
    registryOptions: Object.freeze({
      beforeCall: decide,
      ...(options.observe ? { observe: options.observe } : {}),
      ...(policy.rules.some((rule) => rule.principal !== undefined)
        ? { visibleTo: (request: VisibilityRequest) => visibleBy(policy, request) }
        : {}),
    }),
  });
}

// A tool is listed to a caller unless every call of it by that caller would be denied.
function visibleBy(policy: Policy, request: VisibilityRequest): boolean {
  const contract = request.tool;
  return mayPass(policy, {
    tool: contract.name,
    category: contract.category,
    source: sourceOf(request.meta),
    meta: request.meta,
    state: request.state,
  });
}

// An approver that does not answer in time denies; the call must not hang on a person who left.
function withTimeout(approver: PolicyApprover, timeoutMs: number): PolicyApprover {
  return (request) =>
    new Promise((resolve, reject) => {
      const seconds = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
      const timer = setTimeout(
        () => resolve({ action: 'deny', reason: `no approval came within ${seconds}` }),
        timeoutMs,
      );
      Promise.resolve()
        .then(() => approver(request))
        .then(
          (answer) => {
            clearTimeout(timer);
            resolve(answer);
          },
          (error: unknown) => {
            clearTimeout(timer);
            reject(error);
          },
        );
    });
}

function gateError(source: string): PolicyDecision {
  return {
    action: 'deny',
    rule: 'gate-error',
    reason: 'the permission check failed, so the call was refused',
    source,
  };
}

// The reading context of a call: the gate's roots for a local tool, the tool's own for an imported
// one (made once per roots array, so the compiled path tests are reused).
function readingContexts(options: PolicyGateOptions): (meta: ToolMeta) => ReadingContext {
  const home = options.home ?? homedir();
  const local = { ...defaultReadingContext(options.roots ?? [process.cwd()]), home };
  const byRoots = new WeakMap<readonly unknown[], ReadingContext>();
  return (meta) => {
    const roots = (meta as { roots?: unknown }).roots;
    if (!Array.isArray(roots) || roots.length === 0) return local;
    let context = byRoots.get(roots);
    if (!context) {
      const absolute = roots.filter(
        (root): root is string => typeof root === 'string' && root.startsWith('/'),
      );
      context = absolute.length > 0 ? { ...defaultReadingContext(absolute), home } : local;
      byRoots.set(roots, context);
    }
    return context;
  };
}

function decideCall(
  policy: Policy,
  session: ApprovalSession,
  approver: PolicyApprover | undefined,
  request: GateRequest,
  source: string,
  context: ReadingContext,
): PolicyDecision | Promise<PolicyDecision> {
  const contract = request.tool;
  const verdict = evaluatePolicy(
    policy,
    {
      tool: contract.name,
      ...(request.target ? { target: request.target } : {}),
      category: contract.category,
      source,
      arguments: request.arguments,
      meta: request.meta,
      state: request.state,
    },
    context,
  );
  if (verdict.action === 'deny')
    return { action: 'deny', rule: verdict.rule, reason: verdict.reason, source };
  if (!CATEGORY_DEFAULTS[contract.category].requiresSandbox) {
    return afterSandbox(policy, verdict, session, approver, request, source);
  }
  const sandbox = sandboxOf(request.meta);
  if (!sandbox) {
    return {
      action: 'deny',
      rule: 'sandbox-required',
      reason: `"${contract.name}" is an ${contract.category} tool and declares no sandbox; such tools run only inside one`,
      source,
    };
  }
  const unavailable = (reason: string): PolicyDecision => ({
    action: 'deny',
    rule: 'sandbox-unavailable',
    reason: `the ${sandbox.kind} sandbox that "${contract.name}" needs cannot start (${reason}), and the tool never runs outside it`,
    source,
  });
  const proceed = (check: SandboxCheck) =>
    check.ok ? afterSandbox(policy, verdict, session, approver, request, source) : unavailable(check.reason);
  let check: SandboxCheck | Promise<SandboxCheck>;
  try {
    check = sandbox.check();
  } catch {
    return unavailable('its start-up check failed');
  }
  return check instanceof Promise
    ? check.then(proceed, () => unavailable('its start-up check failed'))
    : proceed(check);
}

function approverOf(policy: Policy, rule: string): PolicyRule['approver'] {
  return policy.rules.find((each) => each.id === rule)?.approver;
}

function afterSandbox(
  policy: Policy,
  verdict: PolicyVerdict,
  session: ApprovalSession,
  approver: PolicyApprover | undefined,
  request: GateRequest,
  source: string,
): PolicyDecision | Promise<PolicyDecision> {
  const contract = request.tool;
  const rule = verdict.rule;
  switch (verdict.action) {
    case 'allow':
      return { action: 'allow', rule, reason: verdict.reason, source };
    case 'deny':
      return { action: 'deny', rule, reason: verdict.reason, source };
    case 'ask':
      break;
    default: {
      const exhaustive: never = verdict.action;
      return exhaustive;
    }
  }
  const identity = toolIdentity(contract, request.meta, request.state).key;
  if (session.has(contract.name, rule, identity)) {
    return {
      action: 'allow',
      rule,
      reason: 'approved earlier for this session',
      approval: 'remembered',
      source,
    };
  }
  if (!approver) {
    // Who the rule lets approve travels with the ask, for the in-band approvers and the queue.
    const ruleApprover = approverOf(policy, rule);
    return {
      action: 'ask',
      rule,
      reason: verdict.reason,
      source,
      ...(ruleApprover === undefined ? {} : { approver: ruleApprover }),
    };
  }
  const approval: ApprovalRequest = {
    tool: contract.name,
    category: contract.category,
    risk: CATEGORY_DEFAULTS[contract.category].risk,
    source,
    arguments: request.arguments,
    rule,
    reason: verdict.reason,
    contract,
    callId: request.callId,
    state: request.state,
  };
  const declined = (reason: string): PolicyDecision => ({
    action: 'deny',
    rule,
    reason,
    approval: 'declined',
    source,
  });
  return (async () => {
    let answer: unknown;
    try {
      answer = await approver(approval);
    } catch {
      return declined('the approval could not be obtained');
    }
    const shaped = answer as { action?: unknown; scope?: unknown; reason?: unknown } | null;
    if (shaped?.action === 'allow') {
      if (shaped.scope === 'session') {
        session.add(contract.name, rule, identity);
        return { action: 'allow', rule, reason: 'approved for this session', approval: 'session', source };
      }
      return { action: 'allow', rule, reason: 'approved once', approval: 'once', source };
    }
    const given = shaped?.action === 'deny' ? shaped.reason : undefined;
    return declined(
      typeof given === 'string' && given.trim() !== '' ? given : 'the approver declined this call',
    );
  })();
}
