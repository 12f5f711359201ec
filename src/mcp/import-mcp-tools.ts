import { AsyncLocalStorage } from 'node:async_hooks';
import type { Implementation, Tool as McpTool } from '@modelcontextprotocol/client';
import type { ToolCategory } from '../contract/index.js';
import type { AnyTool } from '../contract/tool.js';
import type { BrokenDefault } from '../define/broken-defaults.js';
import { ToolDefinitionError } from '../errors/index.js';
import type { Registry } from '../registry/registry.js';
import {
  connectMcpServer,
  MAX_LIST_PAGES,
  type McpClient,
  type McpConnection,
  type McpConnectOptions,
  type McpElicitationRequest,
  type McpElicitationResult,
  type McpEra,
  type McpPriorDiscovery,
  type McpServerTarget,
} from './connect.js';
import { type PrefixMode, planNames } from './imported-names.js';
import { inferCategory } from './infer-category.js';
import { remoteTool } from './remote-tool.js';

/**
 * Options of {@link importMcpTools}. `era`, `prior` (an earlier import's {@link McpImport.prior}) and
 * `probeTimeoutMs` choose the protocol era as for {@link connectMcpServer}.
 */
export interface ImportMcpOptions
  extends Pick<McpConnectOptions, 'era' | 'prior' | 'probeTimeoutMs' | 'auth'> {
  /**
   * The server's label: `meta.source` becomes `mcp:<label>` and collisions are prefixed with it.
   * Default: the `serverInfo.name` the server reports.
   */
  readonly name?: string;
  /** `on-collision` (default): prefix only names already taken; `always`; `never`: a collision throws. */
  readonly prefix?: PrefixMode;
  /**
   * The category of each tool for the gate, by its name on the server (`{ read_text_file: 'read' }`).
   * A tool not named here is shown with the category its annotations suggest, marked as the server's
   * claim (`meta.inferredCategory`): the policy never allows by it, and with no other rule it asks.
   */
  readonly categories?: { readonly [remoteName: string]: ToolCategory };
  /**
   * Follow the server's tool list changes by re-importing (default true): `subscriptions/listen` on
   * 2026-07-28, `notifications/tools/list_changed` on the legacy era.
   */
  readonly followChanges?: boolean;
  /** Longest wait for one remote call, in milliseconds (default 60,000, the SDK's). */
  readonly requestTimeoutMs?: number;
  /** Most tools taken from one server (default 1,000); the listing stops there. */
  readonly maxTools?: number;
  /**
   * Answers what the server asks the user while one of its tools runs (elicitation): a 2026-07-28
   * server's `input_required` result, retried with the answer, or a legacy server's
   * `elicitation/create`. Given the tool and the registry call's `state` when they are known, so a
   * gateway can ask its own client (e.g. through `mcpContextOf(state)`). Without it the client
   * declares no elicitation support, and such a call fails with `mcp_input_unsupported`.
   * Sampling and roots are always refused (deprecated in 2026-07-28).
   */
  readonly onElicitation?: (elicitation: UpstreamElicitation) => Promise<McpElicitationResult>;
}

/** What {@link ImportMcpOptions.onElicitation} is asked. */
export interface UpstreamElicitation {
  /** The import's label. */
  readonly server: string;
  /** The server's request: `message` and `requestedSchema` (form mode). */
  readonly request: McpElicitationRequest;
  /**
   * The call it belongs to: always on 2026-07-28; on the legacy era when exactly one call to this
   * server is running (the protocol does not say which call a legacy request belongs to).
   */
  readonly call?: {
    /** The tool's local name. */
    readonly tool: string;
    readonly remoteName: string;
    /** The `state` the registry call was given. */
    readonly state: unknown;
  };
}

/** One imported tool: its local name, its name on the server, and the display category. */
export interface ImportedTool {
  readonly name: string;
  readonly remoteName: string;
  readonly category: ToolCategory;
  /** Why the local name differs from the remote one. */
  readonly renamed?: 'collision' | 'always' | 'invalid_name';
}

/** A remote tool that could not be imported, and why (never dropped silently). */
export interface SkippedTool {
  readonly remoteName: string;
  /** `invalid_default`: a `const` its own schema refuses, so no call could pass. */
  readonly code:
    | 'invalid_schema'
    | 'invalid_default'
    | 'name_taken'
    | 'duplicate_on_server'
    | 'limit_reached';
  readonly message: string;
}

/**
 * A `default` or `examples` entry of a remote schema that failed its own subschema and was dropped, so
 * that it is never applied: the tool itself is imported.
 */
export interface DroppedDefault extends BrokenDefault {
  /** The tool's local name. */
  readonly tool: string;
  readonly remoteName: string;
}

/**
 * A live import: the tools are in the registry until `close()`. The import is attached to its registry
 * ({@link Registry.own}), so `registry.close()` closes it too.
 */
export interface McpImport {
  /** The label used in `meta.source` (`mcp:<label>`) and in prefixes. */
  readonly server: string;
  readonly serverInfo: Implementation | undefined;
  readonly tools: () => readonly ImportedTool[];
  readonly skipped: () => readonly SkippedTool[];
  /** Tools whose description the server left empty (they get a stated placeholder). */
  readonly undescribed: () => readonly string[];
  /** Defaults and examples that broke their own schema and were dropped (see {@link DroppedDefault}). */
  readonly droppedDefaults: () => readonly DroppedDefault[];
  /** The v2 SDK client (`@modelcontextprotocol/client`); before toolpact 0.2 the v1 `Client`. */
  readonly client: McpClient;
  /** The era the connection negotiated: `modern` (2026-07-28) or `legacy` (`initialize`). */
  readonly era: McpEra;
  /** The negotiated protocol revision, e.g. `2026-07-28` or `2025-11-25`. */
  readonly protocolVersion: string | undefined;
  /** The verdict to pass as `prior` when the same server is imported again, so it is not probed again. */
  readonly prior: McpPriorDiscovery;
  /**
   * Until when the tool list is fresh (epoch milliseconds): the server's `ttlMs` after the last
   * listing (2026-07-28); a legacy server gives none, so its list is stale at once.
   */
  readonly freshUntil: () => number;
  /**
   * Lists the server's tools again and replaces ours with them. While the last list is still fresh
   * (its `ttlMs` has not passed) the kept list is used, unless `force` is true.
   */
  refresh(options?: { readonly force?: boolean }): Promise<void>;
  /**
   * Removes the tools from the registry, detaches the import from it and closes the connection (a
   * server started over stdio is stopped). Closing again answers the first close's promise.
   */
  close(): Promise<void>;
}

const DEFAULT_MAX_TOOLS = 1_000;

/**
 * Connects to an MCP server and registers each of its tools in `registry` as a toolpact tool with
 * `meta.source = 'mcp:<server>'`. Arguments are validated locally (shared ajv, draft 2020-12) before
 * anything is sent, so a model's bad call never reaches the server; the registry's gate applies as to
 * any tool; a remote `isError` result becomes a failure envelope. The category is inferred from the
 * annotations for display only. Names that collide are prefixed (see `planNames`). The import is
 * attached to the registry, so `registry.close()` (or `await using registry`) also closes it.
 *
 * @example
 * const registry = new Registry({ beforeCall: policy });
 * const fs = await importMcpTools(registry, {
 *   command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/notes'],
 * }, { name: 'fs' });
 * await registry.dispatch('read_text_file', { path: '/srv/notes/todo.md' });
 * await fs.close(); // or registry.close(), which closes every import attached to it
 */
export async function importMcpTools(
  registry: Registry,
  target: McpServerTarget,
  options: ImportMcpOptions = {},
): Promise<McpImport> {
  if (registry.closed) {
    throw new ToolDefinitionError(
      'invalid_option',
      'importMcpTools() was given a registry that is already closed, so the imported tools could never be called. Import into a new Registry.',
    );
  }
  let label = options.name ?? 'server';
  // Which registry call a tool call belongs to, so an elicitation can say which tool asks.
  const calling = new AsyncLocalStorage<UpstreamCall>();
  const running = new Set<UpstreamCall>();
  const onElicitation = options.onElicitation;
  const connection = await connectMcpServer(target, {
    ...(options.era ? { era: options.era } : {}),
    ...(options.prior ? { prior: options.prior } : {}),
    ...(options.probeTimeoutMs !== undefined ? { probeTimeoutMs: options.probeTimeoutMs } : {}),
    ...(options.auth ? { auth: options.auth } : {}),
    ...(onElicitation
      ? {
          onElicitation: (request: McpElicitationRequest) => {
            const call = calling.getStore() ?? (running.size === 1 ? [...running][0] : undefined);
            return onElicitation({ server: label, request, ...(call ? { call } : {}) });
          },
        }
      : {}),
  });
  const client = connection.client;
  // Sends a request again, once, after finishing a sign-in it left under way (with `auth.signIn`).
  const afterSignIn = async <T>(send: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
    try {
      return await send();
    } catch (error) {
      if (!signal?.aborted && (await connection.completeSignIn())) return send();
      throw error;
    }
  };
  // Runs a remote call as the given registry call, so an elicitation can say which tool asks.
  const track = <T>(call: UpstreamCall, run: () => Promise<T>): Promise<T> => {
    running.add(call);
    return calling.run(call, run).finally(() => running.delete(call));
  };
  const serverInfo = client.getServerVersion();
  label = options.name ?? serverInfo?.name ?? 'server';
  const source = `mcp:${label}`;
  let current: ImportedTool[] = [];
  let skipped: SkippedTool[] = [];
  let undescribed: string[] = [];
  let droppedDefaults: DroppedDefault[] = [];
  let freshUntil = 0;
  let closing: Promise<void> | undefined;

  const load = async (cacheMode: 'use' | 'refresh' = 'refresh') => {
    // A sign-in the server asked for again (its authorization server moved, or the token lapsed).
    const listed = await afterSignIn(() =>
      listServerTools(client, options.maxTools ?? DEFAULT_MAX_TOOLS, cacheMode),
    );
    // A listing that comes back after close() must not bring the tools back.
    if (closing) return;
    freshUntil = Date.now() + listed.ttlMs;
    const own = new Set(current.map((tool) => tool.name));
    const taken = new Set(
      registry
        .list()
        .map((tool) => tool.contract.name)
        .filter((name) => !own.has(name)),
    );
    const nextSkipped: SkippedTool[] = [...listed.skipped];
    const nextUndescribed: string[] = [];
    const nextDropped: DroppedDefault[] = [];
    const plans = planNames(
      label,
      listed.tools.map((tool) => tool.name),
      taken,
      options.prefix ?? 'on-collision',
    );
    const built: AnyTool[] = [];
    const imported: ImportedTool[] = [];
    for (const [index, remote] of listed.tools.entries()) {
      const plan = plans[index]!;
      if (plan.local === undefined) {
        nextSkipped.push({
          remoteName: remote.name,
          code: 'name_taken',
          message: `A tool named "${remote.name}" is already registered and prefix is "never"; import with prefix "on-collision" or rename the local tool.`,
        });
        continue;
      }
      const given =
        options.categories && Object.hasOwn(options.categories, remote.name)
          ? options.categories[remote.name]
          : undefined;
      const category = given ?? inferCategory(remote.name, remote.annotations);
      const description = remote.description?.trim();
      if (!description) nextUndescribed.push(plan.local);
      try {
        const { tool, dropped } = remoteTool(remote, {
          name: plan.local,
          server: label,
          source,
          category,
          inferredCategory: given === undefined,
          description:
            description ||
            `${remote.title ?? remote.annotations?.title ?? remote.name} (the MCP server "${label}" gives no description).`,
          call: (call) =>
            track({ tool: call.tool, remoteName: call.remoteName, state: call.state }, () =>
              // A step-up (insufficient_scope) or a lapsed sign-in that the person can finish now.
              afterSignIn(
                () =>
                  client.callTool(
                    {
                      name: call.remoteName,
                      arguments: call.arguments,
                      ...(call.meta ? { _meta: call.meta } : {}),
                    },
                    {
                      signal: call.signal,
                      ...(options.requestTimeoutMs ? { timeout: options.requestTimeoutMs } : {}),
                    },
                  ),
                call.signal,
              ),
            ),
        });
        built.push(tool);
        for (const entry of dropped)
          nextDropped.push({ tool: plan.local, remoteName: remote.name, ...entry });
        imported.push({
          name: plan.local,
          remoteName: remote.name,
          category,
          ...('reason' in plan && plan.reason ? { renamed: plan.reason } : {}),
        });
      } catch (error) {
        nextSkipped.push({
          remoteName: remote.name,
          code:
            error instanceof ToolDefinitionError && error.code === 'invalid_default'
              ? 'invalid_default'
              : 'invalid_schema',
          message: error instanceof Error ? error.message : String(error),
        });
      }
    }
    const previous = current.map((tool) => registry.get(tool.name)).filter((tool) => tool !== undefined);
    for (const tool of current) registry.unregister(tool.name);
    try {
      registry.register(built);
    } catch (error) {
      // A name taken since the plan was made: keep the tools we had rather than none.
      registry.register(previous.filter((tool) => !registry.has(tool.contract.name)));
      throw error;
    }
    current = imported;
    skipped = nextSkipped;
    undescribed = nextUndescribed;
    droppedDefaults = nextDropped;
  };

  let subscription: { close(): Promise<void> } | undefined;
  try {
    await load();
    if (options.followChanges !== false && client.getServerCapabilities()?.tools?.listChanged) {
      let queue = Promise.resolve();
      // The same handler serves both eras: unsolicited on legacy, on the listen stream on 2026-07-28.
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        // Re-imports run one after another; a failed one leaves the previous tools in place.
        queue = queue.then(() => load('refresh')).catch(() => {});
      });
      if (connection.era === 'modern') subscription = await client.listen({ toolsListChanged: true });
    }
  } catch (error) {
    await connection.close().catch(() => {});
    throw error;
  }
  const handle: McpImport = {
    server: label,
    serverInfo,
    tools: () => current,
    skipped: () => skipped,
    undescribed: () => undescribed,
    droppedDefaults: () => droppedDefaults,
    client,
    era: connection.era,
    protocolVersion: connection.protocolVersion,
    prior: connection.prior,
    freshUntil: () => freshUntil,
    refresh: (refreshOptions) => load(refreshOptions?.force ? 'refresh' : 'use'),
    close() {
      closing ??= (async () => {
        registry.disown(handle);
        for (const tool of current) registry.unregister(tool.name);
        current = [];
        await subscription?.close().catch(() => {});
        await closeQuietly(connection);
      })();
      return closing;
    },
  };
  // The registry closes the connection when it closes (released at once if it closed meanwhile).
  return registry.own(handle);
}

/** A registry call running on the server, for {@link UpstreamElicitation.call}. */
interface UpstreamCall {
  readonly tool: string;
  readonly remoteName: string;
  readonly state: unknown;
}

/**
 * All of the server's tools, through the SDK's aggregating `listTools` (which keeps the list for the
 * server's `ttlMs` and indexes it for output validation), with duplicates and the overflow reported.
 *
 * @example
 * const { tools, skipped, ttlMs } = await listServerTools(client, 1_000, 'refresh');
 */
export async function listServerTools(
  client: McpClient,
  maxTools: number,
  cacheMode: 'use' | 'refresh',
): Promise<{ tools: McpTool[]; skipped: SkippedTool[]; ttlMs: number }> {
  let result: Awaited<ReturnType<McpClient['listTools']>>;
  try {
    result = await client.listTools(undefined, { cacheMode });
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'LIST_PAGINATION_EXCEEDED') {
      throw new ToolDefinitionError(
        'invalid_option',
        `The MCP server kept returning a nextCursor after ${MAX_LIST_PAGES} pages of tools/list; its pagination looks broken.`,
        undefined,
        { cause: error },
      );
    }
    throw error;
  }
  const tools: McpTool[] = [];
  const skipped: SkippedTool[] = [];
  const seen = new Set<string>();
  for (const tool of result.tools) {
    if (seen.has(tool.name)) {
      skipped.push({
        remoteName: tool.name,
        code: 'duplicate_on_server',
        message: `The server lists "${tool.name}" more than once; the first one was imported.`,
      });
      continue;
    }
    if (tools.length >= maxTools) {
      skipped.push({
        remoteName: tool.name,
        code: 'limit_reached',
        message: `The server offers more than ${maxTools} tools; raise maxTools to import the rest.`,
      });
      continue;
    }
    seen.add(tool.name);
    tools.push(tool);
  }
  // `ttlMs` is on the wire (2026-07-28) but not in the SDK's type; absent or negative is "stale at once".
  const ttl = (result as { ttlMs?: unknown }).ttlMs;
  const ttlMs = typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? ttl : 0;
  return { tools, skipped, ttlMs };
}

async function closeQuietly(connection: McpConnection): Promise<void> {
  try {
    await connection.close();
  } catch {
    // Closing a connection that already ended is not an error.
  }
}
