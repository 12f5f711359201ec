import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio as serveStdioEntry } from '@modelcontextprotocol/server/stdio';
import type { Registry } from '../registry/registry.js';
import { clientChannel, type McpClientChannel } from './client-channel.js';
import {
  buildMcpServer,
  followChanges,
  followKinds,
  type McpServerOptions,
  pageSizeOf,
} from './create-mcp-server.js';
import { followStdioListens } from './listen-watch.js';
import { abandonHeldCalls } from './modern-call.js';
import { RequestStateSealer } from './request-state.js';
import { ResourceWatchers } from './resource-watchers.js';

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
  /**
   * Told of the client once it has opened a legacy connection (`initialize`), so that what it is asked
   * outside any call (a gateway's upstream asking between calls) can reach it. Never told of a
   * revision 2026-07-28 client, which takes no request outside a call.
   */
  readonly onClient?: (client: McpClientChannel) => void;
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
      const server = buildMcpServer(
        registry,
        options,
        { listChanged: true, serverRequests: true },
        approvals,
      );
      const onClient = options.onClient;
      if (onClient) server.oninitialized = () => onClient(clientChannel(server));
      pinned = server;
      return server;
    },
    { transport },
  );
  // On revision 2026-07-28 the entry serves `subscriptions/listen`; the URIs a stream names are watched
  // here, and their updates sent through the pinned server, whose notifications the entry routes.
  const watchers = new ResourceWatchers(registry, (uri) => {
    if (pinned?.transport) pinned.sendResourceUpdated({ uri }).catch(() => {});
  });
  const listens = followStdioListens(watchers);
  const entryOnMessage = transport.onmessage;
  transport.onmessage = (message) => {
    listens.message(message);
    entryOnMessage?.(message);
  };
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
    listens.close();
    watchers.close();
    // The calls still waiting for the client's answers end with its connection.
    abandonHeldCalls(approvals);
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
