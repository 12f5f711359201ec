import type {
  Client,
  ClientCapabilities,
  CreateMessageRequest,
  CreateMessageResult,
  DiscoverResult,
  ElicitRequest,
  ElicitResult,
  ListRootsResult,
  PriorDiscovery,
  Transport,
} from '@modelcontextprotocol/client';
import { ToolDefinitionError } from '../errors/index.js';
import {
  findCause,
  type McpOAuth,
  McpSignInError,
  McpSignInRequiredError,
  StoredOAuthProvider,
} from './oauth/oauth-provider.js';
import { sharedSchemaValidator } from './schema-validator.js';
import type { InboundNotification, NotificationScreen } from './stdio-transport.js';

export type { InboundNotification as McpInboundNotification, NotificationScreen as McpNotificationScreen };

/** The v2 SDK `Client` a connection holds (`@modelcontextprotocol/client`). */
export type McpClient = Client;

/** A transport the v2 SDK `Client` can connect over (`@modelcontextprotocol/client`'s `Transport`). */
export type McpTransport = Transport;

/**
 * Where an MCP server is: a command to start (stdio), a URL (Streamable HTTP), or a transport of yours.
 * Any of them may carry the era already known from an earlier connection (`prior`), so that the
 * connection does not probe again.
 */
export type McpServerTarget = (
  | {
      /** The executable, e.g. `node` or `npx`. */
      readonly command: string;
      readonly args?: readonly string[];
      /** The child's environment. By default only a safe subset of ours (the SDK's default). */
      readonly env?: { readonly [name: string]: string };
      readonly cwd?: string;
    }
  | {
      readonly url: string | URL;
      /** Extra request headers, e.g. `Authorization`. */
      readonly headers?: { readonly [name: string]: string };
    }
  | { readonly transport: McpTransport }
) & {
  /** The era verdict of an earlier connection to the same server (see {@link McpConnectOptions.prior}). */
  readonly prior?: McpPriorDiscovery;
};

/** The protocol era a connection speaks: `modern` is MCP 2026-07-28 (stateless), `legacy` is 2025-11-25 and older (`initialize`). */
export type McpEra = 'modern' | 'legacy';

/**
 * An era verdict to reuse (the SDK's `PriorDiscovery`): `{ kind: 'legacy' }` skips the probe and goes
 * straight to `initialize`; `{ kind: 'modern', discover }` adopts a `server/discover` result with no
 * round trip. {@link McpConnection.prior} gives the one to keep.
 */
export type McpPriorDiscovery = PriorDiscovery;

/** An elicitation an upstream server asks for while one of its tools runs (form or URL mode). */
export type McpElicitationRequest = ElicitRequest['params'];

/** The answer to an upstream elicitation: `accept` with `content`, `decline` or `cancel`. */
export type McpElicitationResult = ElicitResult;

/** A completion an upstream server asks the host's model for (`sampling/createMessage`). */
export type McpSamplingRequest = CreateMessageRequest['params'];

/** The answer to an upstream sampling request: the model's message. */
export type McpSamplingResult = CreateMessageResult;

/** The answer to an upstream `roots/list`: the folders (as `file://` URIs) the server may work in. */
export type McpRootsResult = ListRootsResult;

/**
 * Where a server's question came from: on revision 2026-07-28, the key it travels under in the
 * server's `inputRequests` (a client that passes the question on can ask it under the same key);
 * undefined on the legacy era, where it is a request of its own.
 */
export interface McpAsked {
  readonly key?: string;
}

/** Options of {@link connectMcpServer}. */
export interface McpConnectOptions {
  /** What the client calls itself (`clientInfo`). Default `{ name: 'toolpact', version: '0.1.0' }`. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /**
   * How the era is chosen. `auto` (default): probe with `server/discover`, fall back to `initialize`
   * when the server does not answer it as a 2026-07-28 server. `legacy`: `initialize` only, no probe.
   * `modern`: 2026-07-28 only; a server that does not speak it is an error (no fallback).
   */
  readonly era?: 'auto' | McpEra;
  /**
   * An era verdict from an earlier connection to the same server ({@link McpConnection.prior}); takes
   * precedence over `era` and skips the probe (and, over stdio, the probe's extra process). Also
   * accepted on the target. A stale `legacy` verdict keeps working (an upgraded server still answers
   * `initialize`); a stale `modern` one fails at connect.
   */
  readonly prior?: McpPriorDiscovery;
  /**
   * Longest wait for the probe's answer, in milliseconds. For a command (stdio) the default is 2,000:
   * the SDK probes in a short-lived second process of the server, and a legacy server that stays
   * silent on an unknown method stalls the connection until this passes, then counts as legacy (raise
   * it for a server that takes longer to start, e.g. a cold `npx`; a 2026-07-28-only server that was
   * merely slow refuses `initialize` and is started again on its revision, at the cost of a process). For a URL or a transport of yours
   * the default is the request timeout (60,000): the probe runs on the connection itself, and silence
   * there is an outage that fails the connection, not a legacy verdict.
   */
  readonly probeTimeoutMs?: number;
  /**
   * Answers the elicitations the server asks for during a tool call: on 2026-07-28 as an
   * `input_required` result (the call is retried with the answer), on the legacy era as an
   * `elicitation/create` request. Without it, the client declares no elicitation support and such a
   * server refuses the call.
   */
  readonly onElicitation?: (request: McpElicitationRequest, asked: McpAsked) => Promise<McpElicitationResult>;
  /**
   * Answers the completions the server asks the host's model for (`sampling/createMessage`). Without
   * it the client declares no sampling support. A handler that throws refuses the request: the server
   * is answered an error carrying the thrown message.
   */
  readonly onSampling?: (request: McpSamplingRequest, asked: McpAsked) => Promise<McpSamplingResult>;
  /**
   * Answers the server's `roots/list`. Without it the client declares no roots. A handler that throws
   * refuses the request with the thrown message.
   */
  readonly onRoots?: (asked: McpAsked) => Promise<McpRootsResult>;
  /** Gives up the start: the connection is closed (a stdio server's process ended) and connecting fails. */
  readonly signal?: AbortSignal;
  /**
   * Consulted for each notification the server sends; false drops it before the MCP client parses and
   * validates it, so that a flood costs one `JSON.parse` a message. Over stdio it screens from the
   * first line; over HTTP or a transport of yours, from the end of the connection's start.
   *
   * @example
   * connectMcpServer(target, { screen: (notification) => notification.method !== 'notifications/progress' });
   */
  readonly screen?: NotificationScreen;
  /**
   * Over stdio, the longest line (one message) read from the server, in bytes; more without a newline
   * closes the connection ({@link McpConnection.closeReason} says so). Default 16 MiB.
   */
  readonly maxLineBytes?: number;
  /**
   * Signs in to a server at a URL with OAuth (the MCP authorization spec): tokens are read from and
   * kept in `auth.store`, refreshed before they expire, and widened on `insufficient_scope`. With
   * `auth.signIn` a server that needs a sign-in sends the person through it; without, connecting
   * (or a call) fails with {@link McpSignInRequiredError}. Ignored for a command or a transport.
   */
  readonly auth?: McpOAuth;
}

/** A connected client and the little we keep about the connection. */
export interface McpConnection {
  /** The v2 SDK client (`@modelcontextprotocol/client`); it was the v1 `Client` before toolpact 0.2. */
  readonly client: McpClient;
  /** The era the connection speaks. */
  readonly era: McpEra;
  /** The negotiated protocol revision, e.g. `2026-07-28` or `2025-11-25`. */
  readonly protocolVersion: string | undefined;
  /** The verdict to pass as `prior` next time, so that a new connection does not probe again. */
  readonly prior: McpPriorDiscovery;
  /** The last lines the server wrote to stderr (stdio only), for error messages. */
  readonly stderrTail: () => string;
  /** Why this side closed the connection, when a protocol error of the server did (stdio only). */
  readonly closeReason: () => string | undefined;
  /**
   * Completes a sign-in that a request left under way (a step-up on `insufficient_scope`, or a
   * refresh that failed), when the connection was given `auth.signIn`; true when it did, and the
   * request can be sent again. False when there was none to complete. Throws {@link McpSignInError}
   * when the sign-in was refused (a forged redirect, a mismatched `iss`, a refused consent).
   */
  readonly completeSignIn: () => Promise<boolean>;
  close(): Promise<void>;
}

const STDERR_TAIL = 2_000;
/** Long enough for a local server to start and answer one request, short enough not to stall a CLI. */
export const DEFAULT_PROBE_TIMEOUT_MS = 2_000;
const MODERN_REVISION = '2026-07-28';
/** The JSON-RPC error code of a refused protocol version (the SDK's `UnsupportedProtocolVersionError`). */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** Pages of one `tools/list` before a server's pagination counts as broken. */
export const MAX_LIST_PAGES = 100;

/**
 * Connects a v2 SDK `Client` to an MCP server, negotiating the era: by default it probes with
 * `server/discover` and falls back to `initialize`, so a server that speaks only 2026-07-28 and one
 * that speaks only the legacy era both connect. The client validates `structuredContent` with the
 * shared draft 2020-12 ajv. A server that cannot be started or reached throws
 * {@link ToolDefinitionError} (`invalid_option`) saying what was tried and what the server said.
 *
 * @example
 * const { client, era, prior, close } = await connectMcpServer({ command: 'node', args: ['server.js'] });
 * // next time: connectMcpServer({ command: 'node', args: ['server.js'], prior }) (no probe)
 */
export async function connectMcpServer(
  target: McpServerTarget,
  options: McpConnectOptions = {},
): Promise<McpConnection> {
  let tail = '';
  let transport: Transport;
  let closeReason: () => string | undefined = () => undefined;
  let screened = false;
  let probeTimeoutMs = options.probeTimeoutMs;
  let what: string;
  let provider: StoredOAuthProvider | undefined;
  let makeHttp: (() => Transport) | undefined;
  let makeStdio: (() => Transport) | undefined;
  if ('transport' in target) {
    transport = target.transport;
    what = 'the given transport';
  } else if ('url' in target) {
    const url = typeof target.url === 'string' ? safeUrl(target.url) : target.url;
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    if (options.auth) provider = new StoredOAuthProvider(options.auth, url);
    const oauth = provider;
    makeHttp = () =>
      new StreamableHTTPClientTransport(url, {
        ...(target.headers ? { requestInit: { headers: { ...target.headers } } } : {}),
        ...(oauth ? { authProvider: oauth, fetch: oauth.watchRejections() } : {}),
      });
    transport = makeHttp();
    what = `the MCP server at ${url.origin}${url.pathname}`;
  } else {
    if (typeof target.command !== 'string' || target.command.trim() === '') {
      throw new ToolDefinitionError('invalid_option', 'Give the command that starts the MCP server.');
    }
    const maxLineBytes = options.maxLineBytes;
    if (maxLineBytes !== undefined && !(Number.isSafeInteger(maxLineBytes) && maxLineBytes > 0)) {
      throw new ToolDefinitionError(
        'invalid_option',
        `maxLineBytes must be a positive whole number of bytes; received ${String(maxLineBytes)}. Leave it out for 16 MiB.`,
      );
    }
    // In a process group of its own, so that ending the server ends what it started (not on Windows,
    // which has no process groups: there the SDK's own transport). Either way the SDK runs its era
    // probe in a sibling process built by the same class, and reaps it.
    const parameters = {
      command: target.command,
      args: [...(target.args ?? [])],
      ...(target.env ? { env: { ...target.env } } : {}),
      ...(target.cwd ? { cwd: target.cwd } : {}),
      stderr: 'pipe' as const,
    };
    const { ProcessGroupStdioTransport } = await import('./stdio-transport.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    makeStdio = () => {
      const grouped =
        process.platform === 'win32'
          ? undefined
          : new ProcessGroupStdioTransport(parameters, {
              ...(options.screen ? { screen: options.screen } : {}),
              ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
            });
      const stdio = grouped ?? new StdioClientTransport(parameters);
      if (grouped) {
        closeReason = () => grouped.closeReason;
        screened = true;
      }
      // Drain the child's stderr (a full pipe would block it) and keep its end for error messages.
      tail = '';
      stdio.stderr?.on('data', (chunk: Buffer) => {
        tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      return stdio;
    };
    transport = makeStdio();
    probeTimeoutMs ??= DEFAULT_PROBE_TIMEOUT_MS;
    what = `the MCP server started by "${[target.command, ...(target.args ?? [])].join(' ')}"`;
  }
  const { Client } = await import('@modelcontextprotocol/client');
  let era = options.era ?? 'auto';
  const newClient = () =>
    new Client(
      { name: options.clientInfo?.name ?? 'toolpact', version: options.clientInfo?.version ?? '0.1.0' },
      {
        capabilities: offered(options),
        jsonSchemaValidator: sharedSchemaValidator(),
        listMaxPages: MAX_LIST_PAGES,
        versionNegotiation: {
          mode: era === 'auto' ? 'auto' : era === 'legacy' ? 'legacy' : { pin: MODERN_REVISION },
          ...(probeTimeoutMs !== undefined ? { probe: { timeoutMs: probeTimeoutMs } } : {}),
        },
      },
    );
  let client = newClient();
  const answerRequests = (client: Client) => answerServerRequests(client, options);
  answerRequests(client);
  const prior = target.prior ?? options.prior;
  // A server that never answers its start would hold a closing gateway until the SDK's own timeout.
  const giveUp = () => {
    client.close().catch(() => {});
  };
  options.signal?.addEventListener('abort', giveUp, { once: true });
  try {
    if (options.signal?.aborted) throw new Error('the start was given up');
    for (let signIns = 0; ; signIns++) {
      try {
        await client.connect(transport, prior ? { prior } : undefined);
        break;
      } catch (error) {
        // A command whose probe went unanswered in time counts as legacy; a server that then refuses
        // `initialize` because it speaks only 2026-07-28 was slow to start, not legacy: start it
        // again, pinned to the revision it named.
        if (makeStdio && era === 'auto' && !prior && speaksOnlyModern(error)) {
          await client.close().catch(() => {});
          era = 'modern';
          // It answered, so it is there: its discovery gets the request timeout, not the probe's.
          probeTimeoutMs = undefined;
          transport = makeStdio();
          client = newClient();
          answerRequests(client);
          continue;
        }
        // A server that needs a sign-in: run it (when a way was given), then connect again.
        if (
          !provider ||
          !makeHttp ||
          signIns >= 2 ||
          !(await finishSignIn(provider, transport, options.auth))
        )
          throw error;
        await client.close().catch(() => {});
        transport = makeHttp();
        client = newClient();
        answerRequests(client);
      }
    }
  } catch (error) {
    await client.close().catch(() => {});
    const signInError =
      findCause(
        error,
        (cause) => cause instanceof McpSignInRequiredError || cause instanceof McpSignInError,
      ) ?? (await provider?.refusal(error));
    if (signInError) throw signInError;
    const reason = error instanceof Error ? error.message : String(error);
    if (provider?.authorizationStarted) {
      throw new McpSignInError(
        `The sign-in to ${provider.server} was refused: ${authorizationServerSaid(reason)}. toolpact sends no token where the server, its metadata and its authorization server do not agree. Check the server's URL; if it is right, ask the server's operator to fix its OAuth set-up.`,
        { cause: error },
      );
    }
    // For the operator (the developer importing, the person running the gateway): whole paths, so that
    // a start failure can be read. What reaches a model is sanitized where it is made (the gateway's
    // mcp_server_unavailable), not here.
    const said = tail.trim() ? ` It wrote: ${tail.trim().split('\n').slice(-5).join(' | ')}` : '';
    throw new ToolDefinitionError(
      'invalid_option',
      `Could not connect to ${what}: ${reason}.${said} Check the command or URL, and that it speaks MCP.`,
      undefined,
      { cause: error },
    );
  }
  const screen = options.screen;
  if (screen && !screened) {
    const { inboundNotification } = await import('./stdio-transport.js');
    screenAfterStart(transport, (message) => {
      const notification = inboundNotification(message);
      return !notification || screen(notification);
    });
  }
  const negotiated: McpEra = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
  const discover: DiscoverResult | undefined = client.getDiscoverResult();
  options.signal?.removeEventListener('abort', giveUp);
  return {
    client,
    era: negotiated,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    prior: negotiated === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' },
    stderrTail: () => tail,
    closeReason,
    completeSignIn: async () =>
      provider !== undefined &&
      (await finishSignIn(provider, transport, options.auth).catch((error: unknown) => {
        // A refused sign-in says why; anything else leaves the request's own error to be seen.
        if (error instanceof McpSignInError) throw error;
        return false;
      })),
    close: () => client.close(),
  };
}

/** Whether a connection failed on an `initialize` that the server refused for speaking only 2026-07-28. */
function speaksOnlyModern(error: unknown): boolean {
  return (
    findCause(error, (cause) => {
      const { code, data } = cause as Error & { code?: unknown; data?: { supported?: unknown } };
      const supported = data?.supported;
      return (
        code === UNSUPPORTED_PROTOCOL_VERSION &&
        Array.isArray(supported) &&
        supported.includes(MODERN_REVISION)
      );
    }) !== undefined
  );
}

/** The client capabilities to declare: only what a handler was given for. */
function offered(options: McpConnectOptions): ClientCapabilities {
  return {
    ...(options.onElicitation ? { elicitation: { form: {} } } : {}),
    ...(options.onSampling ? { sampling: {} } : {}),
    ...(options.onRoots ? { roots: {} } : {}),
  };
}

/** Installs the handlers of what the server may ask the client (elicitation, sampling, roots). */
function answerServerRequests(client: Client, options: McpConnectOptions): void {
  const { onElicitation, onSampling, onRoots } = options;
  if (onElicitation) {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      try {
        return await onElicitation(request.params, askedOf(client, ctx.mcpReq.id));
      } catch {
        // A handler that fails answers nothing useful: the server reads it as the user dismissing it.
        return { action: 'cancel' };
      }
    });
  }
  if (onSampling) {
    client.setRequestHandler('sampling/createMessage', (request, ctx) =>
      onSampling(request.params, askedOf(client, ctx.mcpReq.id)),
    );
  }
  if (onRoots)
    client.setRequestHandler('roots/list', (_request, ctx) => onRoots(askedOf(client, ctx.mcpReq.id)));
}

/** On revision 2026-07-28 a question's id is its `inputRequests` key; on the legacy era, a JSON-RPC id. */
function askedOf(client: Client, id: string | number): McpAsked {
  return client.getProtocolEra() === 'modern' && typeof id === 'string' ? { key: id } : {};
}

/**
 * Runs the sign-in the SDK left under way: sends the person to the authorization URL, checks the
 * `state` that comes back, and redeems the code (the SDK checks `iss`). False when none is under way.
 */
async function finishSignIn(
  provider: StoredOAuthProvider,
  transport: Transport,
  auth: McpOAuth | undefined,
): Promise<boolean> {
  const pending = provider.pendingAuthorization;
  if (!pending || !auth?.signIn) return false;
  provider.pendingAuthorization = undefined;
  const back = await auth.signIn.visit(pending);
  const expected = await provider.expectedState();
  const state = back.searchParams.get('state');
  if (!expected || state !== expected) {
    throw new McpSignInError(
      `The sign-in to ${provider.server} came back with ${state === null ? 'no state' : 'a state that does not match the one sent'}, so it was not completed (it may be a forged redirect). Sign in again.`,
    );
  }
  const finish = (transport as { finishAuth?: (params: URLSearchParams) => Promise<void> }).finishAuth;
  if (!finish) return false;
  await finish.call(transport, back.searchParams);
  return true;
}

/** Puts a filter in front of the client's handling of a connected transport's messages. */
function screenAfterStart(transport: Transport, admit: (message: unknown) => boolean): void {
  const handle = transport.onmessage;
  if (!handle) return;
  transport.onmessage = (message, extra) => {
    if (admit(message)) handle(message, extra);
  };
}

function safeUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolDefinitionError(
      'invalid_option',
      `"${text}" is not a URL; give e.g. http://127.0.0.1:3000/mcp.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolDefinitionError('invalid_option', `"${text}" is not an http(s) URL.`);
  }
  return url;
}

/**
 * An authorization server's refusal, without the body the SDK quotes after it ("Raw body: …"), and
 * cut short: what a hostile server writes there can reach a model through a call's error.
 */
function authorizationServerSaid(reason: string): string {
  const said = reason.split(/\s*Raw body:/)[0]!.trim();
  return said.length > 300 ? `${said.slice(0, 300)}…` : said;
}
