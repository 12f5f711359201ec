/**
 * The call pipeline: one model call, top to bottom.
 *
 *   1. parse      `readArguments`: the raw JSON text or object, bounded in size and depth
 *   2. validate   the tool's check: against its input schema, defaults filled in
 *   3. gate       `gateCall`: allow, deny, or ask, and an ask is answered now or pauses the call
 *   4. run        the tool's function, under its time limit and the caller's signal
 *   5. check      the result as JSON, then against the tool's output schema (content blocks:
 *                 `deliverCarried`, which keeps them within the limits for the MCP face)
 *   6. shorten    `deliver`: a result too long for the model is shortened or cut, visibly
 *   7. envelope   `{"ok":true,…}` or `{"ok":false,"error":…}`, and the record for observers
 *
 * Every step that can fail answers with its envelope, so a call never throws and never rejects. The
 * steps stay synchronous while nothing asynchronous happens: a synchronous tool's call settles without
 * a turn of the event loop of its own, and an async tool's costs one promise.
 */

import { carriedBy } from '../content/carried.js';
import type { ToolExecuteContext } from '../contract/tool.js';
import { closestNames } from '../util/closest.js';
import type { CallEnd, CallOptions, CallRecord, ResultValidation, Trace } from './call.js';
import { deliverCarried, thrownFailure } from './carried-result.js';
import { type Completed, failed } from './completed.js';
import { deliver } from './deliver.js';
import type { Envelope } from './envelope.js';
import {
  abortedFailure,
  invalidArgumentsFailure,
  invalidJsonFailure,
  invalidResultFailure,
  notSerializableFailure,
  storeUnavailableFailure,
  timeoutFailure,
  toolFailure,
  unknownToolFailure,
} from './errors.js';
import type { GateDecision } from './gate.js';
import { type GateOutcome, type GateSettings, gateCall } from './gate-call.js';
import { type ArgumentLimits, ParseFailure, readArguments } from './parse.js';
import { ExecuteContext, isPromiseLike, type RunLimits, type RunOutcome, settleRun } from './run.js';
import { CircularResultError, type JsonValue, toJsonValue } from './serialize.js';
import { type ToolEntry, tighter } from './tool-entry.js';
import type { ValidationResult } from './validation.js';

/** What the pipeline reads of its registry, fixed when the registry is made. */
export interface PipelineSettings extends GateSettings {
  readonly limits: ArgumentLimits;
  /** Longest envelope, in characters of JSON. */
  readonly maxResultChars: number;
  /** Most decoded bytes of binary content blocks in one result. */
  readonly maxBinaryBytes: number;
  readonly validateResults: ResultValidation;
  /** An answer that is a promise holds the result until it settles (see `RegistryOptions.observe`). */
  readonly observe: ((record: CallRecord) => unknown) | undefined;
  /** Given to each tool as `context.registry`. */
  readonly registry: ToolExecuteContext['registry'];
}

/**
 * One call, start to end. `withRecord` (for wrappers) adds the observers' record to what it answers.
 * Only a defect inside toolpact or a broken contract can throw past the steps; it still ends in an
 * envelope.
 */
export function runCall(
  settings: PipelineSettings,
  tools: ReadonlyMap<string, ToolEntry>,
  name: unknown,
  args: unknown,
  options: CallOptions,
  withRecord: boolean,
): Completed | Promise<Completed> {
  const recorded = withRecord || settings.observe !== undefined;
  const startedAt = recorded ? Date.now() : 0;
  const toolName = typeof name === 'string' ? name : String(name);
  // Without an observer or a wrapper nobody reads a trace, so none is kept.
  const trace: Trace | undefined = recorded
    ? { arguments: undefined, decision: undefined, resultIssues: undefined, ran: false }
    : undefined;
  let entry: ToolEntry | undefined;
  let pending: Completed | Promise<Completed>;
  try {
    entry = tools.get(toolName);
    pending = entry
      ? parse(settings, entry, args, options, trace)
      : failed(unknownToolFailure(toolName, closestNames(toolName, tools.keys())));
  } catch (error) {
    pending = failed(toolFailure(toolName, error));
  }
  if (!trace) {
    return pending instanceof Promise
      ? pending.then(undefined, (error: unknown) => failed(toolFailure(toolName, error)))
      : pending;
  }
  if (pending instanceof Promise) {
    return pending.then(
      (completed) => record(settings, completed, toolName, entry, options, trace, startedAt, withRecord),
      (error: unknown) =>
        record(
          settings,
          failed(toolFailure(toolName, error)),
          toolName,
          entry,
          options,
          trace,
          startedAt,
          withRecord,
        ),
    );
  }
  return record(settings, pending, toolName, entry, options, trace, startedAt, withRecord);
}

// 1. Parse.
function parse(
  settings: PipelineSettings,
  entry: ToolEntry,
  args: unknown,
  options: CallOptions,
  trace: Trace | undefined,
): Completed | Promise<Completed> {
  const value = readArguments(args, settings.limits);
  if (value instanceof ParseFailure) {
    const failure = value.outcome;
    return failure.kind === 'invalid_json'
      ? failed(invalidJsonFailure(entry.name, failure.problem))
      : failed(invalidArgumentsFailure(entry.name, failure.issues));
  }
  if (trace) trace.arguments = value;
  return validate(settings, entry, value, options, trace);
}

// 2. Validate. A JSON Schema tool's check answers without a result object; any other validator as it will.
function validate(
  settings: PipelineSettings,
  entry: ToolEntry,
  value: unknown,
  options: CallOptions,
  trace: Trace | undefined,
): Completed | Promise<Completed> {
  const check = entry.check;
  if (check !== undefined) {
    const issues = check(value);
    return issues
      ? failed(invalidArgumentsFailure(entry.name, issues))
      : gated(settings, entry, value, options, trace);
  }
  // Called as before the registry kept entries: on the tool object.
  const validation = entry.validate.call(entry.tool, value);
  return validation instanceof Promise
    ? validation.then((settled) => validatedBy(settings, entry, settled, options, trace))
    : validatedBy(settings, entry, validation, options, trace);
}

function validatedBy(
  settings: PipelineSettings,
  entry: ToolEntry,
  validation: ValidationResult<unknown>,
  options: CallOptions,
  trace: Trace | undefined,
): Completed | Promise<Completed> {
  return validation.ok
    ? gated(settings, entry, validation.value, options, trace)
    : failed(invalidArgumentsFailure(entry.name, validation.issues));
}

// 3. Gate. `args` is now what the tool receives.
function gated(
  settings: PipelineSettings,
  entry: ToolEntry,
  args: unknown,
  options: CallOptions,
  trace: Trace | undefined,
): Completed | Promise<Completed> {
  if (trace) trace.arguments = args;
  if (options.signal?.aborted) return failed(abortedFailure(entry.name));
  if (!settings.beforeCall) return run(settings, entry, args, options, trace);
  const request = {
    tool: entry.contract,
    meta: entry.tool.meta,
    arguments: args,
    callId: options.callId,
    state: options.state,
  };
  const outcome = gateCall(settings, request, options, trace);
  return outcome instanceof Promise
    ? outcome.then((settled) => afterGate(settings, entry, args, options, trace, settled))
    : afterGate(settings, entry, args, options, trace, outcome);
}

function afterGate(
  settings: PipelineSettings,
  entry: ToolEntry,
  args: unknown,
  options: CallOptions,
  trace: Trace | undefined,
  outcome: GateOutcome,
): Completed | Promise<Completed> {
  return outcome ? failed(outcome) : run(settings, entry, args, options, trace);
}

// 4. Run. A synchronous result is settled here and now: no timer, no extra turn of the event loop.
function run(
  settings: PipelineSettings,
  entry: ToolEntry,
  args: unknown,
  options: CallOptions,
  trace: Trace | undefined,
): Completed | Promise<Completed> {
  if (trace) trace.ran = true;
  const outer = options.signal;
  if (outer?.aborted) return failed(abortedFailure(entry.name));
  const context = new ExecuteContext(entry.contract, options.callId, options.state, settings.registry);
  // Called as a plain function, so the entry is never its `this`.
  const execute = entry.execute;
  let started: unknown;
  try {
    started = execute(args, context);
  } catch (error) {
    return thrownFailure(settings, entry.name, error);
  }
  if (!isPromiseLike(started)) return checkResult(settings, entry, started, trace);
  const timeoutMs =
    options.timeoutMs === undefined ? entry.timeoutMs : tighter(entry.timeoutMs, options.timeoutMs);
  const limits: RunLimits =
    outer === undefined && timeoutMs === undefined ? NO_LIMITS : { signal: outer, timeoutMs };
  return settleRun(started, context, limits).then((outcome) =>
    settleOutcome(settings, entry, outcome, trace),
  );
}

function settleOutcome(
  settings: PipelineSettings,
  entry: ToolEntry,
  outcome: RunOutcome,
  trace: Trace | undefined,
): Completed | Promise<Completed> {
  switch (outcome.kind) {
    case 'returned':
      return checkResult(settings, entry, outcome.value, trace);
    case 'threw':
      return thrownFailure(settings, entry.name, outcome.error);
    case 'timeout':
      return failed(timeoutFailure(entry.name, outcome.timeoutMs));
    case 'aborted':
      return failed(abortedFailure(entry.name));
    default: {
      const exhaustive: never = outcome;
      return exhaustive;
    }
  }
}

// 5. Check the result: JSON-safe, then against the output schema when the tool has one.
function checkResult(
  settings: PipelineSettings,
  entry: ToolEntry,
  value: unknown,
  trace: Trace | undefined,
): Completed | Promise<Completed> {
  const carried = carriedBy(value);
  if (carried) return deliverCarried(settings, entry, carried, trace);
  let result: JsonValue;
  try {
    result = toJsonValue(value);
  } catch (error) {
    return failed(notSerializableFailure(entry.name, serializationProblem(error)));
  }
  const validateResult = entry.checksResults ? entry.resultValidator() : null;
  if (!validateResult) return deliver(result, entry.contract.returns?.schema, settings.maxResultChars);
  const validation = validateResult(result);
  return validation instanceof Promise
    ? validation.then((done) => checked(settings, entry, result, done, trace))
    : checked(settings, entry, result, validation, trace);
}

function checked(
  settings: PipelineSettings,
  entry: ToolEntry,
  result: JsonValue,
  validation: ValidationResult<unknown>,
  trace: Trace | undefined,
): Completed {
  const schema = entry.contract.returns?.schema;
  if (!validation.ok) {
    if (trace) trace.resultIssues = validation.issues;
    return settings.validateResults === 'warn'
      ? deliver(result, schema, settings.maxResultChars)
      : failed(invalidResultFailure(entry.name));
  }
  if (validation.value === result) return deliver(result, schema, settings.maxResultChars);
  // A schema library's output (keys stripped, defaults filled) is what the model reads.
  let output: JsonValue;
  try {
    output = toJsonValue(validation.value);
  } catch (error) {
    return failed(notSerializableFailure(entry.name, serializationProblem(error)));
  }
  return deliver(output, schema, settings.maxResultChars);
}

/** Tells the observer, if there is one, how the call ended, and a wrapper too when `withRecord`. */
function record(
  settings: PipelineSettings,
  completed: Completed,
  toolName: string,
  entry: ToolEntry | undefined,
  options: CallOptions,
  trace: Trace,
  startedAt: number,
  withRecord: boolean,
): Completed | (Completed & CallEnd) | Promise<Completed | (Completed & CallEnd)> {
  const envelope = completed.envelope;
  const callRecord: CallRecord = {
    tool: toolName,
    category: entry?.contract.category,
    callId: options.callId,
    arguments: trace.arguments,
    decision: refusalDecision(envelope, trace) ?? trace.decision,
    outcome: envelope.ok ? 'ok' : envelope.error.type,
    startedAt,
    durationMs: Date.now() - startedAt,
    state: options.state,
    ...(trace.resultIssues ? { resultIssues: trace.resultIssues } : {}),
  };
  let held: unknown;
  try {
    held = settings.observe?.(callRecord);
  } catch {
    // An observer that throws must not change the outcome of a call.
  }
  const done = withRecord ? { envelope, text: completed.text, record: callRecord } : completed;
  if (!isPromiseLike(held)) return done;
  // The observer commits the record before the result goes out (a shared audit log); when it cannot,
  // the outcome is withheld rather than sent unaudited.
  return Promise.resolve(held).then(
    () => done,
    (error: unknown) => {
      const failure = failed(
        storeUnavailableFailure(toolName, trace.ran, error instanceof Error ? error.message : undefined),
      );
      const record = { ...callRecord, outcome: 'store_unavailable' };
      return withRecord ? { ...failure, record } : failure;
    },
  );
}

// A refusal made before the tool ran is recorded as the decision it was: a store that could not be
// reached for an approval denies, whatever the policy said before it.
function refusalDecision(envelope: Envelope, trace: Trace): GateDecision | undefined {
  if (envelope.ok || trace.ran) return undefined;
  if (envelope.error.type === 'store_unavailable') {
    return { action: 'deny', rule: 'store-unavailable', reason: 'the shared store could not be reached' };
  }
  return undefined;
}

const NO_LIMITS: RunLimits = Object.freeze({});

function serializationProblem(error: unknown): string {
  return error instanceof CircularResultError ? error.message : 'it could not be converted';
}
