import type { ValidationIssue } from './issues.js';
import type { JsonSyntaxProblem } from './parse.js';
import type { JsonValue } from './serialize.js';

/** The framework's error types. A tool's own failure uses its error's name or the type it chose. */
export type FrameworkErrorType =
  | 'unknown_tool'
  | 'invalid_json'
  | 'invalid_arguments'
  | 'permission_denied'
  | 'timeout'
  | 'aborted'
  | 'result_not_serializable'
  | 'invalid_result'
  | 'registry_closed'
  | 'approval_pending'
  | 'approval_already_used'
  | 'store_unavailable';

/** Every framework error type, in a stable order (for docs and meta-tests). */
export const FRAMEWORK_ERROR_TYPES: readonly FrameworkErrorType[] = Object.freeze([
  'unknown_tool',
  'invalid_json',
  'invalid_arguments',
  'permission_denied',
  'timeout',
  'aborted',
  'result_not_serializable',
  'invalid_result',
  'registry_closed',
  'approval_pending',
  'approval_already_used',
  'store_unavailable',
]);

interface ErrorBase {
  /** What went wrong and what to do instead, written for the model. */
  readonly message: string;
  /** The tool the call named. */
  readonly tool: string;
}

export interface UnknownToolError extends ErrorBase {
  readonly type: 'unknown_tool';
  /** Up to three registered names closest to the one the model sent. */
  readonly suggestions: readonly string[];
}
export interface InvalidJsonError extends ErrorBase, JsonSyntaxProblem {
  readonly type: 'invalid_json';
}
export interface InvalidArgumentsError extends ErrorBase {
  readonly type: 'invalid_arguments';
  readonly issues: readonly ValidationIssue[];
  /** How many further issues were found but not listed. */
  readonly omittedIssues?: number;
}
export interface PermissionDeniedError extends ErrorBase {
  readonly type: 'permission_denied';
  readonly reason: string;
  /** The rule that decided, when a policy names one. */
  readonly rule?: string;
}
export interface TimeoutError extends ErrorBase {
  readonly type: 'timeout';
  readonly timeoutMs: number;
}
export interface AbortedError extends ErrorBase {
  readonly type: 'aborted';
}
export interface ResultNotSerializableError extends ErrorBase {
  readonly type: 'result_not_serializable';
}
/**
 * The tool returned a result that breaks its own `output` schema: the tool's defect, not the call's.
 * The issues are told to observers (`CallRecord.resultIssues`) and the audit log, never to the model,
 * since they quote the result and may carry what the tool should not have shown.
 */
export interface InvalidResultError extends ErrorBase {
  readonly type: 'invalid_result';
}
/** The call came after its registry was closed: the tools and their connections are gone. */
export interface RegistryClosedError extends ErrorBase {
  readonly type: 'registry_closed';
}
/**
 * The call needs a person's approval, which will be given elsewhere and later: it ended without
 * running. Calling the same tool with the same arguments after the decision runs it.
 */
export interface ApprovalPendingError extends ErrorBase {
  readonly type: 'approval_pending';
  /** The pending approval's id, for whoever decides it, when the one who paused the call gave one. */
  readonly approval?: string;
  /** The rule that asked, when a policy names one. */
  readonly rule?: string;
}
/**
 * The call had been approved once, and that approval was already used by another request of the same
 * call (two retries at once, perhaps on two replicas): this one did not run.
 */
export interface ApprovalAlreadyUsedError extends ErrorBase {
  readonly type: 'approval_already_used';
  readonly approval?: string;
  readonly rule?: string;
}
/**
 * The shared store (the audit log and the approvals of a fleet) could not be reached, so the call was
 * refused before it ran, or its outcome was withheld because its audit record could not be committed.
 */
export interface StoreUnavailableError extends ErrorBase {
  readonly type: 'store_unavailable';
}
/** A failure of the tool itself: a thrown `Error` (type = its name) or a {@link ToolError}. */
export interface ToolFailure extends ErrorBase {
  readonly type: string;
  readonly hint?: string;
  readonly retryable?: boolean;
  readonly details?: { readonly [key: string]: JsonValue };
}

export type FrameworkError =
  | UnknownToolError
  | InvalidJsonError
  | InvalidArgumentsError
  | PermissionDeniedError
  | TimeoutError
  | AbortedError
  | ResultNotSerializableError
  | InvalidResultError
  | RegistryClosedError
  | ApprovalPendingError
  | ApprovalAlreadyUsedError
  | StoreUnavailableError;

/** Marks where a large result was cut, so the model knows it saw only a part. */
export interface Truncation {
  readonly totalChars: number;
  readonly shownChars: number;
  readonly message: string;
}

export interface SuccessEnvelope<R = JsonValue> {
  readonly ok: true;
  readonly result: R;
  readonly truncated?: Truncation;
}
export interface FailureEnvelope {
  readonly ok: false;
  readonly error: FrameworkError | ToolFailure;
}

/**
 * What every call answers, as a value (`call`) or as its JSON text (`dispatch`).
 * Narrow on `ok`, then on `error.type`.
 */
export type Envelope<R = JsonValue> = SuccessEnvelope<R> | FailureEnvelope;

/** The framework error with that `type`. */
export type FrameworkErrorOf<T extends FrameworkErrorType> = Extract<FrameworkError, { type: T }>;

/**
 * Narrows an envelope to a framework error of one type. (A tool's own failure may use any string as its
 * type, so a plain `error.type === '…'` check cannot narrow the union on its own.)
 *
 * @example
 * const envelope = await registry.call('read_file', args);
 * if (isErrorType(envelope, 'invalid_arguments')) {
 *   for (const issue of envelope.error.issues) console.log(issue.path, issue.expected);
 * }
 */
export function isErrorType<T extends FrameworkErrorType>(
  envelope: Envelope<unknown>,
  type: T,
): envelope is FailureEnvelope & { readonly error: FrameworkErrorOf<T> } {
  return !envelope.ok && envelope.error.type === type;
}
