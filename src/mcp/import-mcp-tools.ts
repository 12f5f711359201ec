import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type Implementation,
  type Tool as McpTool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema, ToolCategory, ToolContract } from '../contract/index.js';
import { type BrokenDefault, dropBrokenDefaults } from '../define/broken-defaults.js';
import { createTool } from '../define/create-tool.js';
import type { AnyTool } from '../define/tool.js';
import { sanitizeMessage } from '../dispatch/sanitize.js';
import { ToolError } from '../dispatch/tool-error.js';
import { ToolDefinitionError } from '../errors/index.js';
import type { Registry } from '../registry/registry.js';
import { connectMcpServer, type McpConnection, type McpServerTarget } from './connect.js';
import { type PrefixMode, planNames } from './imported-names.js';
import { effectsFromAnnotations, inferCategory } from './infer-category.js';
import { remoteResultValue } from './remote-result.js';
import { upgradeSchema } from './upgrade-schema.js';

/** Options of {@link importMcpTools}. */
export interface ImportMcpOptions {
  /**
   * The server's label: `meta.source` becomes `mcp:<label>` and collisions are prefixed with it.
   * Default: the `serverInfo.name` the server reports.
   */
  readonly name?: string;
  /** `on-collision` (default): prefix only names already taken; `always`; `never`: a collision throws. */
  readonly prefix?: PrefixMode;
  /** Follow the server's `notifications/tools/list_changed` by re-importing (default true). */
  readonly followChanges?: boolean;
  /** Longest wait for one remote call, in milliseconds (default 60,000, the SDK's). */
  readonly requestTimeoutMs?: number;
  /** Most tools taken from one server (default 1,000); the listing stops there. */
  readonly maxTools?: number;
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
  readonly client: Client;
  /** Lists the server's tools again and replaces ours with them. */
  refresh(): Promise<void>;
  /**
   * Removes the tools from the registry, detaches the import from it and closes the connection (a
   * server started over stdio is stopped). Closing again answers the first close's promise.
   */
  close(): Promise<void>;
}

const DEFAULT_MAX_TOOLS = 1_000;
const MAX_PAGES = 100;

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
  const connection = await connectMcpServer(target);
  const client = connection.client;
  const serverInfo = client.getServerVersion();
  const label = options.name ?? serverInfo?.name ?? 'server';
  const source = `mcp:${label}`;
  let current: ImportedTool[] = [];
  let skipped: SkippedTool[] = [];
  let undescribed: string[] = [];
  let droppedDefaults: DroppedDefault[] = [];
  let closing: Promise<void> | undefined;

  const load = async () => {
    const listed = await listAll(client, options.maxTools ?? DEFAULT_MAX_TOOLS);
    // A listing that comes back after close() must not bring the tools back.
    if (closing) return;
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
      const category = inferCategory(remote.name, remote.annotations);
      const description = remote.description?.trim();
      if (!description) nextUndescribed.push(plan.local);
      try {
        const { tool, dropped } = importTool(remote, plan.local, category, {
          client,
          label,
          source,
          description:
            description ||
            `${remote.title ?? remote.annotations?.title ?? remote.name} (the MCP server "${label}" gives no description).`,
          requestTimeoutMs: options.requestTimeoutMs,
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

  try {
    await load();
  } catch (error) {
    await connection.close().catch(() => {});
    throw error;
  }
  if (options.followChanges !== false && client.getServerCapabilities()?.tools?.listChanged) {
    let queue = Promise.resolve();
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      // Re-imports run one after another; a failed one leaves the previous tools in place.
      queue = queue.then(load).catch(() => {});
    });
  }
  const handle: McpImport = {
    server: label,
    serverInfo,
    tools: () => current,
    skipped: () => skipped,
    undescribed: () => undescribed,
    droppedDefaults: () => droppedDefaults,
    client,
    refresh: load,
    close() {
      closing ??= (async () => {
        registry.disown(handle);
        for (const tool of current) registry.unregister(tool.name);
        current = [];
        await closeQuietly(connection);
      })();
      return closing;
    },
  };
  // The registry closes the connection when it closes (released at once if it closed meanwhile).
  return registry.own(handle);
}

interface ToolContext {
  readonly client: Client;
  readonly label: string;
  readonly source: string;
  readonly description: string;
  readonly requestTimeoutMs: number | undefined;
}

function importTool(
  remote: McpTool,
  local: string,
  category: ToolCategory,
  context: ToolContext,
): { tool: AnyTool; dropped: readonly BrokenDefault[] } {
  // A server's broken default would be filled in and then refuse a call that rightly left the field out.
  const input = dropBrokenDefaults(withObjectType(upgradeSchema(remote.inputSchema as JsonSchema)));
  const output = remote.outputSchema
    ? dropBrokenDefaults(upgradeSchema(remote.outputSchema as JsonSchema), '$.returns.schema')
    : undefined;
  const title = remote.title ?? remote.annotations?.title;
  const contract: Omit<ToolContract, 'effects'> & { effects: ToolContract['effects'] } = {
    name: local,
    ...(title ? { title } : {}),
    description: context.description,
    parameters: input.schema,
    ...(output ? { returns: { schema: output.schema } } : {}),
    category,
    effects: effectsFromAnnotations(remote.annotations),
  };
  const remoteName = remote.name;
  const tool = createTool(contract, {
    meta: {
      source: context.source,
      server: context.label,
      remoteName,
      inferredCategory: true,
      ...(remote.annotations ? { annotations: remote.annotations } : {}),
    },
    async execute(args, { signal }) {
      let result: Awaited<ReturnType<Client['callTool']>>;
      try {
        result = await context.client.callTool({ name: remoteName, arguments: args }, undefined, {
          signal,
          ...(context.requestTimeoutMs ? { timeout: context.requestTimeoutMs } : {}),
        });
      } catch (error) {
        if (signal.aborted) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        throw new ToolError(
          `The MCP server "${context.label}" did not complete the call: ${sanitizeMessage(reason)}`,
          {
            type: 'mcp_protocol_error',
            details: { server: context.label },
          },
        );
      }
      return remoteResultValue(result as Parameters<typeof remoteResultValue>[0], context.label);
    },
  });
  return { tool, dropped: [...input.dropped, ...(output?.dropped ?? [])] };
}

function withObjectType(schema: JsonSchema): JsonSchema {
  return schema.type === undefined ? { type: 'object', ...schema } : schema;
}

async function listAll(
  client: Client,
  maxTools: number,
): Promise<{ tools: McpTool[]; skipped: SkippedTool[] }> {
  const tools: McpTool[] = [];
  const skipped: SkippedTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor });
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
    cursor = result.nextCursor;
    if (cursor === undefined) return { tools, skipped };
  }
  throw new ToolDefinitionError(
    'invalid_option',
    `The MCP server kept returning a nextCursor after ${MAX_PAGES} pages of tools/list; its pagination looks broken.`,
  );
}

async function closeQuietly(connection: McpConnection): Promise<void> {
  try {
    await connection.close();
  } catch {
    // Closing a connection that already ended is not an error.
  }
}
