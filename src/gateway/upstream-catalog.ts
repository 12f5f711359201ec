import type { McpSubscription } from '@modelcontextprotocol/client';
import type { McpClient, McpConnection } from '../mcp/connect.js';
import type { UpstreamCatalog } from './catalog.js';

/** Most items of one kind taken from a server, as `maxTools` is for tools. */
export const MAX_CATALOG_ITEMS = 1_000;

/**
 * Whether a server declares anything besides tools that the gateway serves: resources or prompts.
 *
 * @example
 * if (hasCatalog(connection.client)) await listCatalog(connection.client);
 */
export function hasCatalog(client: McpClient): boolean {
  const capabilities = client.getServerCapabilities();
  return capabilities?.resources !== undefined || capabilities?.prompts !== undefined;
}

/**
 * Lists every page of a server's resources, resource templates and prompts, each kind only when the
 * server declares it (a server with `resources` but no template handler has no templates), at most
 * {@link MAX_CATALOG_ITEMS} of each.
 *
 * @example
 * const { resources, templates, prompts } = await listCatalog(connection.client);
 */
export async function listCatalog(client: McpClient): Promise<UpstreamCatalog> {
  const capabilities = client.getServerCapabilities();
  const fresh = { cacheMode: 'refresh' } as const;
  const [resources, templates, prompts] = await Promise.all([
    capabilities?.resources
      ? client.listResources(undefined, fresh).then((result) => result.resources)
      : undefined,
    capabilities?.resources
      ? client
          .listResourceTemplates(undefined, fresh)
          .then((result) => result.resourceTemplates)
          .catch((error: unknown) => {
            if (methodNotFound(error)) return [];
            throw error;
          })
      : undefined,
    capabilities?.prompts ? client.listPrompts(undefined, fresh).then((result) => result.prompts) : undefined,
  ]);
  return {
    ...(resources ? { resources: resources.slice(0, MAX_CATALOG_ITEMS) } : {}),
    ...(templates ? { templates: templates.slice(0, MAX_CATALOG_ITEMS) } : {}),
    ...(prompts ? { prompts: prompts.slice(0, MAX_CATALOG_ITEMS) } : {}),
  };
}

function methodNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === -32601;
}

/**
 * The resource URIs the gateway's clients subscribed to on one server, counted: the server is asked
 * once per URI however many clients subscribe, told when the last one leaves, and asked again for
 * every URI when it restarts. A 2025-era server is asked with `resources/subscribe`; a 2026-07-28 one
 * with a `subscriptions/listen` stream per URI.
 *
 * @example
 * const subscriptions = new ResourceSubscriptions();
 * await subscriptions.add('demo://a', connection);
 */
export class ResourceSubscriptions {
  readonly #counts = new Map<string, number>();
  readonly #streams = new Map<string, McpSubscription>();

  /** The URIs subscribed to now. */
  uris(): string[] {
    return [...this.#counts.keys()];
  }

  /** Counts a subscriber; the first one of a URI asks the server (when there is a connection). */
  async add(uri: string, connection: McpConnection | undefined): Promise<void> {
    const count = this.#counts.get(uri) ?? 0;
    this.#counts.set(uri, count + 1);
    if (count === 0 && connection) await this.#subscribe(uri, connection);
  }

  /** Counts a subscriber out; the last one of a URI tells the server. */
  async remove(uri: string, connection: McpConnection | undefined): Promise<void> {
    const count = this.#counts.get(uri) ?? 0;
    if (count === 0) return;
    if (count > 1) {
      this.#counts.set(uri, count - 1);
      return;
    }
    this.#counts.delete(uri);
    const stream = this.#streams.get(uri);
    this.#streams.delete(uri);
    if (stream) await stream.close();
    else if (connection?.era === 'legacy') await connection.client.unsubscribeResource({ uri });
  }

  /** A new connection (a start or a restart): every URI subscribed to is asked for again. */
  async reopen(connection: McpConnection, failed: (uri: string, error: unknown) => void): Promise<void> {
    this.#streams.clear();
    await Promise.all(
      this.uris().map((uri) => this.#subscribe(uri, connection).catch((error) => failed(uri, error))),
    );
  }

  async #subscribe(uri: string, connection: McpConnection): Promise<void> {
    if (connection.era === 'legacy') {
      await connection.client.subscribeResource({ uri });
      return;
    }
    this.#streams.set(uri, await connection.client.listen({ resourceSubscriptions: [uri] }));
  }
}
