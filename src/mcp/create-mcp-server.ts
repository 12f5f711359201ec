import {
  type CallToolResult,
  type ListToolsResult,
  type Tool as McpTool,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type ContentResult, sentContentOf } from '../content/carried.js';
import type { JsonSchema, ToolContract } from '../contract/index.js';
import { MCP_CONTEXT } from '../dispatch/context-brand.js';
import type { Envelope } from '../dispatch/envelope.js';
import { invalidResultFailure, resultTooLargeFailure, unknownToolFailure } from '../dispatch/errors.js';
import { principalFromAuthInfo } from '../dispatch/principal.js';
import type { JsonValue } from '../dispatch/serialize.js';
import { jsonSchemaResultValidator } from '../dispatch/validate-result.js';
import { ToolDefinitionError } from '../errors/index.js';
import type { Registry } from '../registry/registry.js';
import { toMcpCallResult, toMcpTool } from '../schema/mcp.js';
import { closestNames } from '../util/closest.js';
import { modernCall, offeringRounds } from './modern-call.js';
import { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor } from './pagination.js';
import {
  createRequestContext,
  isModernRequest,
  type LogThreshold,
  type McpRequestContext,
} from './request-context.js';
import type { RequestStateSealer } from './request-state.js';
import { serveOfferings } from './serve-offerings.js';
import { DISCOVER_CACHE_HINT, SERVED_NAME, SERVED_VERSION, servedCapabilities } from './served-identity.js';

export { DISCOVER_TTL_MS } from './served-identity.js';

/** Options of {@link createMcpServer} (and of `serveStdio` / `serveHttp`). */
export interface McpServerOptions {
  /** `serverInfo.name` (default `toolpact`). */
  readonly name?: string;
  /** `serverInfo.version` (default `0.1.0`). */
  readonly version?: string;
  /** `instructions` for the client, sent with the initialize result and with `server/discover`. */
  readonly instructions?: string;
  /** Tools per `tools/list` page (default 100). */
  readonly pageSize?: number;
  /**
   * The `state` each call runs with, made from the MCP request context. By default the context itself;
   * return `{ ...yours, mcp: context }` to keep it reachable by `mcpContextOf` and the elicitation approver.
   */
  readonly state?: (context: McpRequestContext) => unknown;
  /**
   * State `"$schema": "https://json-schema.org/draft/2020-12/schema"` in every `inputSchema` and
   * `outputSchema` (default false: revision 2025-11-25 reads a schema without it as 2020-12).
   */
  readonly dialect?: boolean;
  /**
   * The tools `tools/list` shows, when not all of them: e.g. `withToolSearch(registry)`, which lists the
   * always-loaded tools and `search_tools`, and changes (so `list_changed` is sent) when a search loads
   * more. `tools/call` still reaches every tool of the registry. A revision 2026-07-28 request is
   * served the listing's `stateless` view when it has one (a list cannot vary per client there).
   */
  readonly listing?: ToolListing;
}

/** A changing selection of a registry's tools, for {@link McpServerOptions.listing}. */
export interface ToolListing {
  schemas(): readonly ToolContract[];
  onChange(listener: () => void): () => void;
  /**
   * What a revision 2026-07-28 request is listed, and how its calls are routed, instead of this listing
   * (`withToolSearch`'s `stateless`: the always-loaded tools, `search_tools` and `call_tool`).
   */
  readonly stateless?: ToolListing;
  /**
   * The tool a call runs and its arguments (`call_tool` runs the tool it names, which the gate, the
   * approvals and the audit then see), or the failure to answer; without it a call runs as named.
   */
  route?(name: string, args: unknown): ListingRoute;
  /** A tool listed with every annotation hint spelled out, worst case (`call_tool`, which can reach any tool). */
  readonly callTool?: ToolContract;
}

/** What {@link ToolListing.route} answers. */
export type ListingRoute =
  | { readonly name: string; readonly arguments: unknown }
  | { readonly failure: Envelope };

/** How the transport limits what the server can offer; set by `serveStdio` / `serveHttp`. */
export interface McpConnectionTraits {
  /** The connection can carry a notification nobody asked for (false for stateless HTTP). */
  readonly listChanged: boolean;
  /** The client's answers to our requests (elicitation, sampling) can reach this server instance. */
  readonly serverRequests: boolean;
}

/**
 * How long a revision 2026-07-28 client may reuse a `tools/list` page without asking again. A
 * registry changes when a module registers or unregisters a tool or an imported server's tools
 * change, which is rare and announced (`notifications/tools/list_changed`, which also evicts a
 * cached list); one minute bounds what a client that does not listen can miss. With a `listing`
 * (`serve --search`) the list changes on every search that loads a tool, so it is never reused.
 */
export const TOOLS_LIST_TTL_MS = 60_000;

/**
 * A low-level MCP `Server` that serves a registry: `tools/list` (paginated, in registration order),
 * `tools/call` through `registry.call` (so the registry's gate and approver apply to every call),
 * `notifications/tools/list_changed` when the registry changes, cancellation through the call's
 * AbortSignal, and logging. Connected to a transport by hand it serves the 2025 (legacy) era;
 * `serveStdio` and `serveHttp` serve revision 2026-07-28 as well, from the same handlers.
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
  const server = buildMcpServer(registry, options, traits);
  if (traits.listChanged) {
    const unsubscribe = followChanges(options.listing ?? registry, () => {
      if (server.transport) server.sendToolListChanged().catch(() => {});
    });
    const stopOfferings = followOfferingChanges(registry, server);
    const previous = server.onclose;
    server.onclose = () => {
      unsubscribe();
      stopOfferings();
      previous?.();
    };
  }
  return server;
}

/**
 * Sends `notifications/resources/list_changed` or `notifications/prompts/list_changed` on a server
 * when the registry's resources or prompts change, once per burst of the same tick; answers the
 * unsubscribe.
 */
function followOfferingChanges(
  registry: Registry,
  server: Pick<Server, 'transport' | 'sendResourceListChanged' | 'sendPromptListChanged'>,
): () => void {
  return followKinds(registry, (kind) => {
    if (!server.transport) return;
    const sent = kind === 'resources' ? server.sendResourceListChanged() : server.sendPromptListChanged();
    sent.catch(() => {});
  });
}

/**
 * Calls `send` once per kind (`resources`, `prompts`) for a burst of changes in the same tick;
 * answers the unsubscribe. Tools are followed by {@link followChanges}.
 *
 * @example
 * const stop = followKinds(registry, (kind) => kind === 'prompts' && handler.notify.promptsChanged());
 */
export function followKinds(registry: Registry, send: (kind: 'resources' | 'prompts') => void): () => void {
  const pending = new Set<'resources' | 'prompts'>();
  return registry.onListChange((kind) => {
    if (kind === 'tools' || pending.has(kind)) return;
    pending.add(kind);
    queueMicrotask(() => {
      pending.delete(kind);
      send(kind);
    });
  });
}

/**
 * Calls `send` once for a burst of changes to the listing in the same tick; answers the unsubscribe.
 *
 * @example
 * const stop = followChanges(registry, () => handler.notify.toolsChanged());
 */
export function followChanges(listing: Pick<ToolListing, 'onChange'>, send: () => void): () => void {
  let pending = false;
  return listing.onChange(() => {
    if (pending) return;
    pending = true;
    queueMicrotask(() => {
      pending = false;
      send();
    });
  });
}

/**
 * The `tools/list` page size the options give, or a {@link ToolDefinitionError}. The serving entries
 * call it when they start, since they build their servers later (per request, or on the first message).
 */
export function pageSizeOf(options: McpServerOptions): number {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new ToolDefinitionError(
      'invalid_option',
      `pageSize is ${String(options.pageSize)}; give a whole number of tools per page, at least 1.`,
    );
  }
  return pageSize;
}

/**
 * The server of {@link createMcpServer} without the change subscription, for entries that route
 * change notifications themselves (a fresh instance per HTTP request, the pinned stdio instance).
 *
 * @example
 * const handler = createMcpHandler(() => buildMcpServer(registry, options, traits), { legacy: 'reject' });
 */
export function buildMcpServer(
  registry: Registry,
  options: McpServerOptions,
  traits: McpConnectionTraits,
  approvals?: RequestStateSealer,
): Server {
  const pageSize = pageSizeOf(options);
  const offeringsHint = {
    ttlMs: TOOLS_LIST_TTL_MS,
    cacheScope: registry.listedPerCaller ? 'private' : 'public',
  } as const;
  const server = new Server(
    { name: options.name ?? SERVED_NAME, version: options.version ?? SERVED_VERSION },
    {
      capabilities: servedCapabilities(traits.listChanged),
      ...(options.instructions ? { instructions: options.instructions } : {}),
      // Sent on revision 2026-07-28 answers only. The list is the same for every client (public),
      // unless the policy lists each caller the tools it may call: then a cache must not be shared
      // across authorization contexts (private).
      cacheHints: {
        // A listing that routes calls (a stateless view) changes only with the registry; one that a
        // search loads into changes on every search, so it is never reused.
        'tools/list': {
          ttlMs: options.listing && !modernListing(options.listing).route ? 0 : TOOLS_LIST_TTL_MS,
          cacheScope: registry.listedPerCaller ? 'private' : 'public',
        },
        // Resources and prompts change as tools do (registered or relayed, and announced).
        'resources/list': offeringsHint,
        'resources/templates/list': offeringsHint,
        'prompts/list': offeringsHint,
        // A read answers what the resource holds now, for this caller (the gate may differ by caller).
        'resources/read': { ttlMs: 0, cacheScope: 'private' },
        'server/discover': DISCOVER_CACHE_HINT,
      },
    },
  );
  // Revision 2026-07-28 has no logging/setLevel (the level rides each request's _meta); the SDK
  // answers it -32601 there, so this threshold is only ever set by a legacy connection.
  const threshold: LogThreshold = { level: undefined };

  // The `state` a call, a read or a get runs with.
  const stateOf = (context: McpRequestContext): unknown => {
    if (!options.state) return context;
    try {
      return options.state(context);
    } catch {
      // A defect in the server's own state function: say nothing of it to the client.
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'The server could not prepare this request.');
    }
  };
  const releaseOfferings = serveOfferings(server, registry, {
    pageSize,
    stateOf: (ctx) => stateOf(createRequestContext(server, ctx, threshold, traits.serverRequests)),
    subscriptions: traits.listChanged,
    // A prompt or a resource asks the client on revision 2026-07-28 as a tool does: in input-required rounds.
    rounds: (ctx, kind, name, args, run) => {
      const context = createRequestContext(server, ctx, threshold, traits.serverRequests);
      if (!approvals || !isModernRequest(ctx)) return run(stateOf(context));
      return offeringRounds(kind, name, args, ctx, context, approvals, () => run(stateOf(context)));
    },
  });
  const previousClose = server.onclose;
  server.onclose = () => {
    releaseOfferings();
    previousClose?.();
  };

  server.setRequestHandler('logging/setLevel', (request) => {
    threshold.level = request.params.level;
    return {};
  });

  server.setRequestHandler('tools/list', (request, ctx): ListToolsResult => {
    const listing =
      options.listing && isModernRequest(ctx) ? modernListing(options.listing) : options.listing;
    const all = (listing ?? registry).schemas();
    // Each caller is listed the tools it may call (tools the registry does not hold, such as
    // `call_tool`, are the listing's own and always listed).
    const caller = registry.listedPerCaller ? listingContext(ctx) : undefined;
    const contracts = caller
      ? all.filter((contract) => !registry.has(contract.name) || registry.visible(contract.name, caller))
      : all;
    const cursor = request.params?.cursor;
    const offset = cursor === undefined ? 0 : decodeCursor(cursor);
    if (offset === undefined || offset > contracts.length) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `The cursor ${JSON.stringify(cursor?.slice(0, 64))} is not one this server gave out (or the tool list has since shrunk). List again without a cursor.`,
      );
    }
    const end = Math.min(offset + pageSize, contracts.length);
    const tools = contracts
      .slice(offset, end)
      .map((contract) =>
        contract === listing?.callTool
          ? worstCase(publish(contract, options.dialect === true))
          : publish(contract, options.dialect === true),
      );
    return end < contracts.length ? { tools, nextCursor: encodeCursor(end) } : { tools };
  });

  server.setRequestHandler('tools/call', async (received, ctx) => {
    // A listing may route the call (`call_tool` runs the tool it names: everything below sees that tool).
    const routed = routeCall(options.listing, received, isModernRequest(ctx));
    if ('failure' in routed) return toMcpCallResult(routed.failure) as CallToolResult;
    const request = routed.request;
    const name = request.params.name;
    const context = createRequestContext(server, ctx, threshold, traits.serverRequests);
    const state = stateOf(context);
    // A tool this caller may never call is not listed to it, and its call is answered as an unknown
    // tool's would be: nothing says it exists.
    // An unknown name's suggestions, too, name only tools the caller may see.
    const hidden = registry.listedPerCaller && !registry.visible(name, context);
    const tool = hidden ? undefined : registry.get(name);
    // An omitted `arguments` is an empty object: all-optional tools must be callable without one.
    const args = request.params.arguments ?? {};
    const base = { signal: ctx.mcpReq.signal, callId: String(ctx.mcpReq.id), state };
    const outcome = hidden
      ? { envelope: unknownToolFailure(name, closestNames(name, visibleNames(registry, context))) }
      : isModernRequest(ctx)
        ? await modernCall(registry, name, args, base, ctx, context, approvals)
        : { envelope: await registry.call(name, args, base) };
    if ('inputRequired' in outcome) return outcome.inputRequired;
    const envelope = outcome.envelope;
    // Through `call_tool` (a tool that exists) an unknown name is the model's to correct, as a tool result.
    if (!tool && request === received && !envelope.ok && envelope.error.type === 'unknown_tool') {
      // The spec makes an unknown tool a protocol error (-32602); the message still names the closest tools.
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, envelope.error.message, envelope.error);
    }
    // Content blocks (a `toolResult`, an imported tool's upstream result) go out as they are.
    const sent = sentContentOf(envelope);
    if (sent) return sentResult(envelope, sent, tool?.contract);
    return tool ? conformingResult(envelope, tool.contract) : (toMcpCallResult(envelope) as CallToolResult);
  });
  return server;
}

/** The names of the registry's tools the caller of `state` may see. */
function visibleNames(registry: Registry, state: unknown): string[] {
  return registry
    .list()
    .map((tool) => tool.contract.name)
    .filter((name) => registry.visible(name, state));
}

/**
 * What a listing knows of who asks: the principal the transport authenticated, in a context
 * `principalOf` reads (a `tools/list` request has no call context of its own).
 */
function listingContext(ctx: ServerContext): { readonly [MCP_CONTEXT]: true; readonly principal: unknown } {
  return { [MCP_CONTEXT]: true, principal: principalFromAuthInfo(ctx.http?.authInfo) };
}

/** The view a revision 2026-07-28 request is served: the listing's `stateless` one, else the listing. */
function modernListing(listing: ToolListing): ToolListing {
  return listing.stateless ?? listing;
}

/** The request as the listing routes it (the same object when it does not), or a failure to answer. */
function routeCall<R extends { readonly params: { readonly name: string; readonly arguments?: unknown } }>(
  listing: ToolListing | undefined,
  request: R,
  modern: boolean,
): { readonly request: R } | { readonly failure: Envelope } {
  const view = listing && modern ? modernListing(listing) : listing;
  if (!view?.route) return { request };
  const route = view.route(request.params.name, request.params.arguments);
  if ('failure' in route) return route;
  if (route.name === request.params.name && route.arguments === request.params.arguments) return { request };
  return {
    request: { ...request, params: { ...request.params, name: route.name, arguments: route.arguments } },
  };
}

/** A tool's wire form with every annotation hint spelled out as the worst case, for hosts that judge by them. */
function worstCase(tool: McpTool): McpTool {
  return {
    ...tool,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  };
}

/**
 * The `CallToolResult` of an envelope, never with `structuredContent` that breaks the published
 * `outputSchema`: the spec makes conforming results a server's MUST, and the SDK Client throws on a
 * success that has an `outputSchema` but no `structuredContent`. A result cut for length is sent
 * structured when the registry could shorten it as a value that still matches (with the cut marked
 * in the text and in `_meta`); a result that does not match (a registry under `validateResults: 'warn'`
 * or `'off'`, or a cut with no matching form) becomes an error result the model can read.
 */
function conformingResult(envelope: Envelope, contract: ToolContract): CallToolResult {
  const outputSchema = publish(contract, false).outputSchema;
  if (!envelope.ok || !outputSchema) return toMcpCallResult(envelope, contract) as CallToolResult;
  const { content, structuredContent } = toMcpCallResult({ ok: true, result: envelope.result }, contract);
  const conforms =
    structuredContent !== undefined &&
    outputCheck(outputSchema as JsonSchema)(structuredContent as JsonValue).ok;
  if (!conforms) {
    const failure = envelope.truncated
      ? resultTooLargeFailure(contract.name, envelope.truncated.totalChars)
      : invalidResultFailure(contract.name);
    return toMcpCallResult(failure, contract) as CallToolResult;
  }
  if (!envelope.truncated) return { content, structuredContent } as CallToolResult;
  return {
    content: toMcpCallResult(envelope, contract).content,
    structuredContent,
    _meta: { 'toolpact/truncated': { ...envelope.truncated } },
  } as CallToolResult;
}

/**
 * The result a call carried, sent as it is: its blocks, `structuredContent`, `isError` and `_meta`,
 * already kept within the registry's limits. A success of a tool with an `outputSchema` whose
 * structured value is missing (left out for its length) or does not match is answered as the
 * envelope's result instead, which the spec's MUST and the SDK client require.
 */
function sentResult(
  envelope: Envelope,
  sent: ContentResult,
  contract: ToolContract | undefined,
): CallToolResult {
  if (!envelope.ok) return { ...sent, isError: true } as CallToolResult;
  const outputSchema = contract ? publish(contract, false).outputSchema : undefined;
  if (contract && outputSchema) {
    const structured = sent.structuredContent;
    const conforms =
      structured !== undefined && outputCheck(outputSchema as JsonSchema)(structured as JsonValue).ok;
    if (!conforms) return conformingResult(envelope, contract);
  }
  return sent as CallToolResult;
}

const outputChecks = new WeakMap<JsonSchema, ReturnType<typeof jsonSchemaResultValidator>>();

// ajv's draft 2020-12 is the published dialect, so a `$schema` that names it is dropped.
function outputCheck(outputSchema: JsonSchema): ReturnType<typeof jsonSchemaResultValidator> {
  let check = outputChecks.get(outputSchema);
  if (!check) {
    const { $schema: _dialect, ...schema } = outputSchema;
    check = jsonSchemaResultValidator(schema);
    outputChecks.set(outputSchema, check);
  }
  return check;
}

const published = {
  plain: new WeakMap<ToolContract, McpTool>(),
  dialect: new WeakMap<ToolContract, McpTool>(),
};

// Contracts are frozen and replaced (never mutated) on change, so the wire form can be kept per contract.
function publish(contract: ToolContract, dialect: boolean): McpTool {
  const cache = dialect ? published.dialect : published.plain;
  let tool = cache.get(contract);
  if (!tool) {
    tool = toMcpTool(contract, dialect ? { dialect } : {}) as unknown as McpTool;
    cache.set(contract, tool);
  }
  return tool;
}
