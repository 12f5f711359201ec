import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { McpClientChannel } from '../mcp/client-channel.js';
import type { SkippedTool } from '../mcp/import-mcp-tools.js';
import type { UpstreamCatalog } from './catalog.js';
import { type ClientRequestsContext, clientRequestHandlers } from './client-requests.js';
import type { GatewayConfig, GatewayServer } from './config/types.js';
import { lockedServer } from './lock.js';
import type { LockKeeper } from './lock-keeper.js';
import type { CatalogServerPlan } from './plan-catalog.js';
import type { ServerPlan } from './plan-tools.js';
import type { FailedItem } from './served-catalog.js';
import { type RestartPolicy, Upstream, type UpstreamCallWrapper } from './upstream.js';
import { UpstreamCallers } from './upstream-callers.js';
import { sameProcess, type UpstreamTargetContext, upstreamAuth, upstreamTarget } from './upstream-target.js';

/** One server of the config, as the gateway runs it. */
export interface ServerEntry {
  spec: GatewayServer;
  upstream: Upstream | undefined;
  /** Tools the import skipped at the last listing (a bad schema, a duplicate). */
  imported: readonly SkippedTool[];
  /** What the last plan said of the server. */
  plan: ServerPlan;
  /** Tools that could not be built at the last rebuild, with why. */
  failed: SkippedTool[];
  /** What the last plan said of its resources, templates and prompts. */
  catalog: CatalogServerPlan;
  /** Resources, templates and prompts that could not be registered at the last rebuild. */
  failedItems: FailedItem[];
  /** Changes already reported, so a re-listing does not repeat them. */
  readonly reported: Set<string>;
}

/** Options of {@link ServerSet}. */
export interface ServerSetOptions {
  readonly keeper: LockKeeper;
  readonly target: UpstreamTargetContext;
  readonly restart?: Partial<RestartPolicy>;
  readonly probeTimeoutMs: number;
  /** How long a call to a server still starting for the first time waits for it. */
  readonly startTimeoutMs?: number;
  readonly wrapUpstreamCall?: UpstreamCallWrapper;
  /** Start no server until {@link ServerSet.begin} (default: each starts as it is applied). */
  readonly deferStart?: boolean;
  /** `toolpact.newTools` of the config in force. */
  readonly newTools: () => 'allow' | 'withhold';
  /**
   * What a server asks of the client while it serves a call (sampling, elicitation, roots, its logs)
   * goes to that call's client through this gate and these sinks; without it, nothing goes back.
   */
  readonly clientRequests?: Omit<ClientRequestsContext, 'spec' | 'callers' | 'oneClient'>;
  /** A server listed its tools (or a config change was applied): the served tools are planned again. */
  readonly changed: () => void;
  /** A server said a resource the gateway subscribed to changed. */
  readonly resourceUpdated?: (server: string, uri: string) => void;
  readonly log: (line: string) => void;
}

const NO_PLAN: ServerPlan = {
  withheld: [],
  hidden: [],
  removed: [],
  skipped: [],
  unknownOverrides: [],
  collisions: [],
};

const NO_CATALOG_PLAN: CatalogServerPlan = { withheld: [], shadowed: [], collisions: [], removed: [] };

/**
 * The gateway's servers, in config order: started in parallel, each an {@link Upstream} that pins its
 * listings in the lock; a saved config stops removed servers, restarts changed ones (and ones marked
 * down) and starts added ones.
 *
 * @example
 * const servers = new ServerSet({ keeper, target: { configFile }, probeTimeoutMs: 5_000, newTools, changed, log });
 * const started = await servers.apply(config, config);
 */
export class ServerSet {
  readonly #options: ServerSetOptions;
  readonly #entries = new Map<string, ServerEntry>();
  #begun: boolean;
  #oneClient: McpClientChannel | undefined;

  constructor(options: ServerSetOptions) {
    this.#options = options;
    this.#begun = options.deferStart !== true;
  }

  /** Starts the servers held back by `deferStart` (once); answers their upstreams. */
  begin(): Upstream[] {
    if (this.#begun) return [];
    this.#begun = true;
    const upstreams = this.entries().flatMap((entry) => (entry.upstream ? [entry.upstream] : []));
    for (const upstream of upstreams) upstream.start();
    return upstreams;
  }

  /** Over stdio, the one client: what a server asks outside any call goes to it. */
  clientConnected(client: McpClientChannel): void {
    this.#oneClient = client;
  }

  /** Every server of the config in force, in config order. */
  entries(): ServerEntry[] {
    return [...this.#entries.values()];
  }

  /** The running upstream of a server, or undefined (disabled, or not in the config). */
  upstream(server: string): Upstream | undefined {
    return this.#entries.get(server)?.upstream;
  }

  /** What each server lists now; undefined for one that has not listed yet. */
  listings(): Map<string, readonly McpTool[] | undefined> {
    return new Map(this.entries().map((entry) => [entry.spec.name, entry.upstream?.tools]));
  }

  /** What each server lists besides tools now; undefined for one that has not listed any. */
  catalogs(): Map<string, UpstreamCatalog | undefined> {
    return new Map(this.entries().map((entry) => [entry.spec.name, entry.upstream?.catalog]));
  }

  /** Applies a config (`previous` the one in force, the same at the first start); answers the upstreams started. */
  async apply(previous: GatewayConfig, next: GatewayConfig): Promise<Upstream[]> {
    const { log } = this.#options;
    const stopping: Promise<void>[] = [];
    for (const [name, entry] of this.#entries) {
      const spec = next.servers.find((server) => server.name === name);
      if (!spec) {
        log(`${name}: removed from the config; stopping it.`);
        this.#entries.delete(name);
        stopping.push(entry.upstream?.close() ?? Promise.resolve());
        continue;
      }
      // A server marked down gets a fresh start at every save, whatever changed.
      if (sameProcess(entry.spec, spec) && entry.upstream?.state !== 'down') {
        entry.spec = spec;
        continue;
      }
      log(
        `${name}: ${entry.upstream?.state === 'down' ? 'down; the config was saved, so it starts again' : 'changed in the config; restarting it'}.`,
      );
      this.#entries.delete(name);
      stopping.push(entry.upstream?.close() ?? Promise.resolve());
    }
    await Promise.all(stopping);
    // Keep the config's order.
    const kept = new Map(this.#entries);
    this.#entries.clear();
    const started: Upstream[] = [];
    for (const spec of next.servers) {
      const entry = kept.get(spec.name);
      if (entry) {
        this.#entries.set(spec.name, entry);
        continue;
      }
      if (previous !== next && !previous.servers.some((server) => server.name === spec.name)) {
        log(`${spec.name}: added to the config; starting it.`);
      }
      const fresh = this.#start(spec);
      if (fresh.upstream) started.push(fresh.upstream);
    }
    this.#options.changed();
    return started;
  }

  /** The token store changed: each server that needs a sign-in tries again if it holds a new one. */
  async signInsChanged(): Promise<void> {
    await Promise.all(this.entries().map((entry) => entry.upstream?.retrySignIn()));
  }

  /** Stops every server. */
  async close(): Promise<void> {
    await Promise.all(this.entries().map((entry) => entry.upstream?.close()));
  }

  #start(spec: GatewayServer): ServerEntry {
    const { keeper, log } = this.#options;
    const entry: ServerEntry = {
      spec,
      upstream: undefined,
      imported: [],
      plan: NO_PLAN,
      failed: [],
      catalog: NO_CATALOG_PLAN,
      failedItems: [],
      reported: new Set(),
    };
    this.#entries.set(spec.name, entry);
    if (!spec.enabled) return entry;
    const locked = lockedServer(keeper.lock, spec.name);
    const auth = upstreamAuth(spec, this.#options.target);
    const callers = new UpstreamCallers();
    const back = this.#options.clientRequests;
    const upstream = new Upstream({
      ...(back
        ? {
            callers,
            ...clientRequestHandlers(spec.name, {
              spec: () => entry.spec,
              callers,
              oneClient: () => this.#oneClient,
              ...back,
            }),
          }
        : {}),
      name: spec.name,
      target: upstreamTarget(spec, this.#options.target),
      ...(auth ? { auth } : {}),
      ...(locked?.prior ? { prior: locked.prior as never } : {}),
      ...(this.#options.restart ? { restart: this.#options.restart } : {}),
      probeTimeoutMs: this.#options.probeTimeoutMs,
      ...(this.#options.startTimeoutMs !== undefined ? { startTimeoutMs: this.#options.startTimeoutMs } : {}),
      ...(this.#options.wrapUpstreamCall ? { wrapCall: this.#options.wrapUpstreamCall } : {}),
      ...(spec.timeoutMs ? { requestTimeoutMs: spec.timeoutMs + 1_000 } : {}),
      log,
      onTools: (_tools, skipped) => {
        entry.imported = skipped;
        const listed = entry.upstream?.tools;
        if (listed) keeper.pinListed(spec.name, listed, this.#options.newTools(), entry.upstream?.prior);
        this.#options.changed();
      },
      onCatalog: (catalog) => {
        keeper.pinCatalogListed(spec.name, catalog, this.#options.newTools());
        this.#options.changed();
      },
      onResourceUpdated: (uri) => this.#options.resourceUpdated?.(spec.name, uri),
      onState: (state) => {
        if (state === 'up') keeper.pinEra(spec.name, entry.upstream?.prior);
      },
    });
    entry.upstream = upstream;
    if (this.#begun) upstream.start();
    return entry;
  }
}
