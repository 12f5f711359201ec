import type { Readable, Writable } from 'node:stream';
import type { Server, Transport } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio as serveStdioEntry } from '@modelcontextprotocol/server/stdio';
import type { Registry } from '../registry/registry.js';
import { buildMcpServer, followChanges, type McpServerOptions, pageSizeOf } from './create-mcp-server.js';
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
  const transport = observedClose(new StdioServerTransport(options.stdin, options.stdout), () =>
    resolveClosed(),
  );
  // The entry builds an instance for the opening message (and may build one for a discover probe it
  // then drops); the last one built is the one pinned to the connection.
  let pinned: Server | undefined;
  const stopFollowing = followChanges(options.listing ?? registry, () => {
    if (pinned?.transport) pinned.sendToolListChanged().catch(() => {});
  });
  const handle = serveStdioEntry(
    () => {
      pinned = buildMcpServer(registry, options, { listChanged: true, serverRequests: true }, approvals);
      return pinned;
    },
    { transport },
  );
  closed.then(stopFollowing, stopFollowing);
  // Older SDK transports missed the end of stdin; this keeps a host's hang-up from leaving us running.
  const input = options.stdin ?? process.stdin;
  const onEnd = () => {
    handle.close().catch(() => {});
  };
  input.once('end', onEnd);
  return {
    closed,
    async close() {
      input.off('end', onEnd);
      await handle.close();
      resolveClosed();
    },
  };
}

// The entry owns the transport's `onclose`; this passes it through and tells us too.
function observedClose(inner: StdioServerTransport, onClosed: () => void): Transport {
  const transport: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    send: (message) => inner.send(message),
    set onmessage(handler: Transport['onmessage']) {
      inner.onmessage = handler;
    },
    get onmessage() {
      return inner.onmessage;
    },
    set onclose(handler: Transport['onclose']) {
      inner.onclose = () => {
        handler?.();
        onClosed();
      };
    },
    get onclose() {
      return inner.onclose;
    },
    set onerror(handler: Transport['onerror']) {
      inner.onerror = handler;
    },
    get onerror() {
      return inner.onerror;
    },
  };
  return transport;
}
