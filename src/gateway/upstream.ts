import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/client';
import { sanitizeMessage } from '../dispatch/sanitize.js';
import { ToolError } from '../dispatch/tool-error.js';
import {
  connectMcpServer,
  type McpConnection,
  type McpElicitationRequest,
  type McpElicitationResult,
  type McpEra,
  type McpPriorDiscovery,
  type McpServerTarget,
} from '../mcp/connect.js';
import { listServerTools, type SkippedTool } from '../mcp/import-mcp-tools.js';

/** Where an upstream server is in its life. */
export type UpstreamState = 'starting' | 'up' | 'restarting' | 'down' | 'stopped';

/** How an upstream is restarted when it fails. */
export interface RestartPolicy {
  /** The first wait before a restart, in milliseconds (default 500); it doubles per failure. */
  readonly initialDelayMs: number;
  /** The longest wait between restarts (default 30,000). */
  readonly maxDelayMs: number;
  /** Each wait is varied by up to this fraction either way, so that servers do not restart in step (default 0.2). */
  readonly jitter: number;
  /** Failures in a row before the server is marked down (default 5). */
  readonly maxFailures: number;
  /** Up this long, a server's failures are forgiven (default 60,000). */
  readonly stableMs: number;
  /** While down, one more try this rarely (default 300,000): never a restart storm. */
  readonly downRetryMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = Object.freeze({
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  jitter: 0.2,
  maxFailures: 5,
  stableMs: 60_000,
  downRetryMs: 300_000,
});

/** What an {@link Upstream} is told to do. */
export interface UpstreamOptions {
  /** The server's name in the gateway's config. */
  readonly name: string;
  /**
   * Where the server is. A function is asked at every start (a sandbox is resolved then); one that
   * throws is a configuration problem: the server is marked down at once, with that reason, and not
   * retried until the configuration changes.
   */
  readonly target: () => McpServerTarget;
  /** The era verdict kept from an earlier start (the lock), so a start does not probe again. */
  readonly prior?: McpPriorDiscovery;
  readonly restart?: Partial<RestartPolicy>;
  /** Longest wait for one call in milliseconds (default 60,000); the gateway's own timeout comes first. */
  readonly requestTimeoutMs?: number;
  readonly probeTimeoutMs?: number;
  /** Most tools taken from the server (default 1,000). */
  readonly maxTools?: number;
  readonly onElicitation?: (request: McpElicitationRequest) => Promise<McpElicitationResult>;
  /** Wraps every `tools/call` sent to the server. */
  readonly wrapCall?: UpstreamCallWrapper;
  /** Told of every listing of the server's tools (at each start, and when the server says they changed). */
  readonly onTools: (tools: readonly McpTool[], skipped: readonly SkippedTool[]) => void;
  /** Told of every change of state. */
  readonly onState?: (state: UpstreamState, upstream: Upstream) => void;
  /** Lines for the operator (stderr): starts, failures, restarts. */
  readonly log?: (line: string) => void;
  /**
   * Longest wait of a call made while the server has its first start under way (default 30,000 ms):
   * the call waits for it, then answers `mcp_server_unavailable` when it is still not up.
   */
  readonly startTimeoutMs?: number;
  /** Log and progress notifications taken from the server (default 50 a second, bursts of 200); more are dropped and counted. */
  readonly notifications?: { readonly perSecond: number; readonly burst: number };
  /** How often, at most, dropped notifications are reported on the operator log (default 10,000 ms). */
  readonly dropReportMs?: number;
}

/** What an {@link UpstreamCallWrapper} is told of one upstream `tools/call`. */
export interface UpstreamCall {
  /** The server's name in the gateway's config. */
  readonly server: string;
  /** The tool's name on the server. */
  readonly remoteName: string;
  readonly era: McpEra;
  readonly protocolVersion: string | undefined;
  /** Restarts of the server since the gateway started. */
  readonly restarts: number;
}

/**
 * Wraps every upstream `tools/call` (a tracing span, a metric): given the call and a `run` that sends
 * it, it answers what `run` answers.
 */
export type UpstreamCallWrapper = <T>(call: UpstreamCall, run: () => Promise<T>) => Promise<T>;

/** What the gateway reports of one upstream. */
export interface UpstreamStatus {
  readonly name: string;
  readonly state: UpstreamState;
  readonly era: McpEra | undefined;
  readonly protocolVersion: string | undefined;
  /** Restarts since the gateway started (a first start is not one). */
  readonly restarts: number;
  /** Why it last failed, when it did. */
  readonly reason: string | undefined;
  /** The last lines the server wrote to stderr (stdio only). */
  readonly stderr: string;
  /** Tools in its last listing. */
  readonly tools: number;
  /** Log and progress notifications dropped since the gateway started, for coming faster than the gateway takes them. */
  readonly droppedNotifications: number;
}

const STDERR_LINES = 10;
/** Longest wait of close() for a start under way, after giving it up. */
const CLOSE_GRACE_MS = 3_000;

/**
 * One supervised MCP server behind the gateway: started, listed, followed, restarted with backoff and
 * jitter when it exits or its pipe breaks, and marked down (with the reason and its last stderr lines)
 * when it keeps failing. A call while it is not up, or one in flight when it exits, fails at once with
 * `mcp_server_unavailable`; it never waits for a restart.
 *
 * @example
 * const upstream = new Upstream({ name: 'memory', target: () => ({ command: 'node', args: ['server.js'] }), onTools: console.log });
 * upstream.start();
 * await upstream.firstAttempt;
 */
export class Upstream {
  readonly name: string;
  #state: UpstreamState = 'starting';
  #connection: McpConnection | undefined;
  #prior: McpPriorDiscovery | undefined;
  #tools: readonly McpTool[] | undefined;
  #restarts = 0;
  #failures = 0;
  #reason: string | undefined;
  #stderr = '';
  #upSince = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopping = false;
  /** Aborted by close(): a start still waiting for the server is given up. */
  readonly #abort = new AbortController();
  /** A start or a listing in progress, so that close() can wait for it. */
  #work: Promise<void> = Promise.resolve();
  readonly #policy: RestartPolicy;
  readonly #options: UpstreamOptions;
  #settleFirst: () => void = () => {};
  /** Settles after the first start attempt, whatever its outcome. */
  readonly firstAttempt: Promise<void>;
  readonly #bucket: TokenBucket;
  #reportTimer: NodeJS.Timeout | undefined;
  #reportedDrops = 0;

  constructor(options: UpstreamOptions) {
    this.name = options.name;
    this.#options = options;
    this.#prior = options.prior;
    this.#policy = { ...DEFAULT_RESTART_POLICY, ...options.restart };
    this.firstAttempt = new Promise((resolve) => {
      this.#settleFirst = resolve;
    });
    const limit = options.notifications ?? { perSecond: 50, burst: 200 };
    this.#bucket = new TokenBucket(limit.perSecond, limit.burst);
  }

  get state(): UpstreamState {
    return this.#state;
  }

  /** The era verdict of the current (or last) connection, to keep in the lock. */
  get prior(): McpPriorDiscovery | undefined {
    return this.#prior;
  }

  /** The last listing, or undefined when the server has never been listed. */
  get tools(): readonly McpTool[] | undefined {
    return this.#tools;
  }

  status(): UpstreamStatus {
    return {
      name: this.name,
      state: this.#state,
      era:
        this.#connection?.era ??
        (this.#prior ? (this.#prior.kind === 'modern' ? 'modern' : 'legacy') : undefined),
      protocolVersion: this.#connection?.protocolVersion,
      restarts: this.#restarts,
      reason: this.#reason,
      stderr: lastLines(this.#stderr),
      tools: this.#tools?.length ?? 0,
      droppedNotifications: this.#bucket.dropped,
    };
  }

  /** Starts the server (once); failures are handled by the restart policy. */
  start(): void {
    this.#work = this.#connect();
  }

  /**
   * Sends one `tools/call`. Fails at once with `mcp_server_unavailable` when the server is not up, or
   * when it exits or its pipe breaks during the call.
   */
  async call(
    remoteName: string,
    args: Record<string, unknown>,
    options: { readonly signal: AbortSignal; readonly meta?: { readonly [key: string]: string } },
  ): Promise<CallToolResult> {
    // A call made while the server starts for the first time waits for that start (at most the
    // start timeout); the gateway lists its locked tools before it is up.
    if (this.#state === 'starting' && this.#restarts === 0) await this.#awaitFirstStart(options.signal);
    const connection = this.#connection;
    if (this.#state !== 'up' || !connection) throw this.#unavailable();
    const send = () =>
      connection.client.callTool(
        { name: remoteName, arguments: args, ...(options.meta ? { _meta: { ...options.meta } } : {}) },
        {
          signal: options.signal,
          timeout: this.#options.requestTimeoutMs ?? 60_000,
        },
      );
    const wrap = this.#options.wrapCall;
    try {
      return await (wrap
        ? wrap(
            {
              server: this.name,
              remoteName,
              era: connection.era,
              protocolVersion: connection.protocolVersion,
              restarts: this.#restarts,
            },
            send,
          )
        : send());
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (code === 'CONNECTION_CLOSED' || connection !== this.#connection || this.#state !== 'up') {
        throw this.#unavailable(
          'it exited during the call, which may or may not have taken effect; check before calling again',
        );
      }
      if (code === 'REQUEST_TIMEOUT' && !options.signal.aborted) {
        throw new ToolError(
          `The MCP server "${this.name}" did not answer "${remoteName}" in time; the call was cancelled. Try again later, or with less to do.`,
          { type: 'timeout', details: { server: this.name } },
        );
      }
      throw error;
    }
  }

  /** Stops the server for good (its process ends) and cancels any restart. */
  async close(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#reportTimer);
    this.#abort.abort();
    this.#setState('stopped');
    this.#settleFirst();
    // A start still under way was given up (its connection closed); a server that ignores even that
    // holds close() no longer than a grace: the start, once it ends, finds the upstream stopped and
    // closes what it opened.
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#work.catch(() => {}),
      new Promise((resolve) => {
        grace = setTimeout(resolve, CLOSE_GRACE_MS);
      }),
    ]);
    clearTimeout(grace);
    const connection = this.#connection;
    this.#connection = undefined;
    await connection?.close().catch(() => {});
  }

  async #awaitFirstStart(signal: AbortSignal): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      this.firstAttempt,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#options.startTimeoutMs ?? 30_000);
        onAbort = resolve;
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }

  #unavailable(during?: string): ToolError {
    const why =
      during ??
      (this.#state === 'down'
        ? `it is down after ${this.#failures} failed starts (${this.#reason ?? 'no reason given'})`
        : this.#state === 'stopped'
          ? 'it was stopped'
          : this.#state === 'starting'
            ? `it did not finish starting within ${Math.round((this.#options.startTimeoutMs ?? 30_000) / 100) / 10} s`
            : `it is restarting after a failure (${this.#reason ?? 'no reason given'})`);
    const next =
      this.#state === 'down'
        ? 'Use another tool, or tell the user that this server needs attention.'
        : 'Try again in a few seconds.';
    return new ToolError(`The MCP server "${this.name}" is unavailable: ${sanitizeMessage(why)}. ${next}`, {
      type: 'mcp_server_unavailable',
      details: { server: this.name, state: this.#state },
    });
  }

  async #connect(): Promise<void> {
    if (this.#stopping) return;
    let target: McpServerTarget;
    try {
      target = this.#options.target();
    } catch (error) {
      // A configuration problem (no bubblewrap, a package to install): retrying cannot help.
      this.#reason = error instanceof Error ? error.message : String(error);
      this.#log(`cannot start: ${this.#reason}`);
      this.#setState('down');
      this.#settleFirst();
      return;
    }
    let connection: McpConnection;
    try {
      connection = await connectMcpServer(target, {
        ...(this.#prior ? { prior: this.#prior } : {}),
        ...(this.#options.probeTimeoutMs !== undefined
          ? { probeTimeoutMs: this.#options.probeTimeoutMs }
          : {}),
        ...(this.#options.onElicitation ? { onElicitation: this.#options.onElicitation } : {}),
        signal: this.#abort.signal,
      });
    } catch (error) {
      this.#failed(error instanceof Error ? error.message : String(error), '');
      return;
    }
    if (this.#stopping) {
      await connection.close().catch(() => {});
      return;
    }
    this.#connection = connection;
    this.#prior = connection.prior;
    connection.client.onclose = () => {
      if (this.#connection !== connection) return;
      this.#connection = undefined;
      if (this.#stopping) return;
      this.#failed('the server exited or closed its connection', connection.stderrTail());
    };
    // Log and progress notifications pass a token bucket; the gateway forwards neither, so a
    // flood of them costs parsing only, and the drops are counted and reported.
    connection.client.setNotificationHandler('notifications/message', (notification) => {
      if (!this.#take()) return;
      const { level, logger, data } = notification.params;
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      this.#log(
        `log ${level}${logger ? ` (${logger})` : ''}: ${sanitizeMessage(String(text).slice(0, 500))}`,
      );
    });
    connection.client.setNotificationHandler('notifications/progress', () => {
      this.#take();
    });
    try {
      await this.#list(connection);
      if (connection.client.getServerCapabilities()?.tools?.listChanged) {
        // At most one listing in flight and one pending (issue 26 §5): 300,000 list_changed
        // notifications in a row cost a few listings, not 300,000 queued ones.
        let listing = false;
        let pending = false;
        const relist = async (): Promise<void> => {
          listing = true;
          try {
            do {
              pending = false;
              // A failed listing keeps the previous tools.
              await this.#list(connection).catch(() => {});
            } while (pending && this.#connection === connection && !this.#stopping);
          } finally {
            listing = false;
          }
        };
        connection.client.setNotificationHandler('notifications/tools/list_changed', () => {
          if (listing) {
            pending = true;
            return;
          }
          this.#work = relist();
        });
        if (connection.era === 'modern') await connection.client.listen({ toolsListChanged: true });
      }
    } catch (error) {
      if (this.#connection !== connection) return;
      this.#connection = undefined;
      await connection.close().catch(() => {});
      this.#failed(
        `it started but its tools could not be listed: ${error instanceof Error ? error.message : String(error)}`,
        connection.stderrTail(),
      );
      return;
    }
    if (this.#connection !== connection) return;
    this.#settleFirst();
  }

  async #list(connection: McpConnection): Promise<void> {
    const listed = await listServerTools(connection.client, this.#options.maxTools ?? 1_000, 'refresh');
    if (this.#connection !== connection || this.#stopping) return;
    this.#tools = listed.tools;
    // Up before its tools are served, so that a call made as soon as they appear goes through.
    if (this.#state !== 'up') this.#up(connection);
    this.#options.onTools(listed.tools, listed.skipped);
  }

  #up(connection: McpConnection): void {
    this.#upSince = Date.now();
    this.#reason = undefined;
    this.#log(
      `${this.#restarts > 0 ? 'back up' : 'up'}: ${this.#tools?.length ?? 0} tools, ${connection.era === 'modern' ? 'revision 2026-07-28' : `legacy era (${connection.protocolVersion ?? 'unknown revision'})`}.`,
    );
    this.#setState('up');
  }

  #failed(reason: string, stderr: string): void {
    if (this.#stopping) return;
    if (stderr.trim()) this.#stderr = stderr;
    const wasUp = this.#state === 'up';
    // A server that stayed up long enough starts its count again.
    if (wasUp && Date.now() - this.#upSince >= this.#policy.stableMs) this.#failures = 0;
    this.#failures++;
    this.#reason = sanitizeMessage(reason);
    const tail = lastLines(this.#stderr);
    if (this.#failures >= this.#policy.maxFailures) {
      this.#log(
        `down after ${this.#failures} failures in a row: ${this.#reason}${tail ? `\n  last stderr lines:\n${indent(tail)}` : ''}\n  Its tools answer mcp_server_unavailable; one more try in ${Math.round(this.#policy.downRetryMs / 1000)} s, or fix it and save the config.`,
      );
      this.#setState('down');
      this.#settleFirst();
      this.#schedule(this.#policy.downRetryMs);
      return;
    }
    const delay = this.#backoff();
    this.#log(
      `${wasUp ? 'failed' : 'could not start'}: ${this.#reason}${tail ? `\n  last stderr lines:\n${indent(tail)}` : ''}\n  restarting in ${(delay / 1000).toFixed(1)} s (failure ${this.#failures} of ${this.#policy.maxFailures}).`,
    );
    this.#setState('restarting');
    this.#settleFirst();
    this.#schedule(delay);
  }

  #schedule(delay: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (this.#stopping) return;
      this.#restarts++;
      this.#work = this.#connect();
    }, delay);
    // A pending restart never keeps the process alive on its own.
    this.#timer.unref();
  }

  #backoff(): number {
    const base = Math.min(
      this.#policy.maxDelayMs,
      this.#policy.initialDelayMs * 2 ** Math.max(0, this.#failures - 1),
    );
    const spread = base * this.#policy.jitter;
    return Math.max(0, Math.round(base - spread + Math.random() * 2 * spread));
  }

  /** Takes one notification from the bucket; false when it is dropped (counted, and reported within the interval). */
  #take(): boolean {
    if (this.#bucket.take()) return true;
    if (!this.#reportTimer && !this.#stopping) {
      this.#reportTimer = setTimeout(() => {
        this.#reportTimer = undefined;
        const dropped = this.#bucket.dropped - this.#reportedDrops;
        this.#reportedDrops = this.#bucket.dropped;
        const limit = this.#bucket.perSecond;
        this.#log(
          `dropped ${dropped} log and progress notifications (more than ${limit} a second); ${this.#bucket.dropped} in all since it started.`,
        );
      }, this.#options.dropReportMs ?? 10_000);
      this.#reportTimer.unref();
    }
    return false;
  }

  #setState(state: UpstreamState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#options.onState?.(state, this);
  }

  #log(line: string): void {
    this.#options.log?.(`${this.name}: ${line}`);
  }
}

/** A token bucket: `perSecond` tokens a second, at most `burst` saved up. */
class TokenBucket {
  readonly perSecond: number;
  readonly #burst: number;
  #tokens: number;
  #at = performance.now();
  dropped = 0;

  constructor(perSecond: number, burst: number) {
    this.perSecond = perSecond;
    this.#burst = burst;
    this.#tokens = burst;
  }

  take(): boolean {
    const now = performance.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#at) / 1000) * this.perSecond);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens--;
      return true;
    }
    this.dropped++;
    return false;
  }
}

function lastLines(text: string): string {
  return text.trimEnd().split('\n').slice(-STDERR_LINES).join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
