import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Registry } from '../registry/registry.js';
import { createMcpServer, type McpServerOptions } from './create-mcp-server.js';

/** Options of {@link serveStdio}. */
export interface StdioServeOptions extends McpServerOptions {
  /** Where requests come from (default `process.stdin`). */
  readonly stdin?: Readable;
  /** Where answers go (default `process.stdout`); nothing else may write to it. */
  readonly stdout?: Writable;
}

/** A running MCP server; `close()` ends the connection. */
export interface RunningStdioServer {
  /** Resolves when the connection ends, from either side. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves a registry over stdio (newline-delimited JSON-RPC on stdin/stdout), the way MCP hosts start
 * local servers. Every call goes through `registry.call`, with its gate.
 *
 * @example
 * // server.ts, started by the host as `tsx server.ts`
 * await serveStdio(registry, { name: 'workspace' });
 */
export async function serveStdio(
  registry: Registry,
  options: StdioServeOptions = {},
): Promise<RunningStdioServer> {
  const server = createMcpServer(registry, options);
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
  });
  // The SDK transport does not notice the end of stdin; without this a host's hang-up leaves us running.
  const input = options.stdin ?? process.stdin;
  const onEnd = () => {
    server.close().catch(() => {});
  };
  input.once('end', onEnd);
  await server.connect(transport);
  return {
    closed,
    async close() {
      input.off('end', onEnd);
      await server.close();
    },
  };
}
