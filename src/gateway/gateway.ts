import { basename, dirname, join } from 'node:path';
import type { CallRecord } from '../dispatch/call.js';
import type { McpClientChannel } from '../mcp/client-channel.js';
import type { ToolListing } from '../mcp/create-mcp-server.js';
import type { HttpRoute } from '../mcp/http-route.js';
import type { SkippedTool } from '../mcp/import-mcp-tools.js';
import { defaultTokenFile, fileTokenStore, type McpTokenStore } from '../mcp/oauth/token-store.js';
import { Registry, type RegistryOptions } from '../registry/registry.js';
import type { GatewayConfig } from './config/index.js';
import { watchConfig } from './config-watcher.js';
import {
  type GatewayEventSinks,
  reportCatalog,
  reportCollision,
  reportUnknownOverrides,
  reportWithheld,
} from './gateway-events.js';
import { type GatewayLock, lockedListing, lockedServer } from './lock.js';
import { LockKeeper, type ServedName } from './lock-keeper.js';
import { operationGate } from './operation-gate.js';
import { type CatalogPlan, planCatalog, type ShadowedItem, type WithheldItem } from './plan-catalog.js';
import { type NameCollision, planTools, type ToolPlan, type WithheldTool } from './plan-tools.js';
import { type FailedItem, ServedCatalog } from './served-catalog.js';
import { ServedRegistry } from './served-registry.js';
import { servedTool, withheldPassGate } from './served-tool.js';
import { type ServerEntry, ServerSet } from './server-set.js';
import { type TeamGatewayOptions, type TeamUpstreams, teamUpstreams } from './team-upstreams.js';
import type { RestartPolicy, UpstreamCallWrapper, UpstreamStatus } from './upstream.js';
import type { UpstreamTargetContext } from './upstream-target.js';

export type { NameCollision, WithheldTool } from './plan-tools.js';
export { DEFINITION_CHANGED } from './served-tool.js';

/** Options of {@link startGateway}. */
export interface GatewayOptions {
  /** The gateway's configuration (see `readGatewayConfig`). */
  readonly config: GatewayConfig;
  /** The lock file of pinned definitions. Default: the config's `toolpact.lock`, else `<config>.lock.json` beside it. */
  readonly lockFile?: string;
  /**
   * Whether definitions are pinned as servers are first seen (`first-start`, the default: a server
   * absent from the lock has every tool pinned, and allowed new tools are added) or the lock is only
   * read (`read-only`, as `gateway check` does).
   */
  readonly pinning?: 'first-start' | 'read-only';
  /** The gate (a policy's `registryOptions`), the approver and the other options of the gateway's registry. */
  readonly registry?: RegistryOptions;
  /** Told of gateway events that are not calls (a definition change), as audit records. */
  readonly audit?: (record: CallRecord) => unknown;
  /** Lines for the operator (stderr by the CLI). */
  readonly log?: (line: string) => void;
  readonly restart?: Partial<RestartPolicy>;
  /** The bubblewrap program (default: found on the PATH) and where installed npx packages are kept. */
  readonly sandbox?: { readonly bwrap?: string; readonly packageCache?: string };
  /** Watch the config file and the lock, and apply changes without a restart (default true). */
  readonly watch?: boolean;
  /**
   * Longest wait for a server's first start (default 30,000 ms): a call to one of its tools waits for
   * it this long before answering `mcp_server_unavailable`, and names are recorded in the lock once
   * every server's first start has settled or this has passed.
   */
  readonly startTimeoutMs?: number;
  /**
   * Whether `startGateway` resolves only once every server's first start has settled (or
   * `startTimeoutMs` passed), as one-off commands that read the servers' listings want. Default: with
   * `watch: false`, or when the lock has no tool to list (a first start). Otherwise it resolves at
   * once, so that a client's `initialize` and `server/discover` never wait for an upstream: servers
   * still starting have their pinned tools listed from the lock, and the others join by `list_changed`.
   * A server that serves the gateway can resolve at once in every case and wait for
   * {@link Gateway.firstListing} before it answers a `tools/list`, as `toolpact gateway` does.
   */
  readonly waitForStart?: boolean;
  /**
   * Start no server until {@link Gateway.begin} (default false): the tools the lock pins are
   * registered at once, the processes wait. `toolpact gateway` begins at a client's first message other
   * than `server/discover`, so the process that a 2026-07-28 client starts only to learn the gateway's
   * era, and ends at once, starts no server.
   */
  readonly deferStart?: boolean;
  /** Wraps every `tools/call` sent to a server (e.g. `upstreamSpans` of `toolpact/otel`). */
  readonly wrapUpstreamCall?: UpstreamCallWrapper;
  /** Longest wait for one probe of an unknown server's era (default 5,000 ms: `npx` can be slow). */
  readonly probeTimeoutMs?: number;
  /**
   * Where sign-ins to remote servers are kept. Default: the encrypted file of the config's
   * `toolpact.tokens` (else `defaultTokenFile()`), watched so that a `gateway login` takes effect at once.
   */
  readonly tokens?: McpTokenStore;
  /**
   * Serve a team: the gateway authenticates its callers over HTTP, and each one reaches a server that
   * signs in with their own sign-in, made through the link the gateway serves (`routes`). Calls without
   * a principal (stdio, or HTTP without auth) use the local user's sign-in as before.
   */
  readonly team?: TeamGatewayOptions;
}

/** What the gateway holds of one server. */
export interface GatewayServerStatus extends UpstreamStatus {
  /** Disabled in the config (`toolpact.servers.<name>.enabled: false`). */
  readonly enabled: boolean;
  /** How the gateway reaches it. */
  readonly transport: 'stdio' | 'http' | 'sse';
  /** A stdio server started with no sandbox. */
  readonly unsandboxed: boolean;
  /** The local names of the tools it serves (withheld and hidden ones excluded). */
  readonly served: readonly string[];
  readonly withheld: readonly WithheldTool[];
  /** Tools hidden by the config. */
  readonly hidden: readonly string[];
  /** The command that signs the server in, when it is `needs_login`. */
  readonly login?: string;
  /** Tools the import skipped (a bad schema, a name taken under `prefix: never`), with why. */
  readonly skipped: readonly SkippedTool[];
  /** Tools in the lock that the server no longer lists. */
  readonly removed: readonly string[];
  /**
   * Tools served under a prefixed name because their own name belongs to another tool (one that owns
   * it in the lock, or came first in the config), until the lock records the name they are served under.
   */
  readonly collisions: readonly NameCollision[];
  /** What it offers besides tools, and what of it the gateway does not serve as listed. */
  readonly catalog: GatewayCatalogStatus;
}

/** What the gateway holds of one server's resources, templates and prompts. */
export interface GatewayCatalogStatus {
  /** How many of each it lists (absent: it does not declare the kind, or has not listed yet). */
  readonly resources?: number;
  readonly templates?: number;
  readonly prompts?: number;
  /** Withheld as a changed tool is: not listed, refused until `gateway pin`. */
  readonly withheld: readonly WithheldItem[];
  /** Resources and templates another server earlier in the config offers under the same URI: not served. */
  readonly shadowed: readonly ShadowedItem[];
  /** Prompts served under a prefixed name because their own is another's. */
  readonly collisions: readonly NameCollision[];
  /** Pinned items it no longer lists. */
  readonly removed: readonly string[];
  /** Items that could not be registered, with why. */
  readonly failed: readonly FailedItem[];
}

/** A running gateway. */
export interface Gateway {
  /** The registry every call goes through: the gate, the audit, the tools of every server. */
  readonly registry: Registry;
  /** What clients are listed: every served tool, without the withheld ones. */
  readonly listing: ToolListing;
  /** What to serve beside the MCP endpoint: with `team`, the sign-in link. */
  readonly routes: readonly HttpRoute[];
  /** The configuration in force. */
  config(): GatewayConfig;
  status(): readonly GatewayServerStatus[];
  withheld(): readonly WithheldTool[];
  /** Reads the config file again and applies it (the watcher does this on every save). */
  reload(): Promise<void>;
  /**
   * Accepts every server's current definitions into the lock (what `gateway pin` does). A tool whose
   * definition has hidden instructions is accepted only when `accept` names it (`<server>/<tool>`).
   */
  pin(options?: { readonly accept?: readonly string[] }): void;
  /**
   * Starts the servers that `deferStart` held back (nothing when they were started already), and
   * resolves once every server's first start has settled or `startTimeoutMs` passed.
   */
  begin(): Promise<void>;
  /**
   * Over stdio, the one client, once it has opened a legacy connection: what a server asks outside any
   * call (sampling, elicitation, its roots under `roots: "client"`) goes to it. Without it, or over
   * HTTP, where nothing says which client such a request is for, it is refused.
   */
  clientConnected(client: McpClientChannel): void;
  /**
   * Resolves when a `tools/list` is worth answering: at once when the lock lists the tools of an
   * enabled server (the others join by `list_changed`); otherwise, a first start, once {@link begin}
   * has resolved, so that a client that lists once is not listed nothing. Begins the servers.
   */
  firstListing(): Promise<void>;
  /** Stops every server and the watchers; the registry is closed with them. */
  close(): Promise<void>;
}

/**
 * Starts every enabled server of `config` in parallel and serves their tools through one registry:
 * named as the lock says each tool owns its name (a tool that owns none yet is named in config order,
 * prefixed when its name is taken; see `planTools`), listed in a stable order,
 * overridden as the config says, checked against the lock of pinned definitions (a changed definition
 * is withheld and reported), gated by the registry's policy, and followed as servers change their
 * lists, fail, restart or are edited in the config. Resolves once every server's first start has
 * settled (or `startTimeoutMs` passed): a server that cannot start is reported and retried, never
 * holding up the others.
 *
 * @example
 * const config = readGatewayConfig('mcp.json');
 * const gateway = await startGateway({ config, registry: createPolicyGate(policy).registryOptions });
 * await serveStdio(gateway.registry, { listing: gateway.listing });
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  let config = options.config;
  const log = options.log ?? (() => {});
  const keeper = new LockKeeper({
    file: options.lockFile ?? config.lock ?? defaultLockFile(config.file),
    pinning: options.pinning ?? 'first-start',
    log,
  });
  const registryOptions = options.registry ?? {};
  const registry = new Registry({
    ...registryOptions,
    ...(config.maxBinaryBytes !== undefined ? { maxBinaryBytes: config.maxBinaryBytes } : {}),
    beforeCall: withheldPassGate(registryOptions.beforeCall),
  });
  const served = new ServedRegistry(registry, log);
  const sinks = { log, ...(options.audit ? { audit: options.audit } : {}) };
  const startTimeoutMs = options.startTimeoutMs ?? config.startTimeoutMs ?? 30_000;
  let closing: Promise<void> | undefined;
  const target = targetContext(config, options);
  const team = options.team && teamUpstreams(config.servers, target, options.team);

  // Names are recorded in the lock once every server had its first start, so that a fresh start names
  // in config order, not in the order the servers answered.
  let naming = false;
  let plans: Plans = {};
  const rebuild = () => {
    if (closing) return;
    plans = servePlans({ servers, served, catalog, sinks, team }, keeper.lock, config.newTools);
    if (naming) recordServedNames(keeper, plans);
  };

  const servers = new ServerSet({
    keeper,
    target,
    ...(options.restart ? { restart: options.restart } : {}),
    probeTimeoutMs: options.probeTimeoutMs ?? 5_000,
    startTimeoutMs,
    ...(options.wrapUpstreamCall ? { wrapUpstreamCall: options.wrapUpstreamCall } : {}),
    ...(options.deferStart ? { deferStart: true } : {}),
    clientRequests: { gate: operationGate(registryOptions), sinks },
    newTools: () => config.newTools,
    changed: rebuild,
    resourceUpdated: (server, uri) => catalog.updated(server, uri),
    log,
  });
  const catalog = new ServedCatalog(registry, { upstream: (name) => servers.upstream(name), team }, log);
  const apply = (next: GatewayConfig) => {
    const previous = config;
    config = next;
    void team?.apply(next.servers);
    return servers.apply(previous, next);
  };

  for (const skipped of config.skipped) log(`${skipped.name}: skipped: ${skipped.reason}`);
  const first = await apply(config);
  // The start timeout runs from the moment the servers are started, not from the gateway's.
  let started: Promise<void> | undefined;
  const begin = () => {
    started ??= settleWithin(
      [...first, ...servers.begin()].map((upstream) => upstream.firstAttempt),
      startTimeoutMs,
    ).then(() => {
      naming = true;
      rebuild();
    });
    return started;
  };
  if (!options.deferStart) begin();
  // With nothing in the lock to list (a first start), clients would be listed nothing: wait as before.
  const listable = lockListsTools(config, keeper.lock);
  if (options.waitForStart ?? (options.watch === false || !listable)) await begin();

  // Saving the config or the lock (a `gateway pin` elsewhere) takes effect without a restart.
  const watcher = watchConfig({
    configFile: config.file,
    lockFile: keeper.file,
    apply,
    lockChanged: () => {
      if (keeper.reload()) rebuild();
    },
    // A `gateway login` elsewhere writes the token file: a server waiting for it tries again.
    ...(config.tokens !== undefined && options.tokens === undefined
      ? { tokenFile: config.tokens, tokensChanged: () => void servers.signInsChanged() }
      : {}),
    closing: () => closing !== undefined,
    ...(options.watch === false ? { watch: false } : {}),
    log,
  });

  const withheld = () => servers.entries().flatMap((entry) => [...entry.plan.withheld]);
  return {
    registry,
    listing: withoutWithheld(registry, withheld),
    routes: team ? [team.route] : [],
    config: () => config,
    status: () =>
      servers.entries().map((entry) => serverStatus(entry, served.namesOf(entry.spec.name), config.file)),
    withheld,
    reload: () => watcher.reload(),
    pin: (options) => {
      pinEverything(keeper, servers, plans, options?.accept);
      rebuild();
    },
    begin,
    clientConnected: (client) => servers.clientConnected(client),
    firstListing: () => {
      const starting = begin();
      return listable ? Promise.resolve() : starting;
    },
    close() {
      closing ??= (async () => {
        await watcher.close();
        await servers.close();
        await team?.close();
        await registry.close();
      })();
      return closing;
    },
  };
}

/** What each server's target is built with: the config's file, the sandbox, and where sign-ins are kept. */
function targetContext(config: GatewayConfig, options: GatewayOptions): UpstreamTargetContext {
  return {
    configFile: config.file,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    tokens: options.tokens ?? fileTokenStore(config.tokens ?? defaultTokenFile()),
  };
}

/** Every server's tools planned from the config, the lock and the listings, reported, and registered. */
function serveTools(
  servers: ServerSet,
  served: ServedRegistry,
  context: {
    readonly lock: GatewayLock;
    readonly newTools: 'allow' | 'withhold';
    readonly sinks: GatewayEventSinks;
    readonly team: TeamUpstreams | undefined;
  },
): ToolPlan {
  const entries = servers.entries();
  const plan = planTools({
    servers: entries.map((entry) => entry.spec),
    newTools: context.newTools,
    lock: context.lock,
    listings: servers.listings(),
    reserved: served.reserved(),
  });
  const byName = new Map(entries.map((entry) => [entry.spec.name, entry]));
  for (const entry of entries) {
    entry.plan = plan.servers.get(entry.spec.name) ?? entry.plan;
    entry.failed = [];
    reportUnknownOverrides(entry.reported, entry.spec.name, entry.plan.unknownOverrides, context.sinks);
    for (const collision of entry.plan.collisions) reportCollision(entry.reported, collision, context.sinks);
  }
  for (const tool of plan.tools) {
    const entry = byName.get(tool.server);
    if (entry && tool.withheld) {
      reportWithheld(entry.reported, tool.withheld, tool.withheldDigest ?? 'new', context.sinks);
    }
  }
  const toolContext = {
    upstream: (name: string) => servers.upstream(name),
    log: context.sinks.log,
    ...(context.team ? { team: context.team } : {}),
  };
  served.sync(
    plan.tools,
    (tool) => servedTool(tool, byName.get(tool.server)!.spec, toolContext),
    (tool, reason) =>
      byName
        .get(tool.server)
        ?.failed.push({ remoteName: tool.name, code: 'invalid_schema', message: reason }),
  );
  return plan;
}

/** What clients are listed: every registered tool but the withheld ones. */
function withoutWithheld(registry: Registry, withheld: () => readonly WithheldTool[]): ToolListing {
  return {
    schemas: () => {
      const names = new Set(withheld().map((tool) => tool.name));
      const all = registry.schemas();
      return names.size === 0 ? all : all.filter((contract) => !names.has(contract.name));
    },
    onChange: (listener) => registry.onChange(listener),
  };
}

/** Every server's resources, templates and prompts planned from the config, the lock and the listings, reported, and registered. */
function serveCatalog(
  servers: ServerSet,
  catalog: ServedCatalog,
  context: {
    readonly lock: GatewayLock;
    readonly newTools: 'allow' | 'withhold';
    readonly sinks: GatewayEventSinks;
  },
): CatalogPlan {
  const entries = servers.entries();
  const plan = planCatalog({
    servers: entries.map((entry) => entry.spec),
    newTools: context.newTools,
    lock: context.lock,
    catalogs: servers.catalogs(),
  });
  const failed = catalog.sync(plan);
  for (const entry of entries) {
    const planned = plan.servers.get(entry.spec.name);
    entry.catalog = planned ?? entry.catalog;
    entry.failedItems = failed.filter((item) => item.server === entry.spec.name);
    if (planned) reportCatalog(entry.reported, planned, context.sinks.log);
  }
  return plan;
}

/** The last plans of the served tools and of the resources, templates and prompts. */
interface Plans {
  readonly tools?: ToolPlan;
  readonly catalog?: CatalogPlan;
}

/** The served tools, and the resources, templates and prompts, planned and registered. */
function servePlans(
  parts: {
    readonly servers: ServerSet;
    readonly served: ServedRegistry;
    readonly catalog: ServedCatalog;
    readonly sinks: GatewayEventSinks;
    readonly team: TeamUpstreams | undefined;
  },
  lock: GatewayLock,
  newTools: 'allow' | 'withhold',
): Plans {
  const { servers, served, catalog, sinks, team } = parts;
  const context = { lock, newTools, sinks, team };
  return { tools: serveTools(servers, served, context), catalog: serveCatalog(servers, catalog, context) };
}

/** Whether the lock lists the tools of an enabled server, so clients can be listed before any server is up. */
function lockListsTools(config: GatewayConfig, lock: GatewayLock): boolean {
  return config.servers.some(
    (spec) => spec.enabled && lockedListing(lockedServer(lock, spec.name)) !== undefined,
  );
}

/** Records in the lock the names tools and prompts are served under. */
function recordServedNames(keeper: LockKeeper, plans: Plans): void {
  if (plans.tools) keeper.recordNames(servedNames(plans.tools));
  if (plans.catalog) keeper.recordPromptNames(promptNames(plans.catalog));
}

/** The names a plan serves prompts under, for the lock. */
function promptNames(plan: CatalogPlan): ServedName[] {
  return plan.prompts.map((prompt) => ({ server: prompt.server, remoteName: prompt.key, name: prompt.name }));
}

/** The names a plan serves tools under, for the lock. */
function servedNames(plan: ToolPlan): ServedName[] {
  return plan.tools.map((tool) => ({ server: tool.server, remoteName: tool.remote.name, name: tool.name }));
}

/** `gateway pin`: every listed server's current definitions accepted, and reported afresh. */
function pinEverything(
  keeper: LockKeeper,
  servers: ServerSet,
  plans: Plans,
  accept: readonly string[] = [],
): void {
  const names = plans.tools ? servedNames(plans.tools) : [];
  const prompts = plans.catalog ? promptNames(plans.catalog) : [];
  const listings = [];
  for (const entry of servers.entries()) {
    const listed = entry.upstream?.tools;
    if (!listed) continue;
    const prior = entry.upstream?.prior;
    const catalog = entry.upstream?.catalog;
    listings.push({
      server: entry.spec.name,
      listed,
      ...(prior ? { prior } : {}),
      ...(catalog ? { catalog } : {}),
    });
  }
  keeper.pinAll(listings, names, new Set(accept), prompts);
  for (const entry of servers.entries()) entry.reported.clear();
}

/** A server's status: its upstream's, with what the gateway serves of it. */
function serverStatus(entry: ServerEntry, names: readonly string[], configFile: string): GatewayServerStatus {
  const upstream = entry.upstream?.status();
  const { spec, plan } = entry;
  const listed = entry.upstream?.catalog;
  const skipped: SkippedTool[] = [...entry.imported, ...plan.skipped, ...entry.failed];
  return {
    ...(upstream?.state === 'needs_login'
      ? { login: `toolpact gateway login ${spec.name} --config ${configFile}` }
      : {}),
    name: spec.name,
    state: upstream?.state ?? 'stopped',
    era: upstream?.era,
    protocolVersion: upstream?.protocolVersion,
    restarts: upstream?.restarts ?? 0,
    reason: upstream?.reason ?? (spec.enabled ? undefined : 'disabled in the config'),
    stderr: upstream?.stderr ?? '',
    tools: upstream?.tools ?? 0,
    droppedNotifications: upstream?.droppedNotifications ?? 0,
    enabled: spec.enabled,
    transport: spec.target.kind,
    unsandboxed: spec.target.kind === 'stdio' && !spec.sandbox,
    served: names.filter((name) => !plan.withheld.some((tool) => tool.name === name)),
    withheld: plan.withheld,
    hidden: plan.hidden,
    skipped,
    removed: plan.removed,
    collisions: plan.collisions,
    catalog: {
      ...(listed?.resources ? { resources: listed.resources.length } : {}),
      ...(listed?.templates ? { templates: listed.templates.length } : {}),
      ...(listed?.prompts ? { prompts: listed.prompts.length } : {}),
      withheld: entry.catalog.withheld,
      shadowed: entry.catalog.shadowed,
      collisions: entry.catalog.collisions,
      removed: entry.catalog.removed,
      failed: entry.failedItems,
    },
  };
}

/** `<config>.lock.json` beside the config, e.g. `mcp.json` → `mcp.lock.json`. */
export function defaultLockFile(configFile: string): string {
  const name = basename(configFile).replace(/\.jsonc?$/i, '');
  return join(dirname(configFile), `${name}.lock.json`);
}

/** Waits for every promise, or `timeoutMs`, whichever is first. */
async function settleWithin(promises: readonly Promise<unknown>[], timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}
