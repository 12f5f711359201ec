/**
 * The names toolpact records under, from the OpenTelemetry GenAI semantic conventions
 * (semantic-conventions-genai v0.1.0: the `execute_tool` span and the `gen_ai.execute_tool.duration`
 * metric; `error.type` from the general conventions) and, for what those conventions do not cover
 * (the permission gate), toolpact's own `toolpact.*` names.
 *
 * @example
 * span.attributes[ATTRIBUTES.toolName]; // 'read_file'
 */
export const ATTRIBUTES = Object.freeze({
  operationName: 'gen_ai.operation.name',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolDescription: 'gen_ai.tool.description',
  toolType: 'gen_ai.tool.type',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
  /**
   * The authenticated caller's subject. `enduser.id` is what tracing back ends have long read for the
   * user behind a request; the semantic conventions (1.45) mark it deprecated, moved to the client-side
   * conventions, so the subject is also recorded under the general `user.id`. Absent for the local process.
   */
  enduserId: 'enduser.id',
  /** The authenticated caller's subject, under the general conventions' user attribute. */
  userId: 'user.id',
  /** `read`, `search`, `write`, `execute` or `delegate`. */
  category: 'toolpact.tool.category',
  /** Where the tool comes from: `local`, or `mcp:<server>` for an imported one (when a policy gate decided). */
  source: 'toolpact.tool.source',
  /** `ok`, or the envelope's error type: the same as `error.type`, present on successes too. */
  outcome: 'toolpact.outcome',
  /** The gate's action: `allow`, `deny` or `ask`; `none` when the call ended before the gate or there is none. */
  decision: 'toolpact.gate.decision',
  /** The id of the rule (or category default) that decided. */
  rule: 'toolpact.gate.rule',
  /** How an approval went: `once`, `session`, `remembered` or `declined`. */
  approval: 'toolpact.gate.approval',
  /** Present (true) when the result was cut to fit the registry's `maxResultChars`. */
  truncated: 'toolpact.result.truncated',
  /** The gateway's upstream server a `tools/call` went to (its name in the gateway's config). */
  upstreamName: 'toolpact.upstream.name',
  /** The protocol era the upstream speaks: `modern` (2026-07-28) or `legacy`. */
  upstreamEra: 'toolpact.upstream.era',
  /** How often the gateway restarted the upstream before this call. */
  upstreamRestarts: 'toolpact.upstream.restarts',
  /** The tool's name on the upstream server. */
  upstreamTool: 'toolpact.upstream.tool',
});

/** The metric instruments toolpact records. */
export const METRICS = Object.freeze({
  /** Histogram, seconds: one value per call, the call's whole time (the span's duration). */
  duration: 'gen_ai.execute_tool.duration',
  /** Counter: one per call, by tool, outcome and decision. */
  calls: 'toolpact.tool.calls',
});

/** The bucket boundaries the conventions advise for `gen_ai.execute_tool.duration`, in seconds. */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
]);

/** What metrics record as the tool name of a call to a name the registry does not hold. */
export const UNKNOWN_TOOL_NAME = '_OTHER';

/** The instrumentation scope name of toolpact's tracer, meter and logger. */
export const SCOPE_NAME = 'toolpact';
