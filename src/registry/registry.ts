import { type JsonSchema, type ToolContract, WIDE_TOOL_NAME_PATTERN } from '../contract/index.js';
import { type AnyTool, isTool, type ToolExecuteContext } from '../define/tool.js';
import type { Envelope, FailureEnvelope } from '../dispatch/envelope.js';
import {
  abortedFailure,
  invalidArgumentsFailure,
  invalidJsonFailure,
  invalidResultFailure,
  notSerializableFailure,
  permissionDeniedFailure,
  timeoutFailure,
  toolFailure,
  unknownToolFailure,
} from '../dispatch/errors.js';
import type { Approver, BeforeCallHook, GateDecision, GateRequest } from '../dispatch/gate.js';
import type { ValidationIssue } from '../dispatch/issues.js';
import {
  type ArgumentLimits,
  DEFAULT_ARGUMENT_LIMITS,
  ParseFailure,
  readArguments,
} from '../dispatch/parse.js';
import { isPromiseLike, LazySignal, type RunLimits, type RunOutcome, settleRun } from '../dispatch/run.js';
import { CircularResultError, type JsonValue, toJsonValue } from '../dispatch/serialize.js';
import { shortenJson } from '../dispatch/shorten-json.js';
import { type ArgumentCheck, argumentCheckOf } from '../dispatch/validate-json-schema.js';
import { jsonSchemaResultValidator, type ResultValidator } from '../dispatch/validate-result.js';
import type { ValidationResult } from '../dispatch/validation.js';
import { ToolDefinitionError } from '../errors/index.js';
import { describeNameKey, nameKeys } from '../schema/names.js';
import { toProviderTools } from '../schema/to-provider-tools.js';
import type { ProviderFormat, ProviderToolMap, SchemaOptions } from '../schema/types.js';
import { closestNames } from '../util/closest.js';
import { deepFreeze } from '../util/deep-freeze.js';

/** Options of a {@link Registry}. */
export interface RegistryOptions {
  /** The permission gate: runs after validation, just before the function. */
  readonly beforeCall?: BeforeCallHook;
  /** Answers the gate's `ask`. Without one, `ask` is answered with `permission_denied`. */
  readonly approver?: Approver;
  /** Bounds on the arguments a model may send. */
  readonly limits?: Partial<ArgumentLimits>;
  /** Longest result, in characters of JSON, before it is cut with a visible marker (default 100,000). */
  readonly maxResultChars?: number;
  /** Wall-clock limit for every call without a tighter one, in milliseconds. */
  readonly defaultTimeoutMs?: number;
  /** Told of every call when it ends (for audit logs and metrics); an observer that throws is ignored. */
  readonly observe?: (record: CallRecord) => void;
  /**
   * What a result that breaks the tool's `output` schema becomes: `error` (default) withholds it and
   * answers `invalid_result`; `warn` passes it on; `off` does not check. Under `error` and `warn` the
   * issues go to observers as {@link CallRecord.resultIssues}, never to the model.
   */
  readonly validateResults?: ResultValidation;
}

/** How a {@link Registry} checks results against their `output` schema. */
export type ResultValidation = 'error' | 'warn' | 'off';

const RESULT_VALIDATION_MODES: readonly ResultValidation[] = ['error', 'warn', 'off'];

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
}

/** What an observer is told about a finished call. */
export interface CallRecord {
  readonly tool: string;
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

/** What one call has got to so far, for observers. */
interface Trace {
  arguments: unknown;
  decision: GateDecision | undefined;
  resultIssues: readonly ValidationIssue[] | undefined;
}

/** The result of one call as a value and as the JSON text the model reads. */
interface Completed {
  readonly envelope: Envelope;
  readonly text: string;
}

const DEFAULT_MAX_RESULT_CHARS = 100_000;
/** Room kept for the envelope around a result that is cut: `ok`, the `truncated` marker, its message. */
const ENVELOPE_ROOM = 160;

// A gate that throws must fail closed.
const GATE_ERROR: GateDecision = {
  action: 'deny',
  reason: 'the permission check failed, so the call was refused',
  rule: 'gate-error',
};

/**
 * The tools an agent may call, and the one way to call them. `schemas()` hands the contracts out;
 * `dispatch()` runs a model's call through parse, validation, the gate and the function, and always
 * answers with an envelope, never a throw.
 *
 * @example
 * const registry = new Registry().register(readFile, listDir);
 * const contracts = registry.schemas();
 * const text = await registry.dispatch('read_file', '{"path":"README.md"}');
 * // {"ok":true,"result":"# toolpact\n..."}
 */
export class Registry {
  /** Each tool with what its calls read, under its name. */
  readonly #tools = new Map<string, Entry>();
  readonly #options: RegistryOptions;
  readonly #limits: ArgumentLimits;
  readonly #maxResultChars: number;
  readonly #validateResults: ResultValidation;
  readonly #listeners = new Set<() => void>();
  readonly #sessionApprovals = new Set<string>();
  #wrappers: readonly CallWrapper[] = [];
  /** Per wrapper, what says whether it wants calls at all (absent: always). */
  readonly #wrapperActive = new Map<CallWrapper, () => boolean>();
  readonly #attempter: WrappedCall['attempt'] = (name, args, options, withRecord) =>
    Promise.resolve(this.#attempt(name, args, options, withRecord) as Completed & CallEnd);
  #contracts: readonly ToolContract[] | undefined;
  /** Provider output per format and options, dropped when the tool set changes. */
  readonly #providerSchemas = new Map<string, readonly unknown[]>();
  /** The name each tool goes by under each provider naming rule, to refuse collisions after aliasing. */
  readonly #nameKeys = new Map<string, string>();

  constructor(options: RegistryOptions = {}) {
    this.#options = options;
    this.#limits = { ...DEFAULT_ARGUMENT_LIMITS, ...options.limits };
    this.#maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
    if (!(this.#maxResultChars >= 200)) {
      throw new ToolDefinitionError(
        'invalid_option',
        `maxResultChars is ${String(options.maxResultChars)}; give at least 200 characters so an envelope fits.`,
      );
    }
    this.#validateResults = options.validateResults ?? 'error';
    if (!RESULT_VALIDATION_MODES.includes(this.#validateResults)) {
      throw new ToolDefinitionError(
        'invalid_option',
        `validateResults is ${JSON.stringify(options.validateResults)}; use 'error' (the default), 'warn' or 'off'.`,
      );
    }
  }

  /** Enrols tools. A duplicate name (or a value that is not a tool) throws {@link ToolDefinitionError}. */
  register(...input: readonly (AnyTool | readonly AnyTool[])[]): this {
    const tools = input.flat() as AnyTool[];
    const seen = new Set<string>();
    for (const tool of tools) {
      if (!isTool(tool)) {
        throw new ToolDefinitionError(
          'not_a_tool',
          `register() received ${describeNonTool(tool)}, which is not a tool. Make tools with defineTool() and pass them as arguments.`,
        );
      }
      const name = tool.contract.name;
      if (typeof name !== 'string' || !WIDE_TOOL_NAME_PATTERN.test(name)) {
        throw new ToolDefinitionError(
          'invalid_name',
          `register() received a tool named ${JSON.stringify(name)}; names use 1 to 128 of A-Z a-z 0-9 _ - . (make tools with defineTool or createTool).`,
        );
      }
      if (this.#tools.has(name) || seen.has(name)) {
        throw new ToolDefinitionError(
          'duplicate_name',
          `A tool named "${name}" is already registered. Tool names must be unique in a registry; rename one of them.`,
          name,
        );
      }
      seen.add(name);
    }
    // Two names that one provider would see as the same alias ("a.b" and "a_b" at OpenAI) are refused.
    const keys = new Map<string, string>();
    for (const tool of tools) {
      const name = tool.contract.name;
      for (const key of nameKeys(name)) {
        const other = this.#nameKeys.get(key) ?? keys.get(key);
        if (other !== undefined && other !== name) {
          throw new ToolDefinitionError(
            'duplicate_name',
            `The tools "${other}" and "${name}" would both be called "${key.slice(key.indexOf(':') + 1)}" at ${describeNameKey(key)}, whose name rules do not allow them as they are. Rename one of them.`,
            name,
          );
        }
        keys.set(key, name);
      }
    }
    for (const [key, name] of keys) this.#nameKeys.set(key, name);
    for (const tool of tools)
      this.#tools.set(tool.contract.name, new Entry(tool, this.#options, this.#validateResults));
    if (tools.length > 0) this.#changed();
    return this;
  }

  /** Removes a tool; true when it was registered. */
  unregister(name: string): boolean {
    const removed = this.#tools.delete(name);
    if (removed) {
      for (const key of nameKeys(name)) this.#nameKeys.delete(key);
      this.#changed();
    }
    return removed;
  }

  /** The tool with that exact name, or undefined. */
  get(name: string): AnyTool | undefined {
    return typeof name === 'string' ? this.#tools.get(name)?.tool : undefined;
  }

  has(name: string): boolean {
    return typeof name === 'string' && this.#tools.has(name);
  }

  /** Every registered tool, in registration order. */
  list(): AnyTool[] {
    return Array.from(this.#tools.values(), (entry) => entry.tool);
  }

  get size(): number {
    return this.#tools.size;
  }

  /**
   * The canonical contracts, in registration order; the same frozen array until the registry changes.
   * With a format, the tools in that provider's wire shape (see `toProviderTools` in `toolpact/schema`,
   * which also answers the diagnostics), computed once per format and options and kept until the
   * registry changes.
   *
   * @example
   * await openai.chat.completions.create({ model, messages, tools: registry.schemas('openai', { strict: true }) });
   */
  schemas(): readonly ToolContract[];
  schemas<F extends ProviderFormat>(format: F, options?: SchemaOptions): readonly ProviderToolMap[F][];
  schemas(format?: ProviderFormat, options?: SchemaOptions): readonly unknown[] {
    this.#contracts ??= Object.freeze(this.list().map((tool) => tool.contract));
    if (format === undefined || (format === 'canonical' && options === undefined)) return this.#contracts;
    const key = `${format}\u0000${options ? JSON.stringify(options, Object.keys(options).sort()) : ''}`;
    let tools = this.#providerSchemas.get(key);
    if (!tools) {
      tools = deepFreeze(toProviderTools(this.#contracts, format, options).tools);
      this.#providerSchemas.set(key, tools);
    }
    return tools;
  }

  /**
   * A new registry holding only the named tools, behind the same gate, approver, limits and observer:
   * what a delegate works in, so it can never reach a tool or a permission this registry does not give.
   * A name that is not registered throws {@link ToolDefinitionError}.
   */
  subset(names: readonly string[]): Registry {
    const tools = [...new Set(names)].map((name) => {
      const tool = this.get(name);
      if (!tool) {
        throw new ToolDefinitionError(
          'invalid_option',
          `subset() was given "${name}", which is not registered.`,
          name,
        );
      }
      return tool;
    });
    const subset = new Registry(this.#options).register(tools);
    for (const wrapper of this.#wrappers) {
      const active = this.#wrapperActive.get(wrapper);
      subset.wrapCalls(wrapper, active ? { active } : {});
    }
    return subset;
  }

  /** Calls `listener` whenever tools are registered or removed; returns a function that unsubscribes. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Wraps every later call (see {@link CallWrapper}); the first wrapper added is the outermost.
   * With `active`, asked before each call, the wrapper is skipped while it answers false, at no
   * further cost to the call (tracing with no SDK registered). Registries made by {@link subset}
   * afterwards are wrapped too. Returns a function that removes it.
   *
   * @example
   * const unwrap = registry.wrapCalls((call, run) => tracer.startActiveSpan(call.tool, () => run()));
   */
  wrapCalls(wrapper: CallWrapper, options: { readonly active?: () => boolean } = {}): () => void {
    this.#wrappers = [...this.#wrappers, wrapper];
    if (options.active) this.#wrapperActive.set(wrapper, options.active);
    return () => {
      this.#wrappers = this.#wrappers.filter((each) => each !== wrapper);
      this.#wrapperActive.delete(wrapper);
    };
  }

  /**
   * Runs a model's call and answers with the envelope's JSON text. `args` may be an object or the raw
   * JSON string a provider sends. Never throws and never rejects.
   */
  dispatch(name: string, args?: unknown, options?: CallOptions): Promise<string> {
    const completed = this.#run(name, args, options);
    return completed instanceof Promise ? completed.then(textOf) : Promise.resolve(completed.text);
  }

  /** The same as {@link dispatch}, answered as a typed value: narrow on `ok`, then `error.type`. */
  call(name: string, args?: unknown, options?: CallOptions): Promise<Envelope> {
    const completed = this.#run(name, args, options);
    return completed instanceof Promise ? completed.then(envelopeOf) : Promise.resolve(completed.envelope);
  }

  // Synchronous until something asynchronous happens: a synchronous tool's call settles without a turn of
  // the event loop of its own. Every stage that can fail is caught, so the promise never rejects.
  #run(name: unknown, args: unknown, options: CallOptions = NO_OPTIONS): Completed | Promise<Completed> {
    const wrappers = this.#wrappers;
    if (wrappers.length === 0) return this.#attempt(name, args, options, false);
    if (wrappers.length === 1) {
      return this.#isActive(wrappers[0]!)
        ? this.#wrapped(wrappers, name, args, options)
        : this.#attempt(name, args, options, false);
    }
    const live =
      this.#wrapperActive.size === 0 ? wrappers : wrappers.filter((wrapper) => this.#isActive(wrapper));
    return live.length === 0
      ? this.#attempt(name, args, options, false)
      : this.#wrapped(live, name, args, options);
  }

  #isActive(wrapper: CallWrapper): boolean {
    const active = this.#wrapperActive.get(wrapper);
    try {
      return active ? active() !== false : true;
    } catch {
      return true;
    }
  }

  #wrapped(
    wrappers: readonly CallWrapper[],
    name: unknown,
    args: unknown,
    options: CallOptions,
  ): Completed | Promise<Completed> {
    const toolName = typeof name === 'string' ? name : String(name);
    const call: CallStart = {
      tool: toolName,
      contract: this.get(toolName)?.contract,
      callId: options.callId,
      state: options.state,
    };
    // Plain objects and a bound function rather than closures: a declined call should cost next to nothing.
    const state: WrappedCall = { attempt: this.#attempter, name, args, options, pending: undefined };
    const run = runWrapped.bind(undefined, state);
    for (let index = 0; index < wrappers.length; index++) {
      const inner = index === wrappers.length - 1 ? run : nestedRun(wrappers, index + 1, call, run, state);
      let result: unknown;
      try {
        result = wrappers[index]!(call, inner);
      } catch {
        result = undefined;
      }
      if (state.pending || result !== undefined) return settleWrapped(result, run, state);
    }
    // Every wrapper declined this call: it runs as if there were none.
    return this.#attempt(name, args, options, false);
  }

  /** One call, start to end; `withRecord` (for wrappers) adds the observers' record to what it answers. */
  #attempt(
    name: unknown,
    args: unknown,
    options: CallOptions,
    withRecord: boolean,
  ): Completed | Promise<Completed> {
    const recorded = withRecord || this.#options.observe !== undefined;
    const startedAt = recorded ? Date.now() : 0;
    const toolName = typeof name === 'string' ? name : String(name);
    // Without an observer or a wrapper nobody reads a trace, so none is kept.
    const trace: Trace | undefined = recorded
      ? { arguments: undefined, decision: undefined, resultIssues: undefined }
      : undefined;
    let entry: Entry | undefined;
    let pending: Completed | Promise<Completed>;
    try {
      entry = this.#tools.get(toolName);
      pending = entry
        ? this.#runTool(entry, args, options, trace)
        : failed(unknownToolFailure(toolName, closestNames(toolName, this.#tools.keys())));
    } catch (error) {
      pending = broken(toolName, error);
    }
    if (pending instanceof Promise) {
      return pending.then(
        (completed) => this.#finish(completed, toolName, entry, options, trace, startedAt, withRecord),
        (error: unknown) =>
          this.#finish(broken(toolName, error), toolName, entry, options, trace, startedAt, withRecord),
      );
    }
    return this.#finish(pending, toolName, entry, options, trace, startedAt, withRecord);
  }

  /** Tells the observer, if there is one, how the call ended, and a wrapper too when `withRecord`. */
  #finish(
    completed: Completed,
    toolName: string,
    entry: Entry | undefined,
    options: CallOptions,
    trace: Trace | undefined,
    startedAt: number,
    withRecord: boolean,
  ): Completed | (Completed & CallEnd) {
    if (!trace) return completed;
    const envelope = completed.envelope;
    const record: CallRecord = {
      tool: toolName,
      category: entry?.contract.category,
      callId: options.callId,
      arguments: trace.arguments,
      decision: trace.decision,
      outcome: envelope.ok ? 'ok' : envelope.error.type,
      startedAt,
      durationMs: Date.now() - startedAt,
      state: options.state,
      ...(trace.resultIssues ? { resultIssues: trace.resultIssues } : {}),
    };
    try {
      this.#options.observe?.(record);
    } catch {
      // An observer must not change the outcome of a call.
    }
    return withRecord ? { envelope, text: completed.text, record } : completed;
  }

  // The stages below stay synchronous while nothing asynchronous happens, so a call costs one promise
  // for an async tool and none of its own for the rest.

  #runTool(
    entry: Entry,
    args: unknown,
    options: CallOptions,
    trace: Trace | undefined,
  ): Completed | Promise<Completed> {
    const value = readArguments(args, this.#limits);
    if (value instanceof ParseFailure) {
      const failure = value.outcome;
      return failure.kind === 'invalid_json'
        ? failed(invalidJsonFailure(entry.name, failure.problem))
        : failed(invalidArgumentsFailure(entry.name, failure.issues));
    }
    if (trace) trace.arguments = value;
    // A JSON Schema tool's check answers without a result object; any other validator as it will.
    const check = entry.check;
    if (check !== undefined) {
      const issues = check(value);
      return issues
        ? failed(invalidArgumentsFailure(entry.name, issues))
        : this.#validated(entry, value, options, trace);
    }
    // Called as before the registry kept entries: on the tool object.
    const validation = entry.validate.call(entry.tool, value);
    return validation instanceof Promise
      ? validation.then((settled) => this.#validatedBy(entry, settled, options, trace))
      : this.#validatedBy(entry, validation, options, trace);
  }

  #validatedBy(
    entry: Entry,
    validation: ValidationResult<unknown>,
    options: CallOptions,
    trace: Trace | undefined,
  ): Completed | Promise<Completed> {
    return validation.ok
      ? this.#validated(entry, validation.value, options, trace)
      : failed(invalidArgumentsFailure(entry.name, validation.issues));
  }

  /** After validation: `args` is what the tool receives. */
  #validated(
    entry: Entry,
    args: unknown,
    options: CallOptions,
    trace: Trace | undefined,
  ): Completed | Promise<Completed> {
    const name = entry.name;
    if (trace) trace.arguments = args;
    if (options.signal?.aborted) return failed(abortedFailure(name));
    if (!this.#options.beforeCall) return this.#execute(entry, args, options, trace);
    const request: GateRequest = {
      tool: entry.contract,
      meta: entry.tool.meta,
      arguments: args,
      callId: options.callId,
      state: options.state,
    };
    const denial = this.#gate(request, trace);
    if (denial instanceof Promise) {
      return denial.then((settled) =>
        settled ? failed(settled) : this.#execute(entry, args, options, trace),
      );
    }
    return denial ? failed(denial) : this.#execute(entry, args, options, trace);
  }

  #execute(
    entry: Entry,
    args: unknown,
    options: CallOptions,
    trace: Trace | undefined,
  ): Completed | Promise<Completed> {
    const outer = options.signal;
    if (outer?.aborted) return failed(abortedFailure(entry.name));
    const context = new ExecuteContext(entry.contract, options, this);
    // Called as a plain function, so the entry is never its `this`.
    const execute = entry.execute;
    let started: unknown;
    try {
      started = execute(args, context);
    } catch (error) {
      return failed(toolFailure(entry.name, error));
    }
    // A synchronous result is settled here and now: no timer, no extra turn of the event loop.
    if (!isPromiseLike(started)) return this.#succeed(entry, started, trace);
    const timeoutMs =
      options.timeoutMs === undefined ? entry.timeoutMs : tighter(entry.timeoutMs, options.timeoutMs);
    const limits: RunLimits =
      outer === undefined && timeoutMs === undefined ? NO_LIMITS : { signal: outer, timeoutMs };
    return settleRun(started, context, limits).then((outcome) => this.#settle(entry, outcome, trace));
  }

  #settle(entry: Entry, outcome: RunOutcome, trace: Trace | undefined): Completed | Promise<Completed> {
    const name = entry.name;
    switch (outcome.kind) {
      case 'returned':
        return this.#succeed(entry, outcome.value, trace);
      case 'threw':
        return failed(toolFailure(name, outcome.error));
      case 'timeout':
        return failed(timeoutFailure(name, outcome.timeoutMs));
      case 'aborted':
        return failed(abortedFailure(name));
      default: {
        const exhaustive: never = outcome;
        return exhaustive;
      }
    }
  }

  /** The gate: synchronous when the hook answers synchronously; only `ask` always waits. */
  #gate(
    request: GateRequest,
    trace: Trace | undefined,
  ): FailureEnvelope | undefined | Promise<FailureEnvelope | undefined> {
    const hook = this.#options.beforeCall;
    if (!hook) return undefined;
    let decision: ReturnType<BeforeCallHook>;
    try {
      decision = hook(request);
    } catch {
      decision = GATE_ERROR;
    }
    if (decision instanceof Promise) {
      return decision.then(
        (settled) => this.#decide(request, trace, settled),
        () => this.#decide(request, trace, GATE_ERROR),
      );
    }
    return this.#decide(request, trace, decision);
  }

  #decide(
    request: GateRequest,
    trace: Trace | undefined,
    decision: GateDecision | undefined,
  ): FailureEnvelope | undefined | Promise<FailureEnvelope | undefined> {
    if (!decision) return undefined;
    if (trace) trace.decision = decision;
    const name = request.tool.name;
    switch (decision.action) {
      case 'allow':
        return undefined;
      case 'deny':
        return permissionDeniedFailure(name, decision.reason, decision.rule);
      case 'ask':
        return this.#ask(request, decision);
      default: {
        const exhaustive: never = decision;
        return permissionDeniedFailure(
          name,
          `the gate answered ${JSON.stringify(exhaustive)}, which is not a decision`,
        );
      }
    }
  }

  async #ask(
    request: GateRequest,
    decision: GateDecision & { action: 'ask' },
  ): Promise<FailureEnvelope | undefined> {
    const name = request.tool.name;
    // A session is the lifetime of this registry: an approval "for the session" holds until it is
    // dropped, for this tool under the rule that asked (another rule's ask is asked again).
    const sessionKey = `${name}\u0000${decision.rule ?? ''}`;
    if (this.#sessionApprovals.has(sessionKey)) return undefined;
    const approver = this.#options.approver;
    if (!approver) {
      return permissionDeniedFailure(
        name,
        `this call needs approval${decision.reason ? ` (${decision.reason})` : ''}, and no approver is configured to give it`,
        decision.rule,
      );
    }
    let answer: Awaited<ReturnType<Approver>>;
    try {
      answer = await approver({ ...request, decision });
    } catch {
      answer = { action: 'deny', reason: 'the approval could not be obtained' };
    }
    if (answer.action === 'allow') {
      if (answer.scope === 'session') this.#sessionApprovals.add(sessionKey);
      return undefined;
    }
    return permissionDeniedFailure(name, answer.reason ?? 'the approver declined this call', decision.rule);
  }

  #succeed(entry: Entry, value: unknown, trace: Trace | undefined): Completed | Promise<Completed> {
    let result: JsonValue;
    try {
      result = toJsonValue(value);
    } catch (error) {
      return failed(notSerializableFailure(entry.name, serializationProblem(error)));
    }
    const validate = entry.checksResults ? entry.resultValidator() : null;
    if (!validate) return this.#deliver(entry, result);
    const validation = validate(result);
    return validation instanceof Promise
      ? validation.then((settled) => this.#checked(entry, result, settled, trace))
      : this.#checked(entry, result, validation, trace);
  }

  #checked(
    entry: Entry,
    result: JsonValue,
    validation: ValidationResult<unknown>,
    trace: Trace | undefined,
  ): Completed {
    const name = entry.name;
    if (!validation.ok) {
      if (trace) trace.resultIssues = validation.issues;
      return this.#validateResults === 'warn'
        ? this.#deliver(entry, result)
        : failed(invalidResultFailure(name));
    }
    if (validation.value === result) return this.#deliver(entry, result);
    // A schema library's output (keys stripped, defaults filled) is what the model reads.
    let output: JsonValue;
    try {
      output = toJsonValue(validation.value);
    } catch (error) {
      return failed(notSerializableFailure(name, serializationProblem(error)));
    }
    return this.#deliver(entry, output);
  }

  /**
   * The success envelope, cut to `maxResultChars` with a visible marker when it is longer: shortened
   * as a value when the tool has a return schema and the shorter value still matches it (so MCP can
   * still send it as `structuredContent`), else cut as text.
   */
  #deliver(entry: Entry, result: JsonValue): Completed {
    const resultText = JSON.stringify(result);
    if (resultText.length <= this.#maxResultChars - ENVELOPE_ROOM) {
      return new Delivered(result, `{"ok":true,"result":${resultText}}`);
    }
    const schema = entry.contract.returns?.schema;
    const shortened =
      schema && result !== null && typeof result === 'object'
        ? this.#shorten(result, resultText.length, schema)
        : undefined;
    return shortened ?? this.#cut(result, resultText);
  }

  #shorten(result: JsonValue, totalChars: number, schema: JsonSchema): Completed | undefined {
    let fraction = (this.#maxResultChars - ENVELOPE_ROOM) / totalChars;
    for (let attempt = 0; attempt < 16; attempt++) {
      const shown = shortenJson(result, fraction);
      const shownChars = JSON.stringify(shown).length;
      const envelope: Envelope = {
        ok: true,
        result: shown,
        truncated: {
          totalChars,
          shownChars,
          message: `The result was shortened to ${shownChars} of ${totalChars} characters of JSON: lists keep their first items and strings their first characters. Ask for a smaller part (a narrower range, path or query) to see the rest.`,
        },
      };
      const text = JSON.stringify(envelope);
      if (text.length <= this.#maxResultChars) {
        return jsonSchemaResultValidator(schema)(shown).ok ? { envelope, text } : undefined;
      }
      fraction *= (this.#maxResultChars / text.length) * 0.9;
    }
    return undefined;
  }

  #cut(result: JsonValue, resultText: string): Completed {
    const source = typeof result === 'string' ? result : resultText;
    const total = source.length;
    const isText = typeof result === 'string';
    // Escaping can make the shown part longer than its length in the source, so shrink until it fits.
    let keep = Math.min(total, this.#maxResultChars - ENVELOPE_ROOM);
    let envelope: Envelope;
    let text: string;
    for (;;) {
      let shown = source.slice(0, keep);
      if (/[\uD800-\uDBFF]$/.test(shown)) shown = shown.slice(0, -1); // never split a surrogate pair
      envelope = {
        ok: true,
        result: shown,
        truncated: {
          totalChars: total,
          shownChars: shown.length,
          message: `The result was cut to its first ${shown.length} of ${total} characters${isText ? '' : ' of JSON'}. Ask for a smaller part (a narrower range, path or query) to see the rest.`,
        },
      };
      text = JSON.stringify(envelope);
      if (text.length <= this.#maxResultChars || keep === 0) break;
      keep = Math.max(0, Math.floor(keep * (this.#maxResultChars / text.length)) - 8);
    }
    return { envelope, text };
  }

  #changed(): void {
    this.#contracts = undefined;
    this.#providerSchemas.clear();
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // A listener's failure must not break registration.
      }
    }
  }
}

/** A success as the call path makes it: the text at once, the envelope object only when it is read. */
class Delivered implements Completed {
  readonly result: JsonValue;
  readonly text: string;
  #envelope: Envelope | undefined;

  constructor(result: JsonValue, text: string) {
    this.result = result;
    this.text = text;
    this.#envelope = undefined;
  }

  get envelope(): Envelope {
    this.#envelope ??= { ok: true, result: this.result };
    return this.#envelope;
  }
}

/**
 * A registered tool and what its calls read, fixed at registration: one shape for every tool, so the
 * call path reads the same fields whatever optional keys each tool object has.
 */
class Entry {
  readonly tool: AnyTool;
  readonly contract: ToolContract;
  readonly name: string;
  readonly validate: AnyTool['validate'];
  /** The validator's check without a result object, when it has one (JSON Schema tools). */
  readonly check: ArgumentCheck | undefined;
  readonly execute: AnyTool['execute'];
  /** The tighter of the tool's own limit and the registry's default. */
  readonly timeoutMs: number | undefined;
  /** True when results are checked: the tool has an output schema and the registry checks them. */
  readonly checksResults: boolean;
  #resultValidator: ResultValidator | null | undefined;

  constructor(tool: AnyTool, options: RegistryOptions, validateResults: ResultValidation) {
    this.tool = tool;
    this.contract = tool.contract;
    this.name = tool.contract.name;
    this.validate = tool.validate;
    this.check = argumentCheckOf(tool.validate);
    this.execute = tool.execute;
    this.timeoutMs = tighter(tool.timeoutMs, options.defaultTimeoutMs);
    this.checksResults =
      validateResults !== 'off' &&
      (tool.validateResult !== undefined || tool.contract.returns?.schema !== undefined);
    this.#resultValidator = undefined;
  }

  /** The result check, made on the first result (a JSON Schema is compiled then). */
  resultValidator(): ResultValidator | null {
    if (this.#resultValidator === undefined) {
      const schema = this.contract.returns?.schema;
      this.#resultValidator = this.tool.validateResult ?? (schema ? jsonSchemaResultValidator(schema) : null);
    }
    return this.#resultValidator;
  }
}

/** What `execute` receives: it is the call's own lazy signal too, so one object serves both. */
class ExecuteContext extends LazySignal implements ToolExecuteContext {
  readonly tool: ToolContract;
  readonly callId: string | undefined;
  readonly state: unknown;
  readonly registry: Registry;
  constructor(tool: ToolContract, options: CallOptions, registry: Registry) {
    super();
    this.tool = tool;
    this.callId = options.callId;
    this.state = options.state;
    this.registry = registry;
  }
}

const NO_OPTIONS: CallOptions = Object.freeze({});
const NO_LIMITS: RunLimits = Object.freeze({});

function textOf(completed: Completed): string {
  return completed.text;
}

function envelopeOf(completed: Completed): Envelope {
  return completed.envelope;
}

// Only a defect inside toolpact or a broken contract can land here; the model still gets an envelope.
function broken(toolName: string, error: unknown): Completed {
  return failed(toolFailure(toolName, error));
}

function serializationProblem(error: unknown): string {
  return error instanceof CircularResultError ? error.message : 'it could not be converted';
}

/** A call under wrappers: how to run it, and its promise once it runs. */
interface WrappedCall {
  readonly attempt: (
    name: unknown,
    args: unknown,
    options: CallOptions,
    withRecord: boolean,
  ) => Promise<Completed & CallEnd>;
  readonly name: unknown;
  readonly args: unknown;
  readonly options: CallOptions;
  pending: Promise<Completed & CallEnd> | undefined;
}

/** The `run` a wrapper is given: starts the call the first time, answers the same promise after. */
function runWrapped(state: WrappedCall): Promise<Completed & CallEnd> {
  state.pending ??= state.attempt(state.name, state.args, state.options, true);
  return state.pending;
}

/** What a wrapper's promise settles into: the call's own result, run now if the wrapper never ran it. */
function settleWrapped(
  result: unknown,
  run: () => Promise<Completed & CallEnd>,
  state: WrappedCall,
): Promise<Completed & CallEnd> {
  // A wrapper that hands back run's own promise costs no further turn of the event loop.
  if (state.pending && result === state.pending) return state.pending;
  return result instanceof Promise ? result.then(run, run) : run();
}

/** The `run` given to an outer wrapper: the wrappers inside it, then the call, at most once. */
function nestedRun(
  wrappers: readonly CallWrapper[],
  index: number,
  call: CallStart,
  run: () => Promise<Completed & CallEnd>,
  state: WrappedCall,
): () => Promise<Completed & CallEnd> {
  let started: Promise<Completed & CallEnd> | undefined;
  return () => {
    if (started) return started;
    const inner = index === wrappers.length - 1 ? run : nestedRun(wrappers, index + 1, call, run, state);
    try {
      started = settleWrapped(wrappers[index]!(call, inner), inner, state);
    } catch {
      started = inner();
    }
    return started;
  };
}

function failed(envelope: FailureEnvelope): Completed {
  return { envelope, text: JSON.stringify(envelope) };
}

/** The tighter of two time limits, where a limit that is not a positive finite number is none. */
function tighter(a: number | undefined, b: number | undefined): number | undefined {
  if (!usable(a)) return usable(b) ? b : undefined;
  return usable(b) && (b as number) < (a as number) ? b : a;
}

function usable(value: number | undefined): boolean {
  return value !== undefined && Number.isFinite(value) && value > 0;
}

function describeNonTool(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return `a function${value.name ? ` (${value.name})` : ''}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
