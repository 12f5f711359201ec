import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  CreateMessageResultSchema,
  type ElicitRequestFormParams,
  type ElicitResult,
  ElicitResultSchema,
  type Implementation,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';

const MCP_CONTEXT = Symbol.for('toolpact.mcp.context');

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
  /** The Streamable HTTP session, when there is one. */
  readonly sessionId: string | undefined;
  /** Aborted when the client sends `notifications/cancelled` or the connection closes. */
  readonly signal: AbortSignal;
  readonly clientCapabilities: ClientCapabilities | undefined;
  readonly clientInfo: Implementation | undefined;
  /** Whether the client can answer a form elicitation on this connection. */
  readonly canElicit: boolean;
  /** Sends `notifications/progress` when the client asked for progress (a `progressToken`); else does nothing. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends `notifications/message` unless the client's `logging/setLevel` filters it out. */
  log(level: LoggingLevel, data: unknown): Promise<void>;
  /** Asks the user through the client (`elicitation/create`, form mode). Rejects when the client cannot. */
  elicit(params: Omit<ElicitRequestFormParams, 'mode'>): Promise<ElicitResult>;
  /** Asks the client's model (`sampling/createMessage`). Rejects when the client cannot. */
  sample(params: CreateMessageRequest['params']): Promise<CreateMessageResult>;
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

/** The logging threshold one connection asked for with `logging/setLevel`. */
export interface LogThreshold {
  level: LoggingLevel | undefined;
}

/**
 * Builds the context of one `tools/call` request (the server does this for every call).
 *
 * @example
 * const context = createRequestContext(server, extra, { level: undefined }, true);
 * await context.progress(1, 2);
 */
export function createRequestContext(
  server: Server,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  threshold: LogThreshold,
  canServerRequest: boolean,
): McpRequestContext {
  return new RequestContext(server, extra, threshold, canServerRequest);
}

// A class rather than an object of closures: one allocation per call, methods on the prototype.
class RequestContext implements McpRequestContext {
  readonly [MCP_CONTEXT] = true as const;
  readonly #server: Server;
  readonly #extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
  readonly #threshold: LogThreshold;
  readonly #canServerRequest: boolean;

  constructor(
    server: Server,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
    threshold: LogThreshold,
    canServerRequest: boolean,
  ) {
    this.#server = server;
    this.#extra = extra;
    this.#threshold = threshold;
    this.#canServerRequest = canServerRequest;
  }

  get requestId(): string | number {
    return this.#extra.requestId;
  }
  get sessionId(): string | undefined {
    return this.#extra.sessionId;
  }
  get signal(): AbortSignal {
    return this.#extra.signal;
  }
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.#server.getClientCapabilities();
  }
  get clientInfo(): Implementation | undefined {
    return this.#server.getClientVersion();
  }
  get canElicit(): boolean {
    const capabilities = this.#server.getClientCapabilities();
    return this.#canServerRequest && capabilities !== undefined && formSupported(capabilities);
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const progressToken = this.#extra._meta?.progressToken;
    if (progressToken === undefined || this.#extra.signal.aborted) return;
    await this.#extra.sendNotification({
      method: 'notifications/progress',
      params: {
        progressToken,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      },
    });
  }

  async log(level: LoggingLevel, data: unknown): Promise<void> {
    const floor = this.#threshold.level;
    if (floor !== undefined && LEVELS.indexOf(level) < LEVELS.indexOf(floor)) return;
    await this.#extra.sendNotification({ method: 'notifications/message', params: { level, data } });
  }

  async elicit(params: Omit<ElicitRequestFormParams, 'mode'>): Promise<ElicitResult> {
    if (!this.canElicit)
      throw new Error('The MCP client cannot answer elicitation requests on this connection.');
    // Sent as a request related to this call, so it travels on the call's own response stream.
    return this.#server.request({ method: 'elicitation/create', params }, ElicitResultSchema, {
      relatedRequestId: this.#extra.requestId,
      signal: this.#extra.signal,
    });
  }

  async sample(params: CreateMessageRequest['params']): Promise<CreateMessageResult> {
    if (!this.#canServerRequest || !this.#server.getClientCapabilities()?.sampling) {
      throw new Error('The MCP client cannot answer sampling requests on this connection.');
    }
    return this.#server.request({ method: 'sampling/createMessage', params }, CreateMessageResultSchema, {
      relatedRequestId: this.#extra.requestId,
      signal: this.#extra.signal,
    });
  }
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
  if (isContext(state)) return state;
  if (state !== null && typeof state === 'object' && Object.hasOwn(state, 'mcp')) {
    const inner = (state as { mcp?: unknown }).mcp;
    if (isContext(inner)) return inner;
  }
  return undefined;
}

function isContext(value: unknown): value is McpRequestContext {
  return (
    value !== null && typeof value === 'object' && (value as Record<symbol, unknown>)[MCP_CONTEXT] === true
  );
}

// An empty `elicitation: {}` means form mode (the 2025-06-18 shape); 2025-11-25 names the modes.
function formSupported(capabilities: ClientCapabilities): boolean {
  const elicitation = capabilities.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}
