import type { ProviderCall } from '../calls/dispatch-calls.js';
import type { Envelope } from '../dispatch/envelope.js';
import type { AgentFormat, TokenUsage } from './model.js';

/** The `kind` of every state a paused run answers. */
export const AGENT_STATE_KIND = 'toolpact.agent.pause';

/**
 * The version of the state a paused run answers. A state of another version is refused on resume:
 * resume it with the toolpact that paused it, or start the run again.
 */
export const AGENT_STATE_VERSION = 1;

/** A call the gate asked about, waiting for a decision. */
export interface AgentPendingCall {
  /** The provider's call id, or `step<n>.call<i>` when the provider gave none; the key of `decisions`. */
  readonly callId: string;
  /** The registry's name of the tool. */
  readonly tool: string;
  /** The validated arguments: what the tool will receive if the call is allowed. */
  readonly arguments: unknown;
  /** The rule that asked, when the gate named one. */
  readonly rule?: string;
  /** Why the gate asked, when it said. */
  readonly reason?: string;
}

/** A decision on one pending call. */
export type AgentDecision =
  | { readonly action: 'allow' }
  | { readonly action: 'deny'; readonly reason?: string };

/** The decisions of a resume, by `callId`: one for every pending call, and no other. */
export type AgentDecisions = Readonly<Record<string, AgentDecision>>;

/** One call of the step that paused: its envelope, or `approval_pending` while it waits. */
export interface AgentPausedCall {
  readonly callId: string;
  /** The call as the provider sent it (`id` absent when the provider gave none). */
  readonly call: { readonly id?: string; readonly name: string; readonly arguments: unknown };
  readonly tool: string;
  readonly envelope: Envelope;
}

/**
 * What a run paused for approval needs to go on, as plain JSON (it survives `JSON.stringify` and
 * `JSON.parse` unchanged): the transcript in the provider's message shape, the step that paused with
 * the calls already settled, the totals and bounds so far, and the calls waiting for a decision.
 * It is not sealed: keep it where only the run's owner can change it.
 */
export interface AgentPauseState<Message = unknown> {
  readonly kind: typeof AGENT_STATE_KIND;
  readonly version: typeof AGENT_STATE_VERSION;
  /** Unique per pause; a process resumes it once. */
  readonly id: string;
  /** The dialect of the messages and calls; a resume must use a model of the same format. */
  readonly format: AgentFormat;
  /** The transcript up to the model's turn that paused (its calls' results are not in it yet). */
  readonly messages: readonly Message[];
  /** The step that paused. */
  readonly step: {
    readonly index: number;
    readonly text: string;
    readonly usage?: TokenUsage;
    readonly finishReason?: string;
    readonly calls: readonly AgentPausedCall[];
  };
  /** Totals over every request so far. */
  readonly usage: TokenUsage;
  /** The bounds the run had (a resume's own options take precedence). */
  readonly maxSteps: number;
  readonly maxTokens?: number;
  readonly pending: readonly AgentPendingCall[];
}

/** Codes of {@link AgentResumeError}. */
export type AgentResumeErrorCode =
  | 'invalid_state'
  | 'state_version'
  | 'format_mismatch'
  | 'missing_decision'
  | 'unknown_decision'
  | 'invalid_decision'
  | 'state_used'
  | 'invalid_option';

/**
 * A resume that cannot go on: the state is not one `runAgent` made, is of another version or format,
 * was already resumed in this process, or the decisions do not match its pending calls. Nothing ran.
 *
 * @example
 * try { await runAgent({ ...options, resume: state, decisions }); } catch (error) {
 *   if (error instanceof AgentResumeError && error.code === 'missing_decision') askAgain(error.message);
 * }
 */
export class AgentResumeError extends Error {
  override readonly name = 'AgentResumeError';
  constructor(
    readonly code: AgentResumeErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A paused step, restored: the calls as the loop had them, and the decisions to apply. */
export interface RestoredPause<Message> {
  readonly state: AgentPauseState<Message>;
  readonly calls: readonly RestoredCall[];
}

/** One call of the paused step, ready to run again or to keep. */
export interface RestoredCall {
  readonly callId: string;
  readonly call: ProviderCall;
  readonly tool: string;
  /** The envelope of a call settled before the pause. */
  readonly envelope: Envelope | undefined;
  /** The pending call and its decision, for a call that waited. */
  readonly pending: AgentPendingCall | undefined;
  readonly decision: AgentDecision | undefined;
}

// The states resumed in this process, so one state never runs its calls twice here.
const resumedStates = new Set<string>();

/**
 * Checks a state and its decisions. Throws {@link AgentResumeError} before anything runs; the state
 * is marked as used by {@link claimPause}.
 */
export function restorePause<Message>(
  state: unknown,
  decisions: unknown,
  format: AgentFormat,
): RestoredPause<Message> {
  const checked = checkState<Message>(state);
  if (checked.format !== format) {
    fail(
      'format_mismatch',
      `the state was paused with a model of format "${checked.format}", and the model given to resume it has format "${format}". Resume with an adapter of the same format: the transcript is in that provider's message shape.`,
    );
  }
  const byId = checkDecisions(decisions, checked.pending);
  if (resumedStates.has(checked.id)) usedFailure(checked.id);
  const pendingById = new Map(checked.pending.map((pending) => [pending.callId, pending]));
  const calls = checked.step.calls.map((entry): RestoredCall => {
    const pending = pendingById.get(entry.callId);
    return {
      callId: entry.callId,
      call: { id: entry.call.id, name: entry.call.name, arguments: entry.call.arguments },
      tool: entry.tool,
      envelope: pending ? undefined : entry.envelope,
      pending,
      decision: pending ? byId.get(entry.callId) : undefined,
    };
  });
  return { state: checked, calls };
}

/** Marks a state as resumed in this process; a second claim throws `state_used`. */
export function claimPause(state: AgentPauseState<unknown>): void {
  if (resumedStates.has(state.id)) usedFailure(state.id);
  resumedStates.add(state.id);
}

function usedFailure(id: string): never {
  fail(
    'state_used',
    `the state ${id} was already resumed in this process, so its allowed calls have run. A state is resumed once; go on from the result of that resume (its messages, or its own state if it paused again).`,
  );
}

function checkState<Message>(state: unknown): AgentPauseState<Message> {
  if (!isRecord(state) || state.kind !== AGENT_STATE_KIND) {
    fail(
      'invalid_state',
      `resume is not a state runAgent made: expected an object with kind "${AGENT_STATE_KIND}", received ${describe(state)}. Pass the \`state\` of a result whose stopReason is "approval" (after JSON.parse, if you stored it as text).`,
    );
  }
  if (state.version !== AGENT_STATE_VERSION) {
    fail(
      'state_version',
      `the state is of version ${describe(state.version)}, and this toolpact reads version ${AGENT_STATE_VERSION}. Resume it with the toolpact version that paused it, or start the run again from its messages.`,
    );
  }
  const problems: string[] = [];
  if (typeof state.id !== 'string' || state.id === '') problems.push('id is not a non-empty string');
  if (typeof state.format !== 'string') problems.push('format is not a string');
  if (!Array.isArray(state.messages)) problems.push('messages is not an array');
  if (!isCount(state.maxSteps)) problems.push('maxSteps is not a positive integer');
  if (state.maxTokens !== undefined && !isCount(state.maxTokens))
    problems.push('maxTokens is not a positive integer');
  if (!isUsage(state.usage)) problems.push('usage is not { inputTokens, outputTokens }');
  const step = state.step;
  if (!isRecord(step) || !Number.isInteger(step.index) || (step.index as number) < 0) {
    problems.push('step is not an object with a step index');
  } else if (!Array.isArray(step.calls) || !step.calls.every(isPausedCall)) {
    problems.push('step.calls is not a list of { callId, call, tool, envelope }');
  }
  const pending = state.pending;
  if (!Array.isArray(pending) || pending.length === 0 || !pending.every(isPendingCall)) {
    problems.push('pending is not a non-empty list of { callId, tool, arguments }');
  } else if (isRecord(step) && Array.isArray(step.calls)) {
    const ids = new Set((step.calls as { callId?: unknown }[]).map((entry) => entry.callId));
    const lost = (pending as AgentPendingCall[]).filter((entry) => !ids.has(entry.callId));
    if (lost.length > 0)
      problems.push(`pending names calls the step does not have (${lost.map((p) => p.callId).join(', ')})`);
  }
  if (problems.length > 0) {
    fail(
      'invalid_state',
      `the state to resume is damaged: ${problems.join('; ')}. Pass the state exactly as the paused result gave it (JSON.stringify, then JSON.parse), not a changed copy.`,
    );
  }
  return state as unknown as AgentPauseState<Message>;
}

function checkDecisions(
  decisions: unknown,
  pending: readonly AgentPendingCall[],
): Map<string, AgentDecision> {
  const expected = pending.map((entry) => entry.callId);
  const listed = expected.map((id) => `"${id}"`).join(', ');
  if (!isRecord(decisions) || Array.isArray(decisions)) {
    fail(
      'invalid_option',
      `decisions must be an object keyed by callId (${listed}), received ${describe(decisions)}. Give { [callId]: { action: "allow" } | { action: "deny", reason? } } for every pending call.`,
    );
  }
  const missing = expected.filter((id) => !Object.hasOwn(decisions, id));
  if (missing.length > 0) {
    fail(
      'missing_decision',
      `no decision for the pending call${missing.length === 1 ? '' : 's'} ${missing.map((id) => `"${id}"`).join(', ')}; the state waits for ${listed}. Decide every pending call: { action: "allow" } or { action: "deny", reason? }.`,
    );
  }
  const known = new Set(expected);
  const unknown = Object.keys(decisions).filter((id) => !known.has(id));
  if (unknown.length > 0) {
    fail(
      'unknown_decision',
      `decisions name ${unknown.map((id) => `"${id}"`).join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} not pending in this state; it waits for ${listed}. Check that the decisions belong to this state.`,
    );
  }
  const byId = new Map<string, AgentDecision>();
  for (const id of expected) {
    const decision = decisions[id];
    const action = isRecord(decision) ? decision.action : undefined;
    const reason = isRecord(decision) ? decision.reason : undefined;
    if ((action !== 'allow' && action !== 'deny') || (reason !== undefined && typeof reason !== 'string')) {
      fail(
        'invalid_decision',
        `the decision for "${id}" is ${describe(decision)}; use { action: "allow" } or { action: "deny", reason?: string }.`,
      );
    }
    byId.set(id, action === 'allow' ? { action } : reason === undefined ? { action } : { action, reason });
  }
  return byId;
}

function isPausedCall(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.callId === 'string' &&
    typeof value.tool === 'string' &&
    isRecord(value.call) &&
    typeof value.call.name === 'string' &&
    (value.call.id === undefined || typeof value.call.id === 'string') &&
    isRecord(value.envelope) &&
    typeof value.envelope.ok === 'boolean'
  );
}

function isPendingCall(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.callId === 'string' &&
    typeof value.tool === 'string' &&
    (value.rule === undefined || typeof value.rule === 'string')
  );
}

function isUsage(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.inputTokens === 'number' &&
    Number.isFinite(value.inputTokens) &&
    typeof value.outputTokens === 'number' &&
    Number.isFinite(value.outputTokens)
  );
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const keys = Object.keys(value).slice(0, 6);
    return keys.length === 0 ? 'an empty object' : `an object with keys ${keys.join(', ')}`;
  }
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return String(value);
}

function fail(code: AgentResumeErrorCode, detail: string): never {
  throw new AgentResumeError(code, `runAgent: ${detail}`);
}
