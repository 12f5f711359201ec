import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequestFormParams,
  type ElicitResult,
  type Implementation,
  type ListRootsResult,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  PROTOCOL_VERSION_META_KEY,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { brandedContextOf, MCP_CONTEXT } from '../dispatch/context-brand.js';
import { type Principal, principalFromAuthInfo } from '../dispatch/principal.js';
import { incomingTraceContext } from '../util/trace-context.js';
import { supportsFormElicitation } from './client-capabilities.js';
import type { InputKind } from './input-round.js';

/**
 * What a tool (and the gate) can reach of the MCP request that called it. The server passes it as the
 * call's `state` (unless `serve*({ state })` maps it to a state of your own, keeping it reachable
 * as `state.mcp`), so a tool can report progress, log, or ask the user.
 *
 * @example
 * execute: async (args, { state }) => {
 *   const mcp = mcpContextOf(state);
 *   await mcp?.progress(50, 100);
 * }
 */
export interface McpRequestContext {
  readonly [MCP_CONTEXT]: true;
  /** The JSON-RPC id of the `tools/call` request. */
  readonly requestId: string | number;
  /**
   * `legacy` for a 2025 client (it opened with `initialize`), `modern` for a revision 2026-07-28
   * request (stateless: its version, capabilities and log level travel in its own `_meta`).
   */
  readonly era: 'legacy' | 'modern';
  /** The Streamable HTTP session, when there is one (never on the modern era). */
  readonly sessionId: string | undefined;
  /** Aborted when the client cancels (or closes the request's stream) or the connection closes. */
  readonly signal: AbortSignal;
  readonly clientCapabilities: ClientCapabilities | undefined;
  readonly clientInfo: Implementation | undefined;
  /**
   * Whether the client can answer a form elicitation in the middle of the call (the gate's
   * elicitation approver reads it): pushed on the legacy era; on the modern era, which has no
   * server-to-client requests, only in a held call (`meta.inputRounds: 'held'`), whose question
   * travels in its next input-required round. A modern call that runs again per round asks through
   * `elicit`, `sample` and `listRoots` instead.
   */
  readonly canElicit: boolean;
  /**
   * The authenticated caller, from the transport's `authInfo` (set by toolpact's authentication, or by
   * whatever of your own authenticates the HTTP request); undefined when nothing authenticated it.
   * Approvals, the policy's `principal` rules and the audit read it through `principalOf`.
   */
  readonly principal: Principal | undefined;
  /**
   * The W3C `traceparent` of the request's `_meta` (on both eras), when it is a valid one; a malformed
   * one is ignored. `instrument` from `toolpact/otel` makes it the parent of the call's `execute_tool`
   * span, and imported MCP tools pass it on when no span of that trace is active.
   */
  readonly traceparent: string | undefined;
  /** The `tracestate` that came with {@link McpRequestContext.traceparent}, if any. */
  readonly tracestate: string | undefined;
  /**
   * The same object for every request of one client connection (a legacy session, the stdio client);
   * another for each revision 2026-07-28 request, which has no connection to share. Tells whether two
   * calls come from the same client.
   */
  readonly connection: object;
  /** Whether the client asked for progress on this call (a `progressToken`). */
  readonly wantsProgress: boolean;
  /**
   * The least level of log message this call's client takes: the modern request's `_meta` level
   * (undefined when it set none: it takes no log messages), or the legacy connection's
   * `logging/setLevel` (`debug`, every message, until the client sets one).
   */
  readonly logLevel: LoggingLevel | undefined;
  /** Sends `notifications/progress` when the client asked for progress (a `progressToken`); else does nothing. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Sends `notifications/message` at or above the client's level: the legacy connection's
   * `logging/setLevel`, or the modern request's `_meta` `io.modelcontextprotocol/logLevel`
   * (without one, a modern request gets no log messages at all, as the revision requires). `logger`
   * names who speaks (a gateway names the upstream server).
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the user through the client (`elicitation/create`, form mode). On the legacy era the request
   * is pushed in the middle of the call. On revision 2026-07-28 the call stops here and is answered
   * with an input-required result; the client's retry runs the tool again from the start, and this
   * time the ask resolves with the user's answer (see {@link InputOptions}). Rejects when the client
   * did not declare form elicitation (on 2026-07-28 the call is then refused with -32021).
   */
  elicit(params: Omit<ElicitRequestFormParams, 'mode'>, options?: InputOptions): Promise<ElicitResult>;
  /** Asks the client's model (`sampling/createMessage`), on both eras as `elicit` does. */
  sample(params: CreateMessageRequest['params'], options?: InputOptions): Promise<CreateMessageResult>;
  /** Asks the client for its roots (`roots/list`), on both eras as `elicit` does. */
  listRoots(options?: InputOptions): Promise<ListRootsResult>;
}

/**
 * Options of one question a tool asks its client (`elicit`, `sample`, `listRoots`).
 *
 * On revision 2026-07-28 every round runs the tool again from the start, so whatever it did before
 * an ask runs again: ask first, act after.
 *
 * @example
 * const answer = await mcp.elicit({ message: 'Your name?', requestedSchema }, { key: 'user_name' });
 */
export interface InputOptions {
  /**
   * The key the question travels under in `inputRequests` on revision 2026-07-28 (default
   * `<kind>-<n>`: `elicitation-1`, `sampling-2`…, n counting the call's asks). 1 to 64 letters,
   * digits, `_`, `.` or `-`, once per call; `approval` is the gate's. Unused on the legacy era.
   */
  readonly key?: string;
}

const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** The logging threshold one legacy connection asked for with `logging/setLevel`. */
export interface LogThreshold {
  level: LoggingLevel | undefined;
}

/**
 * True for a request of revision 2026-07-28 or later: it carries the per-request `_meta` envelope.
 *
 * @example
 * if (isModernRequest(ctx)) return inputRequired({ ... });
 */
export function isModernRequest(ctx: ServerContext): boolean {
  return typeof envelopeOf(ctx)[PROTOCOL_VERSION_META_KEY] === 'string';
}

/**
 * The client capabilities of a request: from its own `_meta` on the modern era, from `initialize`
 * on the legacy one.
 *
 * @example
 * const capabilities = clientCapabilitiesOf(server, ctx);
 */
export function clientCapabilitiesOf(server: Server, ctx: ServerContext): ClientCapabilities | undefined {
  if (isModernRequest(ctx)) return envelopeOf(ctx)[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities;
  return server.getClientCapabilities();
}

/** What answers a modern context's asks: an `InputRound` (runs again per round) or a held run's round. */
export interface InputAsker {
  ask(kind: InputKind, key: string | undefined, params: unknown): Promise<unknown>;
}

const rounds = new WeakMap<McpRequestContext, InputAsker>();

/**
 * Lets a modern context's asks answer from `round` (the server does this for a call it can resume).
 *
 * @example
 * useInputRound(context, new InputRound(context.clientCapabilities, [], [], undefined));
 */
export function useInputRound(context: McpRequestContext, round: InputAsker): void {
  rounds.set(context, round);
}

/** Where a held context's signal, progress and log messages go now (see {@link holdRequestContext}). */
interface Hold {
  readonly signal: AbortSignal;
  current: McpRequestContext | undefined;
}

const holds = new WeakMap<McpRequestContext, Hold>();

/**
 * Keeps a context alive past its own request, for a run that goes on across the rounds of revision
 * 2026-07-28 (a held call): its `signal` becomes `signal`, and its progress and log messages go to
 * the request that now waits on the run (see {@link forwardRequestContext}), or nowhere between them.
 *
 * @example
 * holdRequestContext(context, held.signal);
 */
export function holdRequestContext(context: McpRequestContext, signal: AbortSignal): void {
  holds.set(context, { signal, current: context });
}

/**
 * Sends a held context's progress and log messages to `current`, the request now waiting on its run
 * (undefined: nobody waits, so they are dropped).
 *
 * @example
 * forwardRequestContext(held.context, retryContext);
 */
export function forwardRequestContext(
  context: McpRequestContext,
  current: McpRequestContext | undefined,
): void {
  const hold = holds.get(context);
  if (hold) hold.current = current;
}

// The SDK types the envelope loosely (`Partial<RequestMetaEnvelope>`); read it by its keys.
function envelopeOf(ctx: ServerContext): Record<string, unknown> {
  return (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
}

/**
 * Builds the context of one `tools/call` request (the server does this for every call).
 *
 * @example
 * const context = createRequestContext(server, ctx, { level: undefined }, true);
 * await context.progress(1, 2);
 */
export function createRequestContext(
  server: Server,
  ctx: ServerContext,
  threshold: LogThreshold,
  canServerRequest: boolean,
): McpRequestContext {
  return new RequestContext(server, ctx, threshold, canServerRequest);
}

// A class rather than an object of closures: one allocation per call, methods on the prototype.
class RequestContext implements McpRequestContext {
  readonly [MCP_CONTEXT] = true as const;
  readonly #server: Server;
  readonly #ctx: ServerContext;
  readonly #threshold: LogThreshold;
  readonly #canServerRequest: boolean;
  readonly era: 'legacy' | 'modern';
  // Own fields, so the call's `state` (this context, by default) carries the request's trace context.
  readonly traceparent: string | undefined;
  readonly tracestate: string | undefined;

  constructor(server: Server, ctx: ServerContext, threshold: LogThreshold, canServerRequest: boolean) {
    this.#server = server;
    this.#ctx = ctx;
    this.#threshold = threshold;
    this.era = isModernRequest(ctx) ? 'modern' : 'legacy';
    // The modern era has no return path for a request of ours in the middle of a call.
    this.#canServerRequest = canServerRequest && this.era === 'legacy';
    const trace = incomingTraceContext(ctx.mcpReq._meta);
    this.traceparent = trace?.traceparent;
    this.tracestate = trace?.tracestate;
  }

  get requestId(): string | number {
    return this.#ctx.mcpReq.id;
  }
  get sessionId(): string | undefined {
    return this.era === 'modern' ? undefined : this.#ctx.sessionId;
  }
  get signal(): AbortSignal {
    return holds.get(this)?.signal ?? this.#ctx.mcpReq.signal;
  }
  get clientCapabilities(): ClientCapabilities | undefined {
    return clientCapabilitiesOf(this.#server, this.#ctx);
  }
  get clientInfo(): Implementation | undefined {
    if (this.era === 'modern')
      return envelopeOf(this.#ctx)[CLIENT_INFO_META_KEY] as Implementation | undefined;
    return this.#server.getClientVersion();
  }
  get connection(): object {
    return this.era === 'modern' ? this.#ctx : this.#server;
  }
  get wantsProgress(): boolean {
    return this.#ctx.mcpReq._meta?.progressToken !== undefined;
  }
  get principal(): Principal | undefined {
    return principalFromAuthInfo(this.#ctx.http?.authInfo);
  }
  get canElicit(): boolean {
    // A held call of revision 2026-07-28 waits for its answers across requests, so it can be asked
    // in the middle of its run (its question travels in the next input-required round).
    const reachable = this.#canServerRequest || (this.era === 'modern' && holds.has(this));
    return reachable && supportsFormElicitation(this.clientCapabilities);
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const hold = holds.get(this);
    if (hold && hold.current !== this) return hold.current?.progress(progress, total, message);
    const progressToken = this.#ctx.mcpReq._meta?.progressToken;
    if (progressToken === undefined || this.#ctx.mcpReq.signal.aborted) return;
    await this.#ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: {
        progressToken,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      },
    });
  }

  get logLevel(): LoggingLevel | undefined {
    if (this.era !== 'modern') return this.#threshold.level ?? 'debug';
    const asked = envelopeOf(this.#ctx)[LOG_LEVEL_META_KEY];
    // No level in the request: the revision forbids log messages for it.
    return typeof asked === 'string' && LEVELS.includes(asked as LoggingLevel)
      ? (asked as LoggingLevel)
      : undefined;
  }

  async log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const hold = holds.get(this);
    if (hold && hold.current !== this) return hold.current?.log(level, data, logger);
    const floor = this.logLevel;
    if (floor === undefined || LEVELS.indexOf(level) < LEVELS.indexOf(floor)) return;
    await this.#ctx.mcpReq.notify({
      method: 'notifications/message',
      params: { level, data, ...(logger === undefined ? {} : { logger }) },
    });
  }

  async elicit(params: Omit<ElicitRequestFormParams, 'mode'>, options?: InputOptions): Promise<ElicitResult> {
    if (this.era === 'modern') return (await this.#ask('elicitation', options, params)) as ElicitResult;
    if (!this.canElicit) throw new Error(unanswerable('elicitation/create', 'elicitation'));
    // Sent as a request related to this call, so it travels on the call's own response stream.
    return this.#ctx.mcpReq.elicitInput(params as ElicitRequestFormParams, { signal: this.signal });
  }

  async sample(params: CreateMessageRequest['params'], options?: InputOptions): Promise<CreateMessageResult> {
    if (this.era === 'modern') return (await this.#ask('sampling', options, params)) as CreateMessageResult;
    if (!this.#canServerRequest || !this.clientCapabilities?.sampling) {
      throw new Error(unanswerable('sampling/createMessage', 'sampling'));
    }
    return (await this.#ctx.mcpReq.requestSampling(params, { signal: this.signal })) as CreateMessageResult;
  }

  async listRoots(options?: InputOptions): Promise<ListRootsResult> {
    if (this.era === 'modern') return (await this.#ask('roots', options, {})) as ListRootsResult;
    if (!this.#canServerRequest || !this.clientCapabilities?.roots) {
      throw new Error(unanswerable('roots/list', 'roots'));
    }
    return this.#ctx.mcpReq.send({ method: 'roots/list' }, { signal: this.signal });
  }

  #ask(kind: InputKind, options: InputOptions | undefined, params: unknown): Promise<unknown> {
    const round = rounds.get(this);
    if (!round) {
      return Promise.reject(
        new Error(
          `This server cannot resume a call, so it cannot ask the MCP client (${kind}) on revision 2026-07-28; serve the registry with serveHttp or serveStdio.`,
        ),
      );
    }
    return round.ask(kind, options?.key, params);
  }
}

function unanswerable(method: string, capability: string): string {
  return `The MCP client cannot answer ${method} on this connection: it declared no ${capability} capability, or the connection (stateless HTTP) carries no request back. Check mcp.clientCapabilities before asking.`;
}

/**
 * The MCP context of a call, from the `state` a tool or gate received: the state itself, or its
 * `mcp` field when the server mapped the context into a state of your own. Undefined outside MCP.
 *
 * @example
 * const mcp = mcpContextOf(context.state);
 * if (mcp?.canElicit) await mcp.elicit({ message: 'Overwrite notes.md?', requestedSchema });
 */
export function mcpContextOf(state: unknown): McpRequestContext | undefined {
  return brandedContextOf<McpRequestContext>(state);
}
