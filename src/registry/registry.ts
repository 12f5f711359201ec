import { DEFAULT_MAX_BINARY_BYTES } from '../content/limit-content.js';
import { type ToolContract, WIDE_TOOL_NAME_PATTERN } from '../contract/index.js';
import { type AnyTool, isTool } from '../contract/tool.js';
import type { Prompt } from '../define/define-prompt.js';
import type { Resource } from '../define/define-resource.js';
import type { GetPromptResult, ReadResourceResult } from '../define/mcp-content.js';
import {
  type CallOptions,
  type CallRecord,
  type CallWrapper,
  NO_OPTIONS,
  type ResultValidation,
} from '../dispatch/call.js';
import { type Completed, failed } from '../dispatch/completed.js';
import type { Envelope, FailureEnvelope } from '../dispatch/envelope.js';
import { registryClosedFailure, storeUnavailableFailure } from '../dispatch/errors.js';
import type {
  ApprovalQueue,
  Approver,
  BeforeCallHook,
  GateRequest,
  GateTarget,
  VisibilityHook,
} from '../dispatch/gate.js';
import { gateCall } from '../dispatch/gate-call.js';
import { type ArgumentLimits, DEFAULT_ARGUMENT_LIMITS } from '../dispatch/parse.js';
import { type PipelineSettings, runCall } from '../dispatch/pipeline.js';
import { isPromiseLike } from '../dispatch/run.js';
import { ToolEntry } from '../dispatch/tool-entry.js';
import { type Attempt, CallWrappers, wrapCall } from '../dispatch/wrap-calls.js';
import { ToolDefinitionError } from '../errors/index.js';
import { describeNameKey, nameKeys } from '../schema/names.js';
import { toProviderTools } from '../schema/to-provider-tools.js';
import type { ProviderFormat, ProviderToolMap, SchemaOptions } from '../schema/types.js';
import { deepFreeze } from '../util/deep-freeze.js';
import { PromptCatalog, ResourceCatalog } from './catalog.js';
import {
  type CompletionReference,
  type CompletionResult,
  complete,
  getPrompt,
  type OfferingGate,
  type OfferingGateRequest,
  readResource,
  subscribeResource,
} from './offering-requests.js';
import { RegistryRequestError } from './request-error.js';

export type {
  CallEnd,
  CallOptions,
  CallRecord,
  CallStart,
  CallWrapper,
  ResultValidation,
} from '../dispatch/call.js';
export type { CompletionReference, CompletionResult } from './offering-requests.js';

/** What a registry offers, for {@link Registry.onListChange}: which list changed. */
export type OfferingKind = 'tools' | 'resources' | 'prompts';

// A tool's context names the registry running it; the tool's module cannot import this one, which
// imports tools, so the type is added here.
declare module '../contract/tool.js' {
  interface ToolContextTypes {
    readonly registry: Registry;
  }
}

/** Options of a {@link Registry}. */
export interface RegistryOptions {
  /** The permission gate: runs after validation, just before the function. */
  readonly beforeCall?: BeforeCallHook;
  /** Answers the gate's `ask`. Without one, `ask` is answered with `permission_denied`. */
  readonly approver?: Approver;
  /**
   * Out-of-band approvals (a fleet's queue in the shared store): consulted on every `ask` before the
   * call's `onAsk` and the `approver`; it may leave the ask to them by answering `undefined`.
   */
  readonly approvalQueue?: ApprovalQueue;
  /**
   * Whether a caller may see a tool: served listings, tool search and `call_tool` leave out a tool
   * it answers false for, and a direct call of one over MCP is answered as an unknown tool would be.
   * `createPolicyGate` gives one when its policy tests who is calling; without one every caller sees
   * every tool.
   */
  readonly visibleTo?: VisibilityHook;
  /** Bounds on the arguments a model may send. */
  readonly limits?: Partial<ArgumentLimits>;
  /** Longest result, in characters of JSON, before it is cut with a visible marker (default 100,000). */
  readonly maxResultChars?: number;
  /**
   * Most decoded bytes of binary content (images, audio, embedded blobs) in one `toolResult` or
   * imported tool's result (default 10 MiB); a block past it is replaced by a text block saying so.
   */
  readonly maxBinaryBytes?: number;
  /** Wall-clock limit for every call without a tighter one, in milliseconds. */
  readonly defaultTimeoutMs?: number;
  /**
   * Told of every call when it ends (for audit logs and metrics); an observer that throws is ignored.
   * An observer that answers a promise holds the call's result until it settles (an audit record
   * committed before the result is sent); when it rejects, the outcome is withheld and the call
   * answers `store_unavailable`.
   */
  readonly observe?: (record: CallRecord) => unknown;
  /**
   * What a result that breaks the tool's `output` schema becomes: `error` (default) withholds it and
   * answers `invalid_result`; `warn` passes it on; `off` does not check. Under `error` and `warn` the
   * issues go to observers as {@link CallRecord.resultIssues}, never to the model.
   */
  readonly validateResults?: ResultValidation;
}

/**
 * Something a registry closes when it closes (see {@link Registry.own}): an object with `close()`, an
 * async or sync disposable (`Symbol.asyncDispose`, `Symbol.dispose`), or a function that releases it.
 */
export type OwnedResource =
  | { readonly [Symbol.asyncDispose]: () => PromiseLike<void> }
  | { readonly [Symbol.dispose]: () => void }
  | { readonly close: () => unknown }
  | (() => unknown);

/** {@link Registry.close} could not close every resource; `errors` holds each failure, in close order. */
export class RegistryCloseError extends AggregateError {
  override readonly name = 'RegistryCloseError';
}

const RESULT_VALIDATION_MODES: readonly ResultValidation[] = ['error', 'warn', 'off'];

const DEFAULT_MAX_RESULT_CHARS = 100_000;

/** What the gate is asked about a read, a get or a completion, with the call's id and state. */
function offeringGateRequest(
  request: OfferingGateRequest,
  options: CallOptions,
): GateRequest & { readonly target: GateTarget } {
  return {
    target: request.target,
    tool: request.contract,
    meta: request.meta,
    arguments: request.arguments,
    callId: options.callId,
    state: options.state,
  };
}

/** How a completion answers the gate's `ask`: no person is asked to let suggestions be seen. */
const COMPLETION_ASK = () =>
  ({
    action: 'deny',
    reason:
      'it leads to what the policy allows only with an approval, and suggestions are not offered for that',
  }) as const;

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
  readonly #tools = new Map<string, ToolEntry>();
  readonly #options: RegistryOptions;
  /** What the call pipeline reads of this registry (`src/dispatch/pipeline.ts`). */
  readonly #settings: PipelineSettings;
  readonly #listeners = new Set<() => void>();
  readonly #listListeners = new Set<(kind: OfferingKind) => void>();
  readonly #resources = new ResourceCatalog();
  readonly #prompts = new PromptCatalog();
  readonly #wrappers = new CallWrappers();
  /** One call through the pipeline, as the innermost wrapper runs it. */
  readonly #attempt: Attempt = (name, args, options, withRecord) =>
    runCall(this.#settings, this.#tools, name, args, options, withRecord);
  #contracts: readonly ToolContract[] | undefined;
  /** Provider output per format and options, dropped when the tool set changes. */
  readonly #providerSchemas = new Map<string, readonly unknown[]>();
  /** The name each tool goes by under each provider naming rule, to refuse collisions after aliasing. */
  readonly #nameKeys = new Map<string, string>();
  /** What {@link close} releases, in the order it was attached. */
  readonly #owned: OwnedResource[] = [];
  #closed = false;
  /** The registry this one is a {@link subset} of, whose close ends this one's calls too. */
  #parent: Registry | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: RegistryOptions = {}) {
    this.#options = options;
    const maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
    if (!(maxResultChars >= 200)) {
      throw new ToolDefinitionError(
        'invalid_option',
        `maxResultChars is ${String(options.maxResultChars)}; give at least 200 characters so an envelope fits.`,
      );
    }
    const maxBinaryBytes = options.maxBinaryBytes ?? DEFAULT_MAX_BINARY_BYTES;
    if (!Number.isSafeInteger(maxBinaryBytes) || maxBinaryBytes < 0) {
      throw new ToolDefinitionError(
        'invalid_option',
        `maxBinaryBytes is ${String(options.maxBinaryBytes)}; give a whole number of bytes, 0 or more (0 sends no binary data).`,
      );
    }
    const validateResults = options.validateResults ?? 'error';
    if (!RESULT_VALIDATION_MODES.includes(validateResults)) {
      throw new ToolDefinitionError(
        'invalid_option',
        `validateResults is ${JSON.stringify(options.validateResults)}; use 'error' (the default), 'warn' or 'off'.`,
      );
    }
    this.#settings = {
      beforeCall: options.beforeCall,
      approver: options.approver,
      approvalQueue: options.approvalQueue,
      sessionApprovals: new Set(),
      limits: { ...DEFAULT_ARGUMENT_LIMITS, ...options.limits },
      maxResultChars,
      maxBinaryBytes,
      validateResults,
      observe: options.observe,
      registry: this,
    };
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
      this.#tools.set(
        tool.contract.name,
        new ToolEntry(tool, this.#options.defaultTimeoutMs, this.#settings.validateResults),
      );
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

  /**
   * Whether the caller of `state` may see the tool (see {@link RegistryOptions.visibleTo}); false for
   * a name that is not registered.
   *
   * @example
   * registry.visible('deploy', mcpContextOf(state)); // false when the policy denies it to this caller
   */
  visible(name: string, state: unknown): boolean {
    const tool = this.get(name);
    if (!tool) return false;
    const hook = this.#options.visibleTo;
    if (!hook) return true;
    try {
      return hook({ tool: tool.contract, meta: tool.meta, state }) === true;
    } catch {
      return false;
    }
  }

  /** Whether what a caller sees depends on who it is (a {@link RegistryOptions.visibleTo} was given). */
  get listedPerCaller(): boolean {
    return this.#options.visibleTo !== undefined;
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
    subset.#parent = this;
    for (const [wrapper, active] of this.#wrappers.entries()) {
      subset.wrapCalls(wrapper, active ? { active } : {});
    }
    return subset;
  }

  /**
   * Attaches a resource to this registry's lifetime: {@link close} releases it, after everything
   * attached later (reverse order). Imported MCP connections attach themselves; so do the audit sinks
   * and watchers the CLI makes. Returns the resource, so it can be attached where it is made. Given to
   * a registry that is already closed, the resource is released at once.
   *
   * @example
   * const db = registry.own(new Database('audit.db'));
   * await using registry = new Registry(); // closes db when the scope ends
   */
  own<T extends OwnedResource>(resource: T): T {
    if (!isOwnable(resource)) {
      throw new ToolDefinitionError(
        'invalid_option',
        `own() received ${describeNonTool(resource)}; give an object with close() or Symbol.asyncDispose, or a function that releases the resource.`,
      );
    }
    if (this.#closed) void release(resource).catch(() => {});
    else this.#owned.push(resource);
    return resource;
  }

  /** Detaches a resource given to {@link own} without releasing it; true when it was attached. */
  disown(resource: OwnedResource): boolean {
    const index = this.#owned.lastIndexOf(resource);
    if (index < 0) return false;
    this.#owned.splice(index, 1);
    return true;
  }

  /**
   * True once {@link close} has been called (or, for a {@link subset}, its parent's): every later call
   * answers `registry_closed`.
   */
  get closed(): boolean {
    return this.#closed || (this.#parent?.closed ?? false);
  }

  /**
   * Releases everything attached to this registry (MCP connections, sinks, watchers, what was given to
   * {@link own}), the last attached first, each once, even when one of them fails. From then on every
   * call answers `registry_closed`; calls already running finish as they were. Closing again answers
   * the first close's promise. Rejects with a {@link RegistryCloseError} listing what failed to close.
   */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    const resources = this.#owned.splice(0).reverse();
    this.#closing = (async () => {
      const errors: unknown[] = [];
      for (const resource of resources) {
        try {
          await release(resource);
        } catch (error) {
          errors.push(error);
        }
      }
      if (errors.length > 0) {
        const reasons = errors.map((error) => (error instanceof Error ? error.message : String(error)));
        throw new RegistryCloseError(
          errors,
          `${errors.length} of ${resources.length} resources failed to close: ${reasons.join('; ')}`,
        );
      }
    })();
    return this.#closing;
  }

  /** `await using registry = …` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Calls `listener` whenever tools are registered or removed; returns a function that unsubscribes. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Calls `listener` with the kind of what changed (`tools`, `resources` or `prompts`) whenever
   * something of that kind is registered or removed; returns a function that unsubscribes. The MCP
   * server sends the `list_changed` notification of that kind alone.
   *
   * @example
   * registry.onListChange((kind) => { if (kind === 'prompts') refreshSlashCommands(); });
   */
  onListChange(listener: (kind: OfferingKind) => void): () => void {
    this.#listListeners.add(listener);
    return () => this.#listListeners.delete(listener);
  }

  /**
   * Enrols resources made by `defineResource`. A URI or template already registered (or a value that
   * is not a resource) throws {@link ToolDefinitionError}.
   *
   * @example
   * registry.registerResource(readme, note);
   */
  registerResource(...input: readonly (Resource | readonly Resource[])[]): this {
    if (this.#resources.add(input.flat()) > 0) this.#listChanged('resources');
    return this;
  }

  /** Removes a resource by its key (its `uri`, or its `template` as written); true when it was registered. */
  unregisterResource(key: string): boolean {
    const removed = this.#resources.remove(key);
    if (removed) this.#listChanged('resources');
    return removed;
  }

  /** Every registered resource, static ones and templates, in registration order. */
  resources(): Resource[] {
    return this.#resources.list();
  }

  /**
   * Reads the resource with that URI: the static resource that has it, else the first template (in
   * registration order) that matches it. Refusals reject with a {@link RegistryRequestError}
   * (`not_found`, `denied`, `failed`, `closed`).
   *
   * @example
   * const { contents } = await registry.readResource('notes://todo');
   */
  readResource(uri: string, options: CallOptions = NO_OPTIONS): Promise<ReadResourceResult> {
    return this.#open('resource', uri).then(() =>
      readResource(this.#resources, uri, options, this.#offeringGate),
    );
  }

  /**
   * Watches the resource with that URI for one subscriber (its definition's `subscribe`); answers the
   * function that stops watching. A resource without `subscribe` never calls `updated`. The gate
   * decides a subscription as a read of the URI; refusals and a failed `subscribe` reject with a
   * {@link RegistryRequestError}.
   */
  async subscribeResource(
    uri: string,
    updated: () => void,
    options: CallOptions = NO_OPTIONS,
  ): Promise<() => void> {
    await this.#open('resource', uri);
    return subscribeResource(this.#resources, uri, updated, options, this.#offeringGate);
  }

  /**
   * Enrols prompts made by `definePrompt`. A name already registered (or a value that is not a prompt)
   * throws {@link ToolDefinitionError}.
   */
  registerPrompt(...input: readonly (Prompt | readonly Prompt[])[]): this {
    if (this.#prompts.add(input.flat()) > 0) this.#listChanged('prompts');
    return this;
  }

  /** Removes a prompt; true when it was registered. */
  unregisterPrompt(name: string): boolean {
    const removed = this.#prompts.remove(name);
    if (removed) this.#listChanged('prompts');
    return removed;
  }

  /** Every registered prompt, in registration order. */
  prompts(): Prompt[] {
    return this.#prompts.list();
  }

  /**
   * Gets a prompt's messages: checks the arguments (each a string, every required one, no unknown
   * one), then runs its `get`. Refusals reject with a {@link RegistryRequestError}.
   *
   * @example
   * const { messages } = await registry.getPrompt('review', { path: 'src/index.ts' });
   */
  getPrompt(name: string, args?: unknown, options: CallOptions = NO_OPTIONS): Promise<GetPromptResult> {
    return this.#open('prompt', name).then(() =>
      getPrompt(this.#prompts, name, args, options, this.#offeringGate),
    );
  }

  /**
   * Suggestions for an argument of a prompt, or a variable of a resource template (named by its
   * template text), from what was typed so far: at most 100, with `total` and `hasMore` when there
   * are more. An argument without a completion function answers no values.
   *
   * @example
   * await registry.complete({ type: 'ref/prompt', name: 'review' }, { name: 'path', value: 'src/' });
   */
  complete(
    reference: CompletionReference,
    argument: { readonly name: string; readonly value: string },
    context?: { readonly arguments?: Readonly<Record<string, string>> },
    options: CallOptions = NO_OPTIONS,
  ): Promise<CompletionResult> {
    return this.#open('completion', argument?.name).then(() =>
      complete(this.#resources, this.#prompts, reference, argument, context, options, this.#decideOnly),
    );
  }

  /**
   * Puts an operation that is not a tool call through this registry's gate: the same hook, approvals
   * (`resume`, session approvals, the call's `onAsk`, the approver, the queue) and observers as a call,
   * with a contract standing for the operation and its `target`. Answers undefined to go on, or the
   * refusal (`permission_denied`, `approval_pending`, …). The observers are told of the decision, with
   * the target, before this settles; an observer that cannot record it refuses the operation
   * (`store_unavailable`), as it withholds a call's result.
   *
   * @example
   * const refused = await registry.gate(
   *   { target: 'sampling', tool: samplingContract, meta: { source: 'mcp:files' }, arguments, callId: undefined, state },
   * );
   * if (refused) throw new Error(refused.error.message);
   */
  async gate(
    request: GateRequest & { readonly target: GateTarget },
    options: CallOptions = NO_OPTIONS,
  ): Promise<FailureEnvelope | undefined> {
    const startedAt = Date.now();
    const name = request.tool.name;
    if (this.closed) return this.#recordGate(request, registryClosedFailure(name), undefined, startedAt);
    const trace = { arguments: request.arguments, decision: undefined, resultIssues: undefined, ran: false };
    const refusal = await gateCall(this.#settings, request, options, trace);
    return this.#recordGate(request, refusal, trace.decision, startedAt);
  }

  async #recordGate(
    request: GateRequest & { readonly target: GateTarget },
    refusal: FailureEnvelope | undefined,
    decision: CallRecord['decision'],
    startedAt: number,
  ): Promise<FailureEnvelope | undefined> {
    const observe = this.#settings.observe;
    if (!observe) return refusal;
    let held: unknown;
    try {
      held = observe({
        tool: request.tool.name,
        target: request.target,
        category: request.tool.category,
        callId: request.callId,
        arguments: request.arguments,
        decision:
          refusal?.error.type === 'registry_closed'
            ? { action: 'deny', rule: 'registry-closed', reason: 'the registry is closed' }
            : decision,
        outcome: refusal ? refusal.error.type : 'ok',
        startedAt,
        durationMs: Date.now() - startedAt,
        state: request.state,
      });
    } catch {
      // An observer that throws must not change the outcome, as for a call.
    }
    if (isPromiseLike(held)) {
      try {
        await held;
      } catch (error) {
        // Nothing is read that the audit could not record.
        const message = error instanceof Error ? error.message : undefined;
        return storeUnavailableFailure(request.tool.name, false, message);
      }
    }
    return refusal;
  }

  /** The gate of resource reads and prompt gets. */
  readonly #offeringGate: OfferingGate = (request, options) =>
    this.gate(offeringGateRequest(request, options), options);

  /**
   * The gate's decision alone, for what must not ask a person nor take an approval meant for a read
   * (a completion): an `ask` not already allowed for the session is refused; nothing is recorded.
   */
  readonly #decideOnly: OfferingGate = async (request, options) => {
    if (!this.#settings.beforeCall) return undefined;
    const settings = { ...this.#settings, approver: undefined, approvalQueue: undefined };
    return gateCall(
      settings,
      offeringGateRequest(request, options),
      { ...options, resume: undefined, onAsk: COMPLETION_ASK },
      undefined,
    );
  };

  /** Resolves while the registry is open; rejects with `closed` once it is closed. */
  #open(target: RegistryRequestError['target'], subject: unknown): Promise<void> {
    if (!this.closed) return Promise.resolve();
    return Promise.reject(
      new RegistryRequestError(
        'closed',
        target,
        String(subject),
        'The server is shutting down and answers no more requests; connect again once it is back.',
      ),
    );
  }

  #listChanged(kind: OfferingKind): void {
    for (const listener of this.#listListeners) {
      try {
        listener(kind);
      } catch {
        // A listener's failure must not break registration.
      }
    }
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
    return this.#wrappers.add(wrapper, options.active);
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
    // A subset lives no longer than its parent: the parent's close released what its tools use.
    if (this.#closed || this.#parent?.closed) {
      const tool = typeof name === 'string' ? name : String(name);
      this.#recordClosed(tool, options);
      return failed(registryClosedFailure(tool));
    }
    if (this.#wrappers.size === 0) return runCall(this.#settings, this.#tools, name, args, options, false);
    const live = this.#wrappers.live();
    if (live.length === 0) return runCall(this.#settings, this.#tools, name, args, options, false);
    const tool = typeof name === 'string' ? name : String(name);
    const call = { tool, contract: this.get(tool)?.contract, callId: options.callId, state: options.state };
    return wrapCall(live, call, this.#attempt, name, args, options);
  }

  // A call refused because the registry is closed is still a decision: the observer (an audit log
  // that outlives the registry) is told, and one that is closed too is ignored.
  #recordClosed(tool: string, options: CallOptions): void {
    const observe = this.#settings.observe;
    if (!observe) return;
    try {
      const held = observe({
        tool,
        category: this.#tools.get(tool)?.contract.category,
        callId: options.callId,
        arguments: undefined,
        decision: { action: 'deny', rule: 'registry-closed', reason: 'the registry is closed' },
        outcome: 'registry_closed',
        startedAt: Date.now(),
        durationMs: 0,
        state: options.state,
      });
      if (isPromiseLike(held)) Promise.resolve(held).catch(() => {});
    } catch {
      // Nothing is left to record it in.
    }
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
    this.#listChanged('tools');
  }
}

function textOf(completed: Completed): string {
  return completed.text;
}

function envelopeOf(completed: Completed): Envelope {
  return completed.envelope;
}

function isOwnable(value: unknown): value is OwnedResource {
  if (typeof value === 'function') return true;
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Record<PropertyKey, unknown>;
  return (
    typeof candidate[Symbol.asyncDispose] === 'function' ||
    typeof candidate[Symbol.dispose] === 'function' ||
    typeof candidate.close === 'function'
  );
}

/** Releases one owned resource by the first way it offers. */
async function release(resource: OwnedResource): Promise<void> {
  if (typeof resource === 'function') {
    await resource();
    return;
  }
  const candidate = resource as Record<PropertyKey, unknown>;
  const asyncDispose = candidate[Symbol.asyncDispose];
  if (typeof asyncDispose === 'function') await asyncDispose.call(resource);
  else if (typeof candidate[Symbol.dispose] === 'function')
    (candidate[Symbol.dispose] as () => void).call(resource);
  else await (candidate.close as () => unknown).call(resource);
}

function describeNonTool(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return `a function${value.name ? ` (${value.name})` : ''}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
