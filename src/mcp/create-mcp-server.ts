import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
  type Tool as McpTool,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolContract } from '../contract/index.js';
import { ToolDefinitionError } from '../errors/index.js';
import type { Registry } from '../registry/registry.js';
import { toMcpCallResult, toMcpTool } from '../schema/mcp.js';
import { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor } from './pagination.js';
import { createRequestContext, type LogThreshold, type McpRequestContext } from './request-context.js';
import { sharedSchemaValidator } from './schema-validator.js';

/** Options of {@link createMcpServer} (and of `serveStdio` / `serveHttp`). */
export interface McpServerOptions {
  /** `serverInfo.name` (default `toolpact`). */
  readonly name?: string;
  /** `serverInfo.version` (default `0.1.0`). */
  readonly version?: string;
  /** `instructions` for the client, sent with the initialize result. */
  readonly instructions?: string;
  /** Tools per `tools/list` page (default 100). */
  readonly pageSize?: number;
  /**
   * The `state` each call runs with, made from the MCP request context. By default the context itself;
   * return `{ ...yours, mcp: context }` to keep it reachable by `mcpContextOf` and the elicitation approver.
   */
  readonly state?: (context: McpRequestContext) => unknown;
  /**
   * The tools `tools/list` shows, when not all of them: e.g. `withToolSearch(registry)`, which lists the
   * always-loaded tools and `search_tools`, and changes (so `list_changed` is sent) when a search loads
   * more. `tools/call` still reaches every tool of the registry.
   */
  readonly listing?: ToolListing;
}

/** A changing selection of a registry's tools, for {@link McpServerOptions.listing}. */
export interface ToolListing {
  schemas(): readonly ToolContract[];
  onChange(listener: () => void): () => void;
}

/** How the transport limits what the server can offer; set by `serveStdio` / `serveHttp`. */
export interface McpConnectionTraits {
  /** The connection can carry a notification nobody asked for (false for stateless HTTP). */
  readonly listChanged: boolean;
  /** The client's answers to our requests (elicitation, sampling) can reach this server instance. */
  readonly serverRequests: boolean;
}

const VERSION = '0.1.0';

/**
 * A low-level MCP `Server` that serves a registry: `tools/list` (paginated, in registration order),
 * `tools/call` through `registry.call` (so the registry's gate and approver apply to every call),
 * `notifications/tools/list_changed` when the registry changes, cancellation through the call's
 * AbortSignal, and logging. Connect it to any transport; `serveStdio` and `serveHttp` do that for you.
 *
 * @example
 * const server = createMcpServer(registry, { name: 'workspace' });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(
  registry: Registry,
  options: McpServerOptions = {},
  traits: McpConnectionTraits = { listChanged: true, serverRequests: true },
): Server {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new ToolDefinitionError(
      'invalid_option',
      `pageSize is ${String(options.pageSize)}; give a whole number of tools per page, at least 1.`,
    );
  }
  const server = new Server(
    { name: options.name ?? 'toolpact', version: options.version ?? VERSION },
    {
      capabilities: { tools: { listChanged: traits.listChanged }, logging: {} },
      ...(options.instructions ? { instructions: options.instructions } : {}),
      jsonSchemaValidator: sharedSchemaValidator(),
    },
  );
  const threshold: LogThreshold = { level: undefined };

  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    threshold.level = request.params.level;
    return {};
  });

  server.setRequestHandler(ListToolsRequestSchema, (request): ListToolsResult => {
    const contracts = (options.listing ?? registry).schemas();
    const cursor = request.params?.cursor;
    const offset = cursor === undefined ? 0 : decodeCursor(cursor);
    if (offset === undefined || offset > contracts.length) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `The cursor ${JSON.stringify(cursor?.slice(0, 64))} is not one this server gave out (or the tool list has since shrunk). List again without a cursor.`,
      );
    }
    const end = Math.min(offset + pageSize, contracts.length);
    const tools = contracts.slice(offset, end).map(publish);
    return end < contracts.length ? { tools, nextCursor: encodeCursor(end) } : { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const tool = registry.get(name);
    const context = createRequestContext(server, extra, threshold, traits.serverRequests);
    let state: unknown = context;
    if (options.state) {
      try {
        state = options.state(context);
      } catch {
        // A defect in the server's own state function: say nothing of it to the client.
        throw new McpError(ErrorCode.InternalError, 'The server could not prepare this call.');
      }
    }
    // An omitted `arguments` is an empty object: all-optional tools must be callable without one.
    const envelope = await registry.call(name, request.params.arguments ?? {}, {
      signal: extra.signal,
      callId: String(extra.requestId),
      state,
    });
    if (!tool && !envelope.ok && envelope.error.type === 'unknown_tool') {
      // The spec makes an unknown tool a protocol error (-32602); the message still names the closest tools.
      throw new McpError(ErrorCode.InvalidParams, envelope.error.message, envelope.error);
    }
    return toMcpCallResult(envelope, tool?.contract) as CallToolResult;
  });

  if (traits.listChanged) {
    let pending = false;
    const unsubscribe = (options.listing ?? registry).onChange(() => {
      if (pending) return;
      pending = true;
      // One notification for a burst of changes in the same tick.
      queueMicrotask(() => {
        pending = false;
        if (server.transport) server.sendToolListChanged().catch(() => {});
      });
    });
    const previous = server.onclose;
    server.onclose = () => {
      unsubscribe();
      previous?.();
    };
  }
  return server;
}

const published = new WeakMap<ToolContract, McpTool>();

// Contracts are frozen and replaced (never mutated) on change, so the wire form can be kept per contract.
function publish(contract: ToolContract): McpTool {
  let tool = published.get(contract);
  if (!tool) {
    tool = toMcpTool(contract) as unknown as McpTool;
    published.set(contract, tool);
  }
  return tool;
}
