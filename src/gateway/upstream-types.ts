// The shapes of an upstream server's options, calls and status, apart from the class that runs it.
import type {
  ClientCapabilities,
  LoggingMessageNotification,
  Tool as McpTool,
} from '@modelcontextprotocol/client';
import type {
  McpAsked,
  McpElicitationRequest,
  McpElicitationResult,
  McpEra,
  McpPriorDiscovery,
  McpRootsResult,
  McpSamplingRequest,
  McpSamplingResult,
  McpServerTarget,
} from '../mcp/connect.js';
import type { SkippedTool } from '../mcp/import-mcp-tools.js';
import type { McpOAuth } from '../mcp/oauth/oauth-provider.js';
import type { McpRequestContext } from '../mcp/request-context.js';
import type { UpstreamCatalog } from './catalog.js';
import type { UpstreamCallers } from './upstream-callers.js';

/**
 * Where an upstream server is in its life. `needs_login`: a remote server that asks for a sign-in none
 * is kept for; it is not retried until the token store holds a new sign-in.
 */
export type UpstreamState = 'starting' | 'up' | 'restarting' | 'down' | 'needs_login' | 'stopped';

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
  /**
   * How a remote server signs in (no `signIn` driver: the gateway runs unattended). A server that needs
   * a sign-in is `needs_login` until the store holds one; `toolpact gateway login` puts it there.
   */
  readonly auth?: McpOAuth;
  /** The era verdict kept from an earlier start (the lock), so a start does not probe again. */
  readonly prior?: McpPriorDiscovery;
  readonly restart?: Partial<RestartPolicy>;
  /** Longest wait for one call in milliseconds (default 60,000); the gateway's own timeout comes first. */
  readonly requestTimeoutMs?: number;
  readonly probeTimeoutMs?: number;
  /** Most tools taken from the server (default 1,000). */
  readonly maxTools?: number;
  readonly onElicitation?: (request: McpElicitationRequest, asked: McpAsked) => Promise<McpElicitationResult>;
  /** Answers the server's sampling requests; without it the gateway declares no sampling to the server. */
  readonly onSampling?: (request: McpSamplingRequest, asked: McpAsked) => Promise<McpSamplingResult>;
  /** Answers the server's `roots/list`; without it the gateway declares no roots to the server. */
  readonly onRoots?: (asked: McpAsked) => Promise<McpRootsResult>;
  /**
   * What a revision 2026-07-28 server is told it may ask while it serves `caller`'s request (sent in
   * the request's `_meta`); without it, what the gateway declared.
   */
  readonly capabilitiesFor?: (caller: McpRequestContext) => ClientCapabilities;
  /** Told of each log message of the server that passed the rate limit (besides the operator's line). */
  readonly onLog?: (params: LoggingMessageNotification['params']) => void;
  /** The client calls running on the server, kept so that what it sends back reaches their client. */
  readonly callers?: UpstreamCallers;
  /** Wraps every `tools/call` sent to the server. */
  readonly wrapCall?: UpstreamCallWrapper;
  /** Told of every listing of the server's tools (at each start, and when the server says they changed). */
  readonly onTools: (tools: readonly McpTool[], skipped: readonly SkippedTool[]) => void;
  /** Told of every listing of its resources, templates and prompts (a server that declares them). */
  readonly onCatalog?: (catalog: UpstreamCatalog) => void;
  /** Told of each `notifications/resources/updated` for a URI the gateway subscribed to. */
  readonly onResourceUpdated?: (uri: string) => void;
  /** Told of every change of state. */
  readonly onState?: (
    state: UpstreamState,
    upstream: { readonly name: string; status(): UpstreamStatus },
  ) => void;
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
