import type { CallToolResult } from '@modelcontextprotocol/client';
import { type Principal, principalKey } from '../dispatch/principal.js';
import { ToolError } from '../dispatch/tool-error.js';
import { ToolDefinitionError } from '../errors/index.js';
import { connectMcpServer, type McpConnection } from '../mcp/connect.js';
import type { McpOAuth } from '../mcp/oauth/oauth-provider.js';

/** How a team gateway reaches one remote MCP server that signs each person in with OAuth. */
export interface PrincipalUpstreamsOptions {
  /** The server's URL (Streamable HTTP). */
  readonly url: string | URL;
  /** Extra request headers sent with every request (never a person's token: that comes from `auth`). */
  readonly headers?: { readonly [name: string]: string };
  /**
   * The server's OAuth settings, shared by everyone; each connection adds its person as `principal`.
   * No `signIn`: a person signs in through the team sign-in link, never from inside a call.
   */
  readonly auth: Omit<McpOAuth, 'principal' | 'signIn'>;
  /** A connection unused this long is closed, in milliseconds. Default 300,000 (five minutes). */
  readonly idleMs?: number;
  /** The most connections open at once; past it the longest-idle one is closed. Default 100. */
  readonly maxConnections?: number;
  /** What the client calls itself (`clientInfo`). */
  readonly clientInfo?: { readonly name: string; readonly version: string };
}

/** Connections to one remote server, one per person, each signed in as that person. */
export interface PrincipalUpstreams {
  /**
   * Calls `remoteName` as `principal` (see {@link upstreamPrincipalId}), connecting on first use with
   * that person's sign-in. Without one it rejects with `McpSignInRequiredError` for that person, which
   * `remoteCallError` answers as `auth_required`: no one else's token is ever tried.
   */
  call(
    principal: string,
    remoteName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    meta?: { readonly [key: string]: string },
  ): Promise<CallToolResult>;
  /** How many connections are open or opening. */
  readonly size: () => number;
  /** Closes every connection; a call after this is refused. */
  close(): Promise<void>;
}

/**
 * The key a person's upstream sign-in is kept under: {@link principalKey}, `auth:<subject>@<issuer>`
 * (the issuer is `api-key` for an API key). The subject alone is not enough: two issuers may each
 * have an `alice`. An API key's own id is not used, so that a person whose key is replaced keeps their
 * sign-in, and the key is the one approvals and the audit already bind to.
 *
 * @example
 * upstreamPrincipalId(principal); // 'auth:alice@https://id.example.com'
 */
export function upstreamPrincipalId(principal: Principal): string {
  return principalKey(principal);
}

interface Pooled {
  readonly connecting: Promise<McpConnection>;
  inFlight: number;
  lastUsed: number;
  /** Out of the pool: closed once its last call ends. */
  retired: boolean;
}

const DEFAULT_IDLE_MS = 300_000;
const DEFAULT_MAX_CONNECTIONS = 100;

/**
 * A pool of connections to one remote OAuth server, one per person behind a team gateway: each
 * connects lazily with `connectMcpServer(target, { auth: { ...auth, principal } })`, so it sends that
 * person's token only, refreshed before it expires. A connection is reused, closed when idle for
 * `idleMs`, closed (longest idle first) when `maxConnections` are open, and dropped after a failed
 * call, so that the next call connects again (after a sign-in, say).
 *
 * @example
 * const linear = principalUpstreams({ url: 'https://mcp.linear.app/mcp', auth: { store, server: 'linear' } });
 * await linear.call(upstreamPrincipalId(principal), 'list_issues', {}, signal);
 */
export function principalUpstreams(options: PrincipalUpstreamsOptions): PrincipalUpstreams {
  const idleMs = positive('idleMs', options.idleMs, DEFAULT_IDLE_MS);
  const maxConnections = positive('maxConnections', options.maxConnections, DEFAULT_MAX_CONNECTIONS);
  const pool = new Map<string, Pooled>();
  let closed = false;
  let sweep: NodeJS.Timeout | undefined;

  const retire = (principal: string, pooled: Pooled) => {
    if (pool.get(principal) === pooled) pool.delete(principal);
    pooled.retired = true;
    if (pooled.inFlight === 0) closeQuietly(pooled);
    if (pool.size === 0 && sweep) {
      clearInterval(sweep);
      sweep = undefined;
    }
  };
  const sweepIdle = () => {
    const now = Date.now();
    for (const [principal, pooled] of pool) {
      if (pooled.inFlight === 0 && now - pooled.lastUsed >= idleMs) retire(principal, pooled);
    }
  };
  const open = (principal: string): Pooled => {
    if (pool.size >= maxConnections) {
      const idle = [...pool].filter(([, each]) => each.inFlight === 0);
      idle.sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
      const [oldest] = idle;
      if (!oldest) throw busy(maxConnections);
      retire(...oldest);
    }
    const target = { url: options.url, ...(options.headers ? { headers: options.headers } : {}) };
    const pooled: Pooled = {
      connecting: connectMcpServer(target, {
        auth: { ...options.auth, principal },
        ...(options.clientInfo ? { clientInfo: options.clientInfo } : {}),
      }),
      inFlight: 0,
      lastUsed: Date.now(),
      retired: false,
    };
    // A connection that fails (no sign-in, say) leaves the pool: the next call tries again.
    pooled.connecting.catch(() => retire(principal, pooled));
    pool.set(principal, pooled);
    sweep ??= setInterval(sweepIdle, Math.max(10, Math.min(Math.floor(idleMs / 2), 30_000)));
    sweep.unref();
    return pooled;
  };

  return {
    async call(principal, remoteName, args, signal, meta) {
      if (closed) {
        throw new ToolError('The gateway is closing; the call was not sent.', {
          type: 'mcp_server_unavailable',
          retryable: true,
        });
      }
      const pooled = pool.get(principal) ?? open(principal);
      pooled.inFlight++;
      try {
        const connection = await pooled.connecting;
        return (await connection.client.callTool(
          { name: remoteName, arguments: args, ...(meta ? { _meta: { ...meta } } : {}) },
          { signal },
        )) as CallToolResult;
      } catch (error) {
        if (!signal.aborted) retire(principal, pooled);
        throw error;
      } finally {
        pooled.inFlight--;
        pooled.lastUsed = Date.now();
        if (pooled.retired && pooled.inFlight === 0) closeQuietly(pooled);
      }
    },
    size: () => pool.size,
    async close() {
      closed = true;
      if (sweep) clearInterval(sweep);
      sweep = undefined;
      const all = [...pool.values()];
      pool.clear();
      await Promise.allSettled(
        all.map(async (pooled) => (await pooled.connecting.catch(() => undefined))?.close()),
      );
    },
  };
}

function closeQuietly(pooled: Pooled): void {
  pooled.connecting.then((connection) => connection.close()).catch(() => {});
}

function busy(maxConnections: number): ToolError {
  return new ToolError(
    `The gateway has ${maxConnections} connections to this server open, all in use; the call was not sent. Call again in a moment.`,
    { type: 'mcp_server_busy', retryable: true },
  );
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ToolDefinitionError(
      'invalid_option',
      `${name} must be a whole number of at least 1; received ${String(value)}. Leave it out for ${fallback}.`,
    );
  }
  return value;
}
