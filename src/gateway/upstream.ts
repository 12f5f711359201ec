import { createHash } from 'node:crypto';
import type {
  CallToolResult,
  CompleteRequest,
  CompleteResult,
  GetPromptResult,
  Tool as McpTool,
  ReadResourceResult,
} from '@modelcontextprotocol/client';
import { sanitizeMessage } from '../dispatch/sanitize.js';
import { ToolError } from '../dispatch/tool-error.js';
import {
  connectMcpServer,
  type McpConnection,
  type McpPriorDiscovery,
  type McpServerTarget,
} from '../mcp/connect.js';
import { listServerTools } from '../mcp/import-mcp-tools.js';
import { LOCAL_PRINCIPAL, McpSignInRequiredError } from '../mcp/oauth/oauth-provider.js';
import type { McpRequestContext } from '../mcp/request-context.js';
import { counted } from '../util/counted.js';
import { TokenBucket } from '../util/token-bucket.js';
import type { UpstreamCatalog } from './catalog.js';
import { signInRequiredOf } from './sign-in-required.js';
import { indentLines, lastLines, visible } from './terminal-text.js';
import { hasCatalog, listCatalog, ResourceSubscriptions } from './upstream-catalog.js';
import { coalesceListChanges, followLogs, notificationScreen } from './upstream-notifications.js';
import { withUpstreamRounds } from './upstream-rounds.js';
import {
  DEFAULT_RESTART_POLICY,
  type RestartPolicy,
  type UpstreamOptions,
  type UpstreamState,
  type UpstreamStatus,
} from './upstream-types.js';

/** The request `_meta` key of revision 2026-07-28 that names the least log level the caller takes. */
const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

export type {
  RestartPolicy,
  UpstreamCall,
  UpstreamCallWrapper,
  UpstreamOptions,
  UpstreamState,
  UpstreamStatus,
} from './upstream-types.js';
export { DEFAULT_RESTART_POLICY } from './upstream-types.js';

const STDERR_LINES = 10;
/** Longest wait of close() for a start under way, after giving it up. */
const CLOSE_GRACE_MS = 3_000;

/**
 * One supervised MCP server behind the gateway: started, listed, followed, restarted with backoff and
 * jitter when it exits or its pipe breaks, and marked down (with the reason and its last stderr lines)
 * when it keeps failing. A call while it is not up, or one in flight when it exits, fails at once with
 * `mcp_server_unavailable`; it never waits for a restart. A remote server that asks for a sign-in none
 * is kept for (or whose refresh is refused) is `needs_login`: not restarted, its calls fail with
 * `McpSignInRequiredError` (`auth_required` for the model), until the token store holds a new sign-in.
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
  #catalog: UpstreamCatalog | undefined;
  readonly #subscriptions = new ResourceSubscriptions();
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
  /** A digest of the tokens kept when the server last asked for a sign-in: only other tokens are tried. */
  #triedSignIn: string | undefined;
  #retryingSignIn: Promise<void> | undefined;
  /** The client requests waiting for progress, by the token the gateway sent upstream for them. */
  readonly #progress = new Map<unknown, McpRequestContext>();
  #progressTokens = 0;

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

  /** The last listing of its resources, templates and prompts; undefined when it has none or was never listed. */
  get catalog(): UpstreamCatalog | undefined {
    return this.#catalog;
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
      stderr: lastLines(this.#stderr, STDERR_LINES),
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
   * when it exits or its pipe breaks during the call. With `caller` (the client's request), what the
   * server sends back while it works goes to that client: its progress, when the client asked for
   * progress, and whatever the upstream's handlers route by {@link UpstreamOptions.callers}.
   */
  async call(
    remoteName: string,
    args: Record<string, unknown>,
    options: {
      readonly signal: AbortSignal;
      readonly meta?: { readonly [key: string]: string };
      readonly caller?: McpRequestContext;
    },
  ): Promise<CallToolResult> {
    const connection = await this.#ready(options.signal);
    const caller = options.caller;
    // The upstream's progress reaches the client under the client's own token (see #passProgress).
    const progressToken = caller?.wantsProgress ? `toolpact-${++this.#progressTokens}` : undefined;
    // A revision 2026-07-28 server logs only at a level the request names: the client's own.
    const logLevel = connection.era === 'modern' ? caller?.logLevel : undefined;
    const capabilities = this.#capabilitiesMeta(connection, caller);
    const meta =
      progressToken || logLevel || capabilities
        ? {
            ...options.meta,
            ...(progressToken ? { progressToken } : {}),
            ...(logLevel ? { [LOG_LEVEL_META]: logLevel } : {}),
            ...capabilities,
          }
        : options.meta;
    const params = { name: remoteName, arguments: args, ...(meta ? { _meta: { ...meta } } : {}) };
    const sendOptions = { signal: options.signal, timeout: this.#options.requestTimeoutMs ?? 60_000 };
    const request = async (): Promise<CallToolResult> => {
      if (progressToken && caller) this.#progress.set(progressToken, caller);
      try {
        if (!this.#asksBack(connection)) return await connection.client.callTool(params, sendOptions);
        // The result is checked against the tool's output schema by the gateway's registry; here an
        // input-required answer must get through to its rounds.
        const listed = this.#tools?.find((tool) => tool.name === remoteName);
        const definition = listed?.outputSchema
          ? { toolDefinition: { ...listed, outputSchema: undefined } }
          : {};
        return await withUpstreamRounds<CallToolResult>(
          `"${remoteName}" on "${this.name}"`,
          this.#options,
          (round) =>
            connection.client.callTool(
              { ...params, ...round },
              { ...sendOptions, ...definition, allowInputRequired: true },
            ),
        );
      } finally {
        if (progressToken) this.#progress.delete(progressToken);
      }
    };
    const callers = this.#options.callers;
    const send = callers ? () => callers.run({ context: caller, remoteName }, request) : request;
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
      // Signed out, or a refresh the authorization server refused: no retry until a new sign-in.
      const signIn = signInRequiredOf(error);
      if (signIn) {
        if (connection === this.#connection) {
          this.#connection = undefined;
          await connection.close().catch(() => {});
          await this.#needsLogin(signIn.message);
        }
        throw signIn;
      }
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

  /**
   * Sends one `resources/read`; fails as {@link call} does when the server is not up. With `caller`,
   * what the server asks while it reads goes to that client, as for a call.
   */
  readResource(uri: string, signal: AbortSignal, caller?: McpRequestContext): Promise<ReadResourceResult> {
    return this.#request(signal, (connection, options) =>
      this.#asCaller(caller, uri, () =>
        this.#asksBack(connection)
          ? withUpstreamRounds<ReadResourceResult>(
              `reading ${uri} on "${this.name}"`,
              this.#options,
              (round) =>
                connection.client.readResource(
                  { uri, ...round, ...this.#metaOf(connection, caller) },
                  { ...options, cacheMode: 'bypass', allowInputRequired: true },
                ),
            )
          : connection.client.readResource({ uri }, { ...options, cacheMode: 'bypass' }),
      ),
    );
  }

  /** Sends one `prompts/get`; as {@link readResource} does. */
  getPrompt(
    name: string,
    args: Record<string, string>,
    signal: AbortSignal,
    caller?: McpRequestContext,
  ): Promise<GetPromptResult> {
    return this.#request(signal, (connection, options) =>
      this.#asCaller(caller, name, () =>
        this.#asksBack(connection)
          ? withUpstreamRounds<GetPromptResult>(
              `the prompt "${name}" on "${this.name}"`,
              this.#options,
              (round) =>
                connection.client.getPrompt(
                  { name, arguments: args, ...round, ...this.#metaOf(connection, caller) },
                  { ...options, allowInputRequired: true },
                ),
            )
          : connection.client.getPrompt({ name, arguments: args }, options),
      ),
    );
  }

  /**
   * Whether the gateway answers this connection's questions itself, round by round (revision
   * 2026-07-28 with a handler for any of them), so that each reaches the client whose request caused it.
   */
  #asksBack(connection: McpConnection): boolean {
    const { onElicitation, onSampling, onRoots } = this.#options;
    return connection.era === 'modern' && (onElicitation ?? onSampling ?? onRoots) !== undefined;
  }

  /**
   * The `_meta` entry that tells a revision 2026-07-28 server what it may ask while serving `caller`
   * (what the gateway passes on and that client can answer); none for a legacy server or no caller.
   */
  #capabilitiesMeta(
    connection: McpConnection,
    caller: McpRequestContext | undefined,
  ): Record<string, unknown> | undefined {
    const capabilitiesFor = this.#options.capabilitiesFor;
    if (connection.era !== 'modern' || !caller || !capabilitiesFor) return undefined;
    return { [CLIENT_CAPABILITIES_META]: capabilitiesFor(caller) };
  }

  /** {@link #capabilitiesMeta} as a request's `_meta`, or nothing. */
  #metaOf(
    connection: McpConnection,
    caller: McpRequestContext | undefined,
  ): { _meta?: Record<string, unknown> } {
    const meta = this.#capabilitiesMeta(connection, caller);
    return meta ? { _meta: meta } : {};
  }

  /** Runs `send` as `caller`'s request for `what`, so that the server's questions meanwhile reach it. */
  #asCaller<T>(caller: McpRequestContext | undefined, what: string, send: () => Promise<T>): Promise<T> {
    const callers = this.#options.callers;
    return callers && caller ? callers.run({ context: caller, remoteName: what }, send) : send();
  }

  /** Sends one `completion/complete`; fails as {@link call} does when the server is not up. */
  complete(params: CompleteRequest['params'], signal: AbortSignal): Promise<CompleteResult> {
    return this.#request(signal, (connection, options) => connection.client.complete(params, options));
  }

  /**
   * Subscribes the gateway to a resource's updates (counted: the server is asked once per URI, and
   * again after a restart); {@link UpstreamOptions.onResourceUpdated} is told of each update.
   */
  async subscribe(uri: string): Promise<void> {
    await this.#subscriptions.add(uri, this.#state === 'up' ? this.#connection : undefined);
  }

  /** Counts one subscriber of a resource out; the last one unsubscribes the gateway. */
  async unsubscribe(uri: string): Promise<void> {
    await this.#subscriptions.remove(uri, this.#state === 'up' ? this.#connection : undefined);
  }

  /**
   * Tries again a server that needs a sign-in, when the token store holds tokens it has not tried
   * (`gateway login` stored them); does nothing otherwise, so a server that needs a sign-in is never
   * retried in a loop. Resolves once the attempt is over.
   */
  async retrySignIn(): Promise<void> {
    if (this.#state !== 'needs_login' || this.#stopping) return;
    this.#retryingSignIn ??= (async () => {
      const tokens = await this.#storedTokens();
      if (tokens === undefined || tokens === this.#triedSignIn) return;
      this.#log('a sign-in was stored; connecting again.');
      this.#work = this.#connect();
      await this.#work;
    })().finally(() => {
      this.#retryingSignIn = undefined;
    });
    await this.#retryingSignIn;
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

  /** The connection once the server is up: a first start is waited for, a stored sign-in tried. */
  async #ready(signal: AbortSignal): Promise<McpConnection> {
    // A call made while the server starts for the first time waits for that start (at most the
    // start timeout); the gateway lists its locked tools before it is up.
    if (this.#state === 'starting' && this.#restarts === 0) await this.#awaitFirstStart(signal);
    // A sign-in stored since the server asked for one (gateway login) is tried before answering.
    if (this.#state === 'needs_login') await this.retrySignIn();
    if (this.#state === 'needs_login') throw this.#signInRequired();
    const connection = this.#connection;
    if (this.#state !== 'up' || !connection) throw this.#unavailable();
    return connection;
  }

  /** A request other than a tool call, with the same answers for a server that is not up or goes away. */
  async #request<T>(
    signal: AbortSignal,
    send: (connection: McpConnection, options: { signal: AbortSignal; timeout: number }) => Promise<T>,
  ): Promise<T> {
    const connection = await this.#ready(signal);
    try {
      return await send(connection, { signal, timeout: this.#options.requestTimeoutMs ?? 60_000 });
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (code === 'CONNECTION_CLOSED' || connection !== this.#connection || this.#state !== 'up') {
        throw this.#unavailable('it exited during the request');
      }
      throw error;
    }
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
    let listChanged: (() => void) | undefined;
    let catalogChanged: (() => void) | undefined;
    try {
      connection = await connectMcpServer(target, {
        screen: notificationScreen(
          () => this.#take(),
          () => listChanged,
          (params) => this.#passProgress(params),
          () => catalogChanged,
        ),
        ...(this.#prior ? { prior: this.#prior } : {}),
        ...(this.#options.probeTimeoutMs !== undefined
          ? { probeTimeoutMs: this.#options.probeTimeoutMs }
          : {}),
        ...(this.#options.onElicitation ? { onElicitation: this.#options.onElicitation } : {}),
        ...(this.#options.onSampling ? { onSampling: this.#options.onSampling } : {}),
        ...(this.#options.onRoots ? { onRoots: this.#options.onRoots } : {}),
        ...(this.#options.auth ? { auth: this.#options.auth } : {}),
        signal: this.#abort.signal,
      });
    } catch (error) {
      const signIn = signInRequiredOf(error);
      if (signIn) await this.#needsLogin(signIn.message);
      else this.#failed(error instanceof Error ? error.message : String(error), '');
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
      this.#failed(
        connection.closeReason() ?? 'the server exited or closed its connection',
        connection.stderrTail(),
      );
    };
    followLogs(connection, (line) => this.#log(line), this.#options.onLog);
    connection.client.setNotificationHandler('notifications/resources/updated', (notification) => {
      if (this.#connection === connection) this.#options.onResourceUpdated?.(notification.params.uri);
    });
    try {
      await this.#list(connection);
      const current = () => this.#connection === connection && !this.#stopping;
      const working = (work: Promise<void>) => {
        this.#work = work;
      };
      const capabilities = connection.client.getServerCapabilities();
      if (capabilities?.tools?.listChanged) {
        listChanged = coalesceListChanges(() => this.#list(connection), current, working);
      }
      if (hasCatalog(connection.client)) {
        await this.#listCatalog(connection);
        catalogChanged = coalesceListChanges(() => this.#listCatalog(connection), current, working);
        await this.#subscriptions.reopen(connection, (uri, error) =>
          this.#log(`could not subscribe again to ${visible(uri)}: ${messageOf(error)}`),
        );
      }
      const filter = {
        ...(capabilities?.tools?.listChanged ? { toolsListChanged: true } : {}),
        ...(capabilities?.resources?.listChanged ? { resourcesListChanged: true } : {}),
        ...(capabilities?.prompts?.listChanged ? { promptsListChanged: true } : {}),
      };
      if (connection.era === 'modern' && Object.keys(filter).length > 0)
        await connection.client.listen(filter);
    } catch (error) {
      if (this.#connection !== connection) return;
      this.#connection = undefined;
      await connection.close().catch(() => {});
      // With the era known from the lock, connecting sends nothing: the listing is the first request.
      const signIn = signInRequiredOf(error);
      if (signIn) {
        await this.#needsLogin(signIn.message);
        return;
      }
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

  /** Lists what the server offers besides tools; a failure keeps the last listing and is logged. */
  async #listCatalog(connection: McpConnection): Promise<void> {
    let catalog: UpstreamCatalog;
    try {
      catalog = await listCatalog(connection.client);
    } catch (error) {
      if (this.#connection === connection)
        this.#log(`its resources or prompts could not be listed: ${messageOf(error)}`);
      return;
    }
    if (this.#connection !== connection || this.#stopping) return;
    this.#catalog = catalog;
    this.#options.onCatalog?.(catalog);
  }

  #up(connection: McpConnection): void {
    this.#upSince = Date.now();
    this.#reason = undefined;
    this.#log(
      `${this.#restarts > 0 ? 'back up' : 'up'}: ${counted(this.#tools?.length ?? 0, 'tool')}, ${connection.era === 'modern' ? 'revision 2026-07-28' : `legacy era (${connection.protocolVersion ?? 'unknown revision'})`}.`,
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
    // The operator's reason keeps whole paths; #unavailable sanitizes it for the model.
    this.#reason = visible(reason);
    const tail = lastLines(this.#stderr, STDERR_LINES);
    if (this.#failures >= this.#policy.maxFailures) {
      this.#log(
        `down after ${this.#failures} failures in a row: ${this.#reason}${tail ? `\n  last stderr lines:\n${indentLines(tail)}` : ''}\n  Its tools answer mcp_server_unavailable; one more try in ${Math.round(this.#policy.downRetryMs / 1000)} s, or fix it and save the config.`,
      );
      this.#setState('down');
      this.#settleFirst();
      this.#schedule(this.#policy.downRetryMs);
      return;
    }
    const delay = this.#backoff();
    this.#log(
      `${wasUp ? 'failed' : 'could not start'}: ${this.#reason}${tail ? `\n  last stderr lines:\n${indentLines(tail)}` : ''}\n  restarting in ${(delay / 1000).toFixed(1)} s (failure ${this.#failures} of ${this.#policy.maxFailures}).`,
    );
    this.#setState('restarting');
    this.#settleFirst();
    this.#schedule(delay);
  }

  /** The server asks for a sign-in none is kept for: no restart, its tools answer auth_required. */
  async #needsLogin(reason: string): Promise<void> {
    this.#triedSignIn = await this.#storedTokens();
    if (this.#stopping) return;
    clearTimeout(this.#timer);
    this.#reason = reason;
    if (this.#state !== 'needs_login') {
      this.#log(
        `needs a sign-in: run toolpact gateway login ${this.name}. Until then its tools are listed from the lock and answer auth_required; it is tried again once a sign-in is stored.`,
      );
    }
    this.#setState('needs_login');
    this.#settleFirst();
  }

  #signInRequired(): McpSignInRequiredError {
    const auth = this.#options.auth;
    return new McpSignInRequiredError(auth?.server ?? this.name, auth?.principal ?? LOCAL_PRINCIPAL);
  }

  /** A digest of the tokens the store keeps for this server (never the tokens); undefined when none. */
  async #storedTokens(): Promise<string | undefined> {
    const auth = this.#options.auth;
    if (!auth) return undefined;
    try {
      const record = await auth.store.read(auth.server ?? this.name, auth.principal ?? LOCAL_PRINCIPAL);
      if (!record?.tokens) return undefined;
      const { access_token, refresh_token } = record.tokens;
      return createHash('sha256')
        .update(JSON.stringify([access_token, refresh_token]))
        .digest('hex');
    } catch {
      return undefined;
    }
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

  /** An upstream's progress, to the client whose call it reports on (nobody for a token not ours). */
  #passProgress(params: unknown): void {
    const { progressToken, progress, total, message } = (params ?? {}) as Record<string, unknown>;
    const caller = this.#progress.get(progressToken);
    if (!caller || typeof progress !== 'number') return;
    caller
      .progress(
        progress,
        typeof total === 'number' ? total : undefined,
        typeof message === 'string' ? visible(message) : undefined,
      )
      .catch(() => {});
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
