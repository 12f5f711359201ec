import type { ToolContract } from '../contract/index.js';
import type { Envelope } from './envelope.js';
import type { AskHandler, GateDecision, GateTarget, ResumedDecision } from './gate.js';
import type { ValidationIssue } from './issues.js';

/** Options of one call. */
export interface CallOptions {
  /** Aborting it ends the call with `aborted` and aborts the tool's own signal. */
  readonly signal?: AbortSignal;
  /** Wall-clock limit for this call; the tighter of this and the tool's own applies. */
  readonly timeoutMs?: number;
  /** The provider's id for this call, passed to the tool and to observers. */
  readonly callId?: string;
  /** Anything the tool and the gate should see: a session, a user, a workspace. */
  readonly state?: unknown;
  /**
   * Answers the gate's `ask` for this call, in place of the registry's `approver`: with a decision
   * now, or with `{ action: 'pause' }`, which ends the call at once with an `approval_pending`
   * envelope. The call that brings the decision later passes it as {@link resume}.
   */
  readonly onAsk?: AskHandler;
  /**
   * The decision on an `ask` that paused an earlier call, brought back to run (or refuse) it. The gate
   * still runs: the decision answers only an `ask` by the same rule, so a call the gate now denies or
   * allows is decided as the gate says. Binding the decision to the tool and its arguments is the
   * caller's part (a sealed request state, an approval store).
   */
  readonly resume?: ResumedDecision;
}

/** What an observer is told about a finished call. */
export interface CallRecord {
  /** The tool's name; for a resource read or a prompt get, the resource's or the prompt's name. */
  readonly tool: string;
  /** What was decided on, when it was not a tool call (`Registry.gate`): a resource, a prompt, sampling. */
  readonly target?: GateTarget;
  readonly category: ToolContract['category'] | undefined;
  readonly callId: string | undefined;
  /** The validated arguments, or what was parsed when validation failed, or undefined. */
  readonly arguments: unknown;
  readonly decision: GateDecision | undefined;
  /** `ok`, or the error type of the envelope. */
  readonly outcome: string;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly state: unknown;
  /**
   * How the result breaks the tool's `output` schema, when it does (under `validateResults: 'error'`
   * the outcome is then `invalid_result`; under `'warn'` it is `ok`). The issues quote the result:
   * treat them as the result itself, not as safe-to-show text.
   */
  readonly resultIssues?: readonly ValidationIssue[];
}

/** What is known of a call as it starts, for a {@link CallWrapper}. */
export interface CallStart {
  /** The name the call asked for, registered or not. */
  readonly tool: string;
  /** The contract of that tool; undefined for a name that is not registered. */
  readonly contract: ToolContract | undefined;
  readonly callId: string | undefined;
  readonly state: unknown;
}

/** How a call ended, for a {@link CallWrapper}: what observers are told, and the envelope itself. */
export interface CallEnd {
  readonly record: CallRecord;
  readonly envelope: Envelope;
}

/**
 * Wraps every call from start to end, so that something can be current while it runs (a tracing
 * span): it is given the call and a `run` function that performs it, once however often it is called.
 * Returning `undefined` at once, without calling `run`, declines the call (nothing to record: it
 * runs as if unwrapped). The call's outcome is what `run` answered, whatever the wrapper does; a
 * wrapper that throws or never calls `run` only loses what it would have seen.
 *
 * @example
 * registry.wrapCalls(async (call, run) => {
 *   const started = performance.now();
 *   const { record } = await run();
 *   console.log(call.tool, record.outcome, performance.now() - started);
 * });
 */
export type CallWrapper = (call: CallStart, run: () => Promise<CallEnd>) => Promise<unknown> | undefined;

/** How a registry checks results against their `output` schema. */
export type ResultValidation = 'error' | 'warn' | 'off';

/** What one call has got to so far, for observers; kept only when someone observes. */
export interface Trace {
  arguments: unknown;
  decision: GateDecision | undefined;
  resultIssues: readonly ValidationIssue[] | undefined;
  /** Whether the tool's function was started: after that, a failure may follow an effect. */
  ran: boolean;
}

export const NO_OPTIONS: CallOptions = Object.freeze({});
