import type {
  AbortedError,
  ApprovalAlreadyUsedError,
  ApprovalPendingError,
  FailureEnvelope,
  InvalidArgumentsError,
  InvalidJsonError,
  InvalidResultError,
  PermissionDeniedError,
  RegistryClosedError,
  ResultNotSerializableError,
  StoreUnavailableError,
  TimeoutError,
  ToolFailure,
  UnknownToolError,
} from './envelope.js';
import type { ValidationIssue } from './issues.js';
import type { JsonSyntaxProblem } from './parse.js';
import { sanitizeMessage } from './sanitize.js';
import { type JsonValue, toJsonValue } from './serialize.js';
import { isToolError } from './tool-error.js';
import { MAX_REPORTED_ISSUES } from './validation.js';

// The one place where framework errors become words for the model.

export function unknownToolFailure(name: string, suggestions: readonly string[]): FailureEnvelope {
  const shown = name.length > 80 ? `${name.slice(0, 80)}…` : name;
  const tail = suggestions.length
    ? ` Did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}? Call one of the registered tools by its exact name.`
    : ' No tools are registered.';
  const error: UnknownToolError = {
    type: 'unknown_tool',
    tool: shown,
    message: `There is no tool named "${shown}".${tail}`,
    suggestions,
  };
  return { ok: false, error };
}

export function invalidJsonFailure(tool: string, problem: JsonSyntaxProblem): FailureEnvelope {
  const error: InvalidJsonError = {
    type: 'invalid_json',
    tool,
    message:
      `The arguments for "${tool}" are not valid JSON: ${problem.detail} at line ${problem.line}, column ${problem.column}. ` +
      'Send the arguments as one JSON object, e.g. {"name": "value"}, with double-quoted keys and no trailing commas.',
    ...problem,
  };
  return { ok: false, error };
}

export function invalidArgumentsFailure(tool: string, issues: readonly ValidationIssue[]): FailureEnvelope {
  const listed = issues.slice(0, MAX_REPORTED_ISSUES);
  const omitted = issues.length - listed.length;
  const summary = listed.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  const error: InvalidArgumentsError = {
    type: 'invalid_arguments',
    tool,
    message:
      `The arguments for "${tool}" do not match its parameters (${issues.length} issue${issues.length === 1 ? '' : 's'}): ` +
      `${summary}${omitted > 0 ? `; and ${omitted} more` : ''}. Fix these fields and call "${tool}" again.`,
    issues: listed,
    ...(omitted > 0 ? { omittedIssues: omitted } : {}),
  };
  return { ok: false, error };
}

export function permissionDeniedFailure(tool: string, reason: string, rule?: string): FailureEnvelope {
  const clean = sanitizeMessage(reason) || 'the permission gate refused it';
  const sentence = /[.!?]$/.test(clean) ? clean : `${clean}.`;
  const error: PermissionDeniedError = {
    type: 'permission_denied',
    tool,
    message: `The call to "${tool}" was not permitted: ${sentence} Do not retry the same call; choose another approach or ask the user.`,
    reason: clean,
    ...(rule === undefined ? {} : { rule }),
  };
  return { ok: false, error };
}

export function approvalPendingFailure(
  tool: string,
  reason: string | undefined,
  rule: string | undefined,
  approval: string | undefined,
  message: string | undefined,
): FailureEnvelope {
  const why = reason ? sanitizeMessage(reason) : '';
  const words = message === undefined ? '' : sanitizeMessage(message);
  const error: ApprovalPendingError = {
    type: 'approval_pending',
    tool,
    message:
      words ||
      `The call to "${tool}" is waiting for a person's approval${why ? ` (${why})` : ''} and has not run. Once it is decided, call "${tool}" again with the same arguments to run it; until then, do not assume it had any effect.`,
    ...(approval === undefined ? {} : { approval }),
    ...(rule === undefined ? {} : { rule }),
  };
  return { ok: false, error };
}

export function approvalAlreadyUsedFailure(
  tool: string,
  reason: string | undefined,
  rule: string | undefined,
  approval: string | undefined,
): FailureEnvelope {
  const why = reason ? ` (${sanitizeMessage(reason)})` : '';
  const error: ApprovalAlreadyUsedError = {
    type: 'approval_already_used',
    tool,
    message: `This call to "${tool}" was approved once, and that approval was already used by another request of the same call${why}, which ran it; this request did not run. Do not retry to run it again: its result went to that request. To run "${tool}" once more, call it again later and a new approval will be asked.`,
    ...(approval === undefined ? {} : { approval }),
    ...(rule === undefined ? {} : { rule }),
  };
  return { ok: false, error };
}

/** `ran`: whether the tool may have run (its audit record could not be committed) or was refused before it ran. */
export function storeUnavailableFailure(
  tool: string,
  ran: boolean,
  detail: string | undefined,
): FailureEnvelope {
  const why = detail ? ` (${sanitizeMessage(detail)})` : '';
  const error: StoreUnavailableError = {
    type: 'store_unavailable',
    tool,
    message: ran
      ? `The call to "${tool}" reached the tool, but its audit record could not be committed to the shared store${why}, so its outcome is withheld. It may have taken effect: check before calling it again, and tell the user if this keeps happening.`
      : `The call to "${tool}" was not run, and had no effect: the shared store it needs (for its approval or its audit record) cannot be reached${why}. Try again in a moment; tell the user if this keeps happening.`,
  };
  return { ok: false, error };
}

export function timeoutFailure(tool: string, timeoutMs: number): FailureEnvelope {
  const error: TimeoutError = {
    type: 'timeout',
    tool,
    timeoutMs,
    message: `"${tool}" did not finish within ${timeoutMs} ms and was stopped. Try a smaller request (a narrower path, range or query).`,
  };
  return { ok: false, error };
}

export function abortedFailure(tool: string): FailureEnvelope {
  const error: AbortedError = {
    type: 'aborted',
    tool,
    message: `The call to "${tool}" was cancelled by the caller before it finished. Do not assume it had any effect.`,
  };
  return { ok: false, error };
}

export function notSerializableFailure(tool: string, detail: string): FailureEnvelope {
  const error: ResultNotSerializableError = {
    type: 'result_not_serializable',
    tool,
    message: `"${tool}" finished, but its result cannot be written as JSON (${detail}). This is a defect in the tool, not in your call.`,
  };
  return { ok: false, error };
}

export function invalidResultFailure(tool: string): FailureEnvelope {
  const error: InvalidResultError = {
    type: 'invalid_result',
    tool,
    message: `"${tool}" ran, but its result does not match the tool's declared output schema, so it was withheld. This is a defect in the tool, not in your arguments: do not retry the same call. Choose another approach, or tell the user that "${tool}" returned a malformed result.`,
  };
  return { ok: false, error };
}

export function registryClosedFailure(tool: string): FailureEnvelope {
  const error: RegistryClosedError = {
    type: 'registry_closed',
    tool,
    message: `"${tool}" cannot be called: the tool set was closed, because the program is shutting down or released its tools. Do not retry; no tool can be called any more in this session.`,
  };
  return { ok: false, error };
}

/**
 * A result that was cut for length and whose shorter forms all break the tool's output schema: what an
 * MCP server answers, since an MCP client refuses a success without conforming `structuredContent`.
 * Not a registry outcome (the registry delivers the cut text).
 */
export function resultTooLargeFailure(tool: string, totalChars: number): FailureEnvelope {
  const error: ToolFailure = {
    type: 'result_too_large',
    tool,
    message: `"${tool}" returned ${totalChars} characters of JSON, more than is sent in one result, and no shortened form of it matches the tool's output schema. Ask for a smaller part (a narrower range, path or query).`,
  };
  return { ok: false, error };
}

/** A tool's own failure: a {@link ToolError}, any other `Error`, or whatever else was thrown. */
export function toolFailure(tool: string, thrown: unknown): FailureEnvelope {
  if (isToolError(thrown)) {
    const error: ToolFailure = {
      type: thrown.type,
      tool,
      message: sanitizeMessage(thrown.message) || `"${tool}" failed.`,
      ...(thrown.hint === undefined ? {} : { hint: sanitizeMessage(thrown.hint) }),
      ...(thrown.retryable === undefined ? {} : { retryable: thrown.retryable }),
      ...(thrown.details === undefined ? {} : { details: safeDetails(thrown.details) }),
    };
    return { ok: false, error };
  }
  if (thrown instanceof Error) {
    const type = typeof thrown.name === 'string' && /^\w{1,64}$/.test(thrown.name) ? thrown.name : 'Error';
    const message = sanitizeMessage(typeof thrown.message === 'string' ? thrown.message : '');
    return { ok: false, error: { type, tool, message: message || `"${tool}" failed with ${type}.` } };
  }
  let description: string;
  try {
    description =
      thrown === undefined ? '' : typeof thrown === 'string' ? thrown : JSON.stringify(toJsonValue(thrown));
  } catch {
    description = String(typeof thrown);
  }
  const message = sanitizeMessage(description ?? '') || `"${tool}" failed without saying why.`;
  return { ok: false, error: { type: 'tool_error', tool, message } };
}

function safeDetails(details: object): { readonly [key: string]: JsonValue } {
  try {
    const value = toJsonValue(details);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : { value };
  } catch {
    return {};
  }
}
