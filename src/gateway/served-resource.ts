import type { CompleteResult } from '@modelcontextprotocol/client';
import { defineResource, type Resource } from '../define/define-resource.js';
import type { ResourceContents } from '../define/mcp-content.js';
import type { Completer } from '../define/read-context.js';
import { UriTemplate } from '../define/uri-template.js';
import { ToolError } from '../dispatch/tool-error.js';
import { principalOf } from '../dispatch/tool-identity.js';
import { mcpContextOf } from '../mcp/request-context.js';
import type { PlannedItem, WithheldItem } from './plan-catalog.js';
import type { TeamUpstreams } from './team-upstreams.js';
import type { Upstream } from './upstream.js';

/** What a served resource or prompt needs from the running gateway. */
export interface ServedCatalogContext {
  /** The server as it is now (a config change may have restarted it); undefined when disabled. */
  readonly upstream: (server: string) => Upstream | undefined;
  /** Where the clients' subscriptions are routed. */
  readonly updates: ResourceUpdates;
  /** A team gateway's per-person upstreams: what they serve is not read as the gateway's own user. */
  readonly team?: TeamUpstreams | undefined;
}

/** Where a withheld resource's read or prompt's get ends: the type its refusal carries. */
export const ITEM_WITHHELD = 'definition_withheld';

/**
 * The registry resource for a planned resource or template: listed as the server lists it (its URI
 * or template as it is: it belongs to its server), read, subscribed to and completed on the server as
 * it is at the time, its contents passed through untouched. A withheld one is a stand-in with neutral
 * text whose every read is refused.
 *
 * @example
 * registry.registerResource(servedResource(planned, context));
 */
export function servedResource(
  planned: PlannedItem<'resources'> | PlannedItem<'templates'>,
  context: ServedCatalogContext,
): Resource {
  const { server } = planned;
  const meta = { source: `mcp:${server}`, server, gateway: true, remoteKey: planned.key };
  const where =
    planned.kind === 'resources'
      ? { uri: (planned as PlannedItem<'resources'>).item.uri }
      : { template: (planned as PlannedItem<'templates'>).item.uriTemplate };
  if (planned.withheld) {
    const withheld = planned.withheld;
    return defineResource({
      name: planned.item.name,
      ...where,
      description: WITHHELD_DESCRIPTION,
      meta: { ...meta, withheld: true, withheldItem: withheld, unlisted: true },
      read: () => {
        throw withheldError(withheld);
      },
    });
  }
  const { item } = planned;
  const template =
    planned.kind === 'templates' ? UriTemplate.parse(planned.key, planned.item.name) : undefined;
  return defineResource({
    name: item.name,
    ...where,
    ...(typeof item.title === 'string' ? { title: item.title } : {}),
    description:
      item.description?.trim() ||
      `${item.title ?? item.name} (the MCP server "${server}" gives no description).`,
    ...(typeof item.mimeType === 'string' ? { mimeType: item.mimeType } : {}),
    ...(planned.kind === 'resources' && typeof planned.item.size === 'number'
      ? { size: planned.item.size }
      : {}),
    meta,
    ...(template && template.variables.length > 0
      ? {
          complete: completers(template, (variable, value, others, { signal, state }) =>
            upstreamOf(context, server, state).complete(
              {
                ref: { type: 'ref/resource', uri: planned.key },
                argument: { name: variable, value },
                context: { arguments: others },
              },
              signal,
            ),
          ),
        }
      : {}),
    // The gate compared every spelling a server might read this URI as (the policy's uriSpellings),
    // so the URI is relayed as the client sent it.
    read: async (uri, _variables, readContext) => {
      const result = await upstreamOf(context, server, readContext.state).readResource(
        uri,
        readContext.signal,
        mcpContextOf(readContext.state),
      );
      return result.contents as readonly ResourceContents[];
    },
    subscribe: async (uri, updated, readContext) => {
      upstreamOf(context, server, readContext.state);
      return context.updates.listen(server, uri, updated, context.upstream);
    },
  });
}

/** The description a withheld resource or prompt stands in with (it is not listed): its own text never reaches the model. */
export const WITHHELD_DESCRIPTION =
  'Withheld by the gateway until an operator accepts its current definition. Reads and gets are refused.';

/** The refusal of a withheld item's read or get: what changed, and what the operator does. */
export function withheldError(withheld: WithheldItem): ToolError {
  const what = `the ${withheld.kind === 'prompts' ? 'prompt' : withheld.kind === 'resources' ? 'resource' : 'resource template'} "${withheld.key}" of the MCP server "${withheld.server}"`;
  const why =
    withheld.reason === 'changed'
      ? `The text of ${what} changed since it was pinned`
      : withheld.reason === 'hidden-instructions'
        ? `The text of ${what} carries instructions aimed at the model`
        : `${what[0]?.toUpperCase()}${what.slice(1)} is new, and new definitions are withheld until accepted`;
  return new ToolError(
    `${why}, so the gateway withholds it until an operator reviews it and accepts it with "toolpact gateway pin". Do not retry; tell the user.`,
    {
      type: ITEM_WITHHELD,
      details: { server: withheld.server, kind: withheld.kind, key: withheld.key, reason: withheld.reason },
    },
  );
}

/**
 * The running upstream of a server for a request made with `state`, or the refusal a disabled one
 * answers. An authenticated caller of a team gateway is refused a server that signs in as each person:
 * the gateway's own connection to it is another person's, and only tool calls go through each person's.
 */
export function upstreamOf(
  context: Pick<ServedCatalogContext, 'upstream' | 'team'>,
  server: string,
  state?: unknown,
): Upstream {
  if (principalOf(state) && context.team?.pool(server)) {
    throw new ToolError(
      `The MCP server "${server}" signs in as each person, and the gateway relays only its tools that way; its resources, prompts and completions are not served to a signed-in caller. Use its tools instead.`,
      { type: 'mcp_server_unavailable', details: { server } },
    );
  }
  const upstream = context.upstream(server);
  if (!upstream) {
    throw new ToolError(`The MCP server "${server}" is disabled in the gateway's config.`, {
      type: 'mcp_server_unavailable',
      details: { server },
    });
  }
  return upstream;
}

/** A completer for each variable, asking the server; a server that completes nothing answers no values. */
export function completers(
  template: { readonly variables: readonly string[] },
  ask: (
    variable: string,
    value: string,
    others: Record<string, string>,
    completion: { readonly signal: AbortSignal; readonly state: unknown },
  ) => Promise<CompleteResult>,
): Record<string, Completer> {
  const complete =
    (variable: string): Completer =>
    async (value, completion) => {
      try {
        const result = await ask(variable, value, { ...completion.arguments }, completion);
        return result.completion.values;
      } catch (error) {
        // -32601: the server offers no completions.
        if ((error as { code?: unknown } | null)?.code === -32601) return [];
        throw error;
      }
    };
  return Object.fromEntries(template.variables.map((variable) => [variable, complete(variable)]));
}

/**
 * The clients' subscriptions to upstream resources, by server and URI: the first subscriber of a URI
 * subscribes the gateway on the server, each update reaches every subscriber of that URI (and only
 * those), and the last one to leave unsubscribes the gateway.
 *
 * @example
 * const updates = new ResourceUpdates();
 * const stop = await updates.listen('everything', 'demo://a', () => send(uri), (name) => servers.upstream(name));
 */
export class ResourceUpdates {
  readonly #listeners = new Map<string, Set<() => void>>();

  /** Adds a subscriber; answers the function that removes it. */
  async listen(
    server: string,
    uri: string,
    updated: () => void,
    upstream: (server: string) => Upstream | undefined,
  ): Promise<() => void> {
    const key = JSON.stringify([server, uri]);
    const listeners = this.#listeners.get(key) ?? new Set();
    this.#listeners.set(key, listeners);
    // A function of its own per subscriber, so that one client subscribing twice is counted twice.
    const listener = () => updated();
    listeners.add(listener);
    try {
      await upstreamOf({ upstream }, server).subscribe(uri);
    } catch (error) {
      listeners.delete(listener);
      throw error;
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      listeners.delete(listener);
      if (listeners.size === 0) this.#listeners.delete(key);
      void upstream(server)
        ?.unsubscribe(uri)
        .catch(() => {});
    };
  }

  /** A server said a resource changed: every subscriber of it is told. */
  updated(server: string, uri: string): void {
    for (const listener of this.#listeners.get(JSON.stringify([server, uri])) ?? []) listener();
  }
}
