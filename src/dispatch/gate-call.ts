import type { CallOptions, Trace } from './call.js';
import type { FailureEnvelope } from './envelope.js';
import {
  approvalAlreadyUsedFailure,
  approvalPendingFailure,
  permissionDeniedFailure,
  storeUnavailableFailure,
} from './errors.js';
import type {
  ApprovalAnswer,
  ApprovalQueue,
  Approver,
  AskHandler,
  BeforeCallHook,
  GateDecision,
  GateRequest,
  PauseAnswer,
  PendingApproval,
} from './gate.js';
import { isPromiseLike } from './run.js';
import { sanitizeMessage } from './sanitize.js';
import { toolIdentity } from './tool-identity.js';

/** What the gate step reads of its registry, fixed when the registry is made. */
export interface GateSettings {
  readonly beforeCall: BeforeCallHook | undefined;
  readonly approver: Approver | undefined;
  /** Out-of-band approvals, consulted before the approver. */
  readonly approvalQueue: ApprovalQueue | undefined;
  /** Approvals given "for the session": the lifetime of the registry, per tool and rule. */
  readonly sessionApprovals: Set<string>;
}

/** What the gate step answers: nothing to go on with the call, or the envelope that ends it. */
export type GateOutcome = FailureEnvelope | undefined;

// A gate that throws must fail closed.
const GATE_ERROR: GateDecision = {
  action: 'deny',
  reason: 'the permission check failed, so the call was refused',
  rule: 'gate-error',
};

const APPROVER_ERROR: ApprovalAnswer = { action: 'deny', reason: 'the approval could not be obtained' };

/**
 * Step 3 of the pipeline: the gate's decision for one validated call. Synchronous when the hook and
 * whatever answers an `ask` answer synchronously. An `ask` is answered, in this order, by a decision
 * the call brings back (`resume`), an approval given for the session, the call's own `onAsk`, and
 * the registry's approver; the first two can only allow what the gate would ask, never what it denies.
 */
export function gateCall(
  settings: GateSettings,
  request: GateRequest,
  options: CallOptions,
  trace: Trace | undefined,
): GateOutcome | Promise<GateOutcome> {
  const hook = settings.beforeCall;
  if (!hook) return undefined;
  let decision: ReturnType<BeforeCallHook>;
  try {
    decision = hook(request);
  } catch {
    decision = GATE_ERROR;
  }
  if (decision instanceof Promise) {
    return decision.then(
      (settled) => decide(settings, request, options, trace, settled),
      () => decide(settings, request, options, trace, GATE_ERROR),
    );
  }
  return decide(settings, request, options, trace, decision);
}

function decide(
  settings: GateSettings,
  request: GateRequest,
  options: CallOptions,
  trace: Trace | undefined,
  decision: GateDecision | undefined,
): GateOutcome | Promise<GateOutcome> {
  if (!decision) return undefined;
  if (trace) trace.decision = decision;
  const name = request.tool.name;
  switch (decision.action) {
    case 'allow':
      return undefined;
    case 'deny':
      if (decision.refusal) {
        const { type, message, details } = decision.refusal;
        return {
          ok: false,
          error: {
            type,
            tool: name,
            message: sanitizeMessage(message),
            ...(decision.rule === undefined ? {} : { rule: decision.rule }),
            ...(details ? { details } : {}),
          },
        };
      }
      return permissionDeniedFailure(name, decision.reason, decision.rule);
    case 'ask':
      return ask(settings, { ...request, decision }, options);
    default: {
      const exhaustive: never = decision;
      return permissionDeniedFailure(
        name,
        `the gate answered ${JSON.stringify(exhaustive)}, which is not a decision`,
      );
    }
  }
}

/** The pause-and-resume point: an `ask` is decided now, or ends the call pending a later decision. */
function ask(
  settings: GateSettings,
  pending: PendingApproval,
  options: CallOptions,
): GateOutcome | Promise<GateOutcome> {
  const { decision } = pending;
  const resumed = options.resume;
  if (resumed !== undefined && resumed.rule === decision.rule) {
    return answered(settings, pending, resumed.answer);
  }
  if (settings.sessionApprovals.has(sessionKey(pending))) return undefined;
  const queue = settings.approvalQueue;
  if (queue) {
    let queued: ReturnType<ApprovalQueue>;
    try {
      queued = queue(pending);
    } catch {
      queued = APPROVER_ERROR;
    }
    if (isPromiseLike(queued)) {
      return Promise.resolve(queued).then(
        (settled) =>
          settled === undefined ? handOver(settings, pending, options) : answered(settings, pending, settled),
        () => answered(settings, pending, APPROVER_ERROR),
      );
    }
    if (queued !== undefined) return answered(settings, pending, queued);
  }
  return handOver(settings, pending, options);
}

/** An ask nobody decided yet: the call's own `onAsk`, else the registry's approver. */
function handOver(
  settings: GateSettings,
  pending: PendingApproval,
  options: CallOptions,
): GateOutcome | Promise<GateOutcome> {
  const { decision } = pending;
  const handler: AskHandler | undefined = options.onAsk ?? settings.approver;
  if (!handler) {
    return permissionDeniedFailure(
      pending.tool.name,
      `this call needs approval${decision.reason ? ` (${decision.reason})` : ''}, and no approver is configured to give it`,
      decision.rule,
    );
  }
  let answer: ReturnType<AskHandler>;
  try {
    answer = handler(pending);
  } catch {
    answer = APPROVER_ERROR;
  }
  // Any thenable is awaited, as an approver's answer always was (a promise of another realm, a library's).
  if (isPromiseLike(answer)) {
    return Promise.resolve(answer).then(
      (settled) => answered(settings, pending, settled),
      () => answered(settings, pending, APPROVER_ERROR),
    );
  }
  return answered(settings, pending, answer);
}

function answered(
  settings: GateSettings,
  pending: PendingApproval,
  answer: ApprovalAnswer | PauseAnswer,
): GateOutcome {
  const name = pending.tool.name;
  const rule = pending.decision.rule;
  switch (answer?.action) {
    case 'allow':
      // A session is the lifetime of the registry: an approval "for the session" holds for this tool
      // under the rule that asked (another rule's ask is asked again).
      if (answer.scope === 'session') settings.sessionApprovals.add(sessionKey(pending));
      return undefined;
    case 'pause':
      return approvalPendingFailure(name, pending.decision.reason, rule, answer.approval, answer.message);
    case 'deny':
      if (answer.outcome === 'approval_already_used') {
        return approvalAlreadyUsedFailure(name, answer.reason, rule, answer.approval);
      }
      if (answer.outcome === 'store_unavailable') return storeUnavailableFailure(name, false, answer.reason);
      return permissionDeniedFailure(name, answer.reason ?? 'the approver declined this call', rule);
    default:
      // Not an answer at all (an approver of plain JavaScript may answer anything): it denies.
      return permissionDeniedFailure(name, 'the approver declined this call', rule);
  }
}

// An approval for the session holds for one tool identity (its source, its name there, the
// definition shown, the caller) under the rule that asked: never for whatever later takes the name.
function sessionKey(pending: PendingApproval): string {
  const identity = toolIdentity(pending.tool, pending.meta, pending.state);
  return `${identity.key}\u0000${pending.decision.rule ?? ''}`;
}
