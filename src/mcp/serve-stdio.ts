import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio as serveStdioEntry } from '@modelcontextprotocol/server/stdio';
import type { Registry } from '../registry/registry.js';
import {
  buildMcpServer,
  followChanges,
  followKinds,
  type McpServerOptions,
  pageSizeOf,
} from './create-mcp-server.js';
import { RequestStateSealer } from './request-state.js';

/** Options of {@link serveStdio}. */
export interface StdioServeOptions extends McpServerOptions {
  /** Where requests come from (default `process.stdin`). */
  readonly stdin?: Readable;
  /** Where answers go (default `process.stdout`); nothing else may write to it. */
  readonly stdout?: Writable;
  /**
   * Seals the `requestState` of a revision 2026-07-28 approval (default
   * `RequestStateSealer.fromEnvironment()`; a key of this process unless `TOOLPACT_STATE_KEY` is set,
   * which suits stdio: the retry comes back over the same pipe).
   */
  readonly requestState?: RequestStateSealer;
}

/** A running MCP server; `close()` ends the connection. */
export interface RunningStdioServer {
  /** Resolves when the connection ends, from either side. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves a registry over stdio (newline-delimited JSON-RPC on stdin/stdout), the way MCP hosts start
 * local servers, in the era the client opens with: `initialize` opens the 2025 (legacy) era, with
 * `logging/setLevel`, pushed elicitation and unsolicited `list_changed`; `server/discover` or any
 * request carrying the revision 2026-07-28 `_meta` envelope opens the modern one, where approvals are
 * input-required results and changes go to `subscriptions/listen`. Every call goes through
 * `registry.call`, with its gate.
 *
 * @example
 * // server.ts, started by the host as `tsx server.ts`
 * await serveStdio(registry, { name: 'workspace' });
 */
export async function serveStdio(
  registry: Registry,
  options: StdioServeOptions = {},
): Promise<RunningStdioServer> {
  pageSizeOf(options); // the server is built on the first message: a bad option must fail here
  const approvals = options.requestState ?? RequestStateSealer.fromEnvironment();
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  // The entry builds an instance for the opening message (and may build one for a discover probe it
  // then drops); the last one built is the one pinned to the connection.
  let pinned: Server | undefined;
  const stopFollowing = followChanges(options.listing ?? registry, () => {
    if (pinned?.transport) pinned.sendToolListChanged().catch(() => {});
  });
  const stopKinds = followKinds(registry, (kind) => {
    if (!pinned?.transport) return;
    const sent = kind === 'resources' ? pinned.sendResourceListChanged() : pinned.sendPromptListChanged();
    sent.catch(() => {});
  });
  const handle = serveStdioEntry(
    () => {
      pinned = buildMcpServer(registry, options, { listChanged: true, serverRequests: true }, approvals);
      return pinned;
    },
    { transport },
  );
  // The entry takes the transport's `onclose` as it starts (the transport fires it at the end of stdin
  // too); we are told after it.
  const entryOnClose = transport.onclose;
  transport.onclose = () => {
    entryOnClose?.();
    resolveClosed();
  };
  const stop = () => {
    stopFollowing();
    stopKinds();
  };
  closed.then(stop, stop);
  return {
    closed,
    async close() {
      await handle.close();
      resolveClosed();
    },
  };
}
