import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { JsonSchema } from '../contract/index.js';
import { createTool } from '../define/create-tool.js';
import type { AnyTool } from '../define/tool.js';
import type { CallRecord } from '../dispatch/call.js';
import type { BeforeCallHook } from '../dispatch/gate.js';
import { ToolError } from '../dispatch/tool-error.js';
import type { McpServerTarget } from '../mcp/connect.js';
import type { ToolListing } from '../mcp/create-mcp-server.js';
import type { SkippedTool } from '../mcp/import-mcp-tools.js';
import { planNames } from '../mcp/imported-names.js';
import { inferCategory } from '../mcp/infer-category.js';
import { remoteTool } from '../mcp/remote-tool.js';
import { Registry, type RegistryOptions } from '../registry/registry.js';
import { type GatewayConfig, type GatewayServer, readGatewayConfig } from './config/index.js';
import { compareTools, type GatewayLock, lockEntry, lockedServer, pinServer } from './lock.js';
import { readLock, writeLock } from './lock-file.js';
import { defaultNpxCacheDir } from './npx.js';
import { sandboxedCommand } from './sandbox-server.js';
import {
  type RestartPolicy,
  Upstream,
  type UpstreamCallWrapper,
  type UpstreamState,
  type UpstreamStatus,
} from './upstream.js';

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
  /** Longest wait for every server's first start before the gateway serves what it has (default 30,000 ms). */
  readonly startTimeoutMs?: number;
  /** Wraps every `tools/call` sent to a server (e.g. `upstreamSpans` of `toolpact/otel`). */
  readonly wrapUpstreamCall?: UpstreamCallWrapper;
  /** Longest wait for one probe of an unknown server's era (default 5,000 ms: `npx` can be slow). */
  readonly probeTimeoutMs?: number;
}

/** A tool the gateway withholds: its definition changed since it was pinned, or it is new and new tools are withheld. */
export interface WithheldTool {
  readonly server: string;
  readonly remoteName: string;
  /** The local name a call uses. */
  readonly name: string;
  readonly reason: 'changed' | 'new';
  /** For a changed tool, the description's diff against the pinned one. */
  readonly descriptionDiff?: string;
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
  /** Tools the import skipped (a bad schema, a name taken under `prefix: never`), with why. */
  readonly skipped: readonly SkippedTool[];
  /** Tools in the lock that the server no longer lists. */
  readonly removed: readonly string[];
}

/** A running gateway. */
export interface Gateway {
  /** The registry every call goes through: the gate, the audit, the tools of every server. */
  readonly registry: Registry;
  /** What clients are listed: every served tool, without the withheld ones. */
  readonly listing: ToolListing;
  /** The configuration in force. */
  config(): GatewayConfig;
  status(): readonly GatewayServerStatus[];
  withheld(): readonly WithheldTool[];
  /** Reads the config file again and applies it (the watcher does this on every save). */
  reload(): Promise<void>;
  /** Accepts every server's current definitions into the lock (what `gateway pin` does). */
  pin(): void;
  /** Stops every server and the watchers; the registry is closed with them. */
  close(): Promise<void>;
}

/** Where a withheld tool's call ends: the envelope type a client sees. */
export const DEFINITION_CHANGED = 'tool_definition_changed';

interface ServerEntry {
  spec: GatewayServer;
  upstream: Upstream | undefined;
  skipped: readonly SkippedTool[];
  withheld: WithheldTool[];
  hidden: string[];
  removed: string[];
  /** Changes already reported, by remote name and digest, so a re-listing does not repeat them. */
  reported: Set<string>;
}

/**
 * Starts every enabled server of `config` in parallel and serves their tools through one registry:
 * namespaced deterministically (a name another server earlier in the config also has is prefixed),
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
  const lockFile = options.lockFile ?? config.lock ?? defaultLockFile(config.file);
  const log = options.log ?? (() => {});
  const pinning = options.pinning ?? 'first-start';
  let lock: GatewayLock = readLock(lockFile) ?? { version: 1, servers: {} };
  const entries = new Map<string, ServerEntry>();
  // The local name each served tool is registered under, with what it was built from.
  const built = new Map<string, { key: string; server: string }>();
  const registryOptions = options.registry ?? {};
  const registry = new Registry({
    ...registryOptions,
    beforeCall: withheldPassGate(registryOptions.beforeCall),
  });
  let closing: Promise<void> | undefined;

  const saveLock = (next: GatewayLock) => {
    if (pinning === 'read-only') return;
    lock = next;
    try {
      writeLock(lockFile, lock);
    } catch (error) {
      log(`cannot write the lock ${lockFile}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const targetOf = (spec: GatewayServer) => (): McpServerTarget => {
    const target = spec.target;
    if (target.kind !== 'stdio') {
      if (target.kind === 'sse') {
        throw new Error(
          'it is an "sse" server: the HTTP+SSE transport was replaced by Streamable HTTP in MCP 2025-03-26 and toolpact does not speak it. Give its Streamable HTTP URL with "type": "http".',
        );
      }
      return { url: target.url, headers: { ...target.headers } };
    }
    if (!spec.sandbox) {
      return {
        command: target.command,
        args: [...target.args],
        // The SDK adds a safe subset of ours (HOME, LOGNAME, PATH, SHELL, TERM, USER), never our secrets.
        env: { ...target.env },
        ...(target.cwd ? { cwd: target.cwd } : {}),
      };
    }
    // Without bubblewrap, or with an npx package that is not installed, this throws a
    // SandboxUnavailableError saying what to do: the server is down, never started unconfined.
    const sandboxed = sandboxedCommand(
      {
        command: target.command,
        args: [...target.args],
        env: { ...target.env },
        ...(target.cwd ? { cwd: target.cwd } : {}),
      },
      spec.sandbox,
      {
        ...(options.sandbox?.bwrap ? { bwrap: options.sandbox.bwrap } : {}),
        searchFrom: [dirname(config.file), process.cwd()],
        cacheDir: options.sandbox?.packageCache ?? defaultNpxCacheDir(),
        server: spec.name,
        config: config.file,
      },
    );
    return { command: sandboxed.command, args: sandboxed.args, env: sandboxed.env };
  };

  const startServer = (spec: GatewayServer): ServerEntry => {
    const entry: ServerEntry = {
      spec,
      upstream: undefined,
      skipped: [],
      withheld: [],
      hidden: [],
      removed: [],
      reported: new Set(),
    };
    entries.set(spec.name, entry);
    if (!spec.enabled) return entry;
    const locked = lockedServer(lock, spec.name);
    const upstream = new Upstream({
      name: spec.name,
      target: targetOf(spec),
      ...(locked?.prior ? { prior: locked.prior as never } : {}),
      ...(options.restart ? { restart: options.restart } : {}),
      probeTimeoutMs: options.probeTimeoutMs ?? 5_000,
      ...(options.wrapUpstreamCall ? { wrapCall: options.wrapUpstreamCall } : {}),
      ...(spec.timeoutMs ? { requestTimeoutMs: spec.timeoutMs + 1_000 } : {}),
      log,
      onTools: (_tools, skipped) => {
        entry.skipped = skipped;
        pinKnown(entry);
        rebuild();
      },
      onState: (state: UpstreamState) => {
        if (state === 'up') pinEra(entry);
      },
    });
    entry.upstream = upstream;
    upstream.start();
    return entry;
  };

  // A server seen for the first time has its definitions pinned; allowed new tools join the lock.
  const pinKnown = (entry: ServerEntry) => {
    const listed = entry.upstream?.tools;
    if (!listed || pinning === 'read-only') return;
    const locked = lockedServer(lock, entry.spec.name);
    if (!locked) {
      saveLock(pinServer(lock, entry.spec.name, listed, eraOf(entry), entry.upstream?.prior));
      log(`${entry.spec.name}: pinned ${listed.length} tool definitions in ${basename(lockFile)}.`);
      return;
    }
    if (config.newTools !== 'allow') return;
    const { added } = compareTools(locked, listed);
    if (added.length === 0) return;
    const tools = { ...locked.tools };
    for (const name of added) {
      const tool = listed.find((each) => each.name === name);
      if (tool) tools[name] = lockEntry(tool);
    }
    saveLock({ ...lock, servers: { ...lock.servers, [entry.spec.name]: { ...locked, tools } } });
    log(`${entry.spec.name}: new tools allowed and pinned: ${added.join(', ')}.`);
  };

  // The era joins the lock, so that the next start does not probe again.
  const pinEra = (entry: ServerEntry) => {
    const locked = lockedServer(lock, entry.spec.name);
    const prior = entry.upstream?.prior;
    if (!locked || !prior || JSON.stringify(locked.prior) === JSON.stringify(prior)) return;
    saveLock({
      ...lock,
      servers: { ...lock.servers, [entry.spec.name]: { ...locked, era: eraOf(entry), prior } },
    });
  };

  const eraOf = (entry: ServerEntry) => {
    const prior = entry.upstream?.prior;
    return prior ? (prior.kind === 'modern' ? 'modern' : 'legacy') : undefined;
  };

  /** Every server's tools, named in config order, compared with the lock, and registered. */
  const rebuild = () => {
    if (closing) return;
    const wanted = new Map<string, { key: string; server: string; make: () => AnyTool }>();
    const taken = new Set(
      registry
        .list()
        .map((tool) => tool.contract.name)
        .filter((name) => !built.has(name)),
    );
    for (const entry of entries.values()) {
      const { spec } = entry;
      const listed = entry.upstream?.tools;
      entry.withheld = [];
      entry.hidden = [];
      entry.removed = [];
      if (!spec.enabled) continue;
      // A server not listed yet still holds the names it had (from the lock), so names stay stable.
      const remoteNames = listed
        ? listed.map((tool) => tool.name).filter((name) => !spec.tools[name]?.hidden)
        : Object.keys(lockedServer(lock, spec.name)?.tools ?? {}).filter((name) => !spec.tools[name]?.hidden);
      const plans = planNames(
        spec.name,
        remoteNames,
        taken,
        spec.prefix === 'auto' ? 'on-collision' : spec.prefix,
      );
      for (const plan of plans) if (plan.local) taken.add(plan.local);
      if (!listed) continue;
      const locked = lockedServer(lock, spec.name);
      const comparison = locked ? compareTools(locked, listed) : undefined;
      const changed = new Map(comparison?.changed.map((change) => [change.name, change]) ?? []);
      const added = new Set(config.newTools === 'withhold' ? (comparison?.added ?? []) : []);
      entry.removed = comparison?.removed ?? [];
      entry.hidden = listed.filter((tool) => spec.tools[tool.name]?.hidden).map((tool) => tool.name);
      for (const name of Object.keys(spec.tools)) {
        if (!listed.some((tool) => tool.name === name) && !entry.reported.has(`override:${name}`)) {
          entry.reported.add(`override:${name}`);
          log(
            `${spec.name}: toolpact.servers.${spec.name}.tools names "${name}", which the server does not list.`,
          );
        }
      }
      const skipped: SkippedTool[] = [...entry.skipped];
      for (const plan of plans) {
        const remote = listed.find((tool) => tool.name === plan.remote);
        if (!remote) continue;
        if (!plan.local) {
          skipped.push({
            remoteName: plan.remote,
            code: 'name_taken',
            message: `Another server's tool is named "${plan.remote}" and prefix is "never"; set toolpact.servers.${spec.name}.prefix to "auto".`,
          });
          continue;
        }
        const local = plan.local;
        const change = changed.get(remote.name);
        if (change || added.has(remote.name)) {
          const withheld: WithheldTool = {
            server: spec.name,
            remoteName: remote.name,
            name: local,
            reason: change ? 'changed' : 'new',
            ...(change ? { descriptionDiff: change.descriptionDiff } : {}),
          };
          entry.withheld.push(withheld);
          reportWithheld(entry, withheld, change?.after.digest ?? 'new');
          wanted.set(local, {
            key: `withheld\u0000${spec.name}\u0000${remote.name}\u0000${withheld.reason}`,
            server: spec.name,
            make: () => withheldTool(withheld),
          });
          continue;
        }
        const override = spec.tools[remote.name] ?? {};
        const key = JSON.stringify([spec.name, remote, override, spec.timeoutMs ?? null, local]);
        wanted.set(local, {
          key,
          server: spec.name,
          make: () => servedTool(entry, remote, local),
        });
      }
      entry.skipped = skipped;
    }
    // Replace what changed; what stayed the same keeps its tool (and its place in the list).
    for (const [name, was] of built) {
      const now = wanted.get(name);
      if (!now || now.key !== was.key) {
        registry.unregister(name);
        built.delete(name);
      }
    }
    for (const [name, want] of wanted) {
      if (built.has(name)) continue;
      let tool: AnyTool;
      try {
        tool = want.make();
      } catch (error) {
        const entry = entries.get(want.server);
        const reason = error instanceof Error ? error.message : String(error);
        log(`${want.server}: the tool "${name}" cannot be served: ${reason}`);
        if (entry) {
          entry.skipped = [...entry.skipped, { remoteName: name, code: 'invalid_schema', message: reason }];
        }
        continue;
      }
      if (registry.has(name)) {
        log(`${want.server}: the tool "${name}" is already registered; it is not served.`);
        continue;
      }
      registry.register(tool);
      built.set(name, { key: want.key, server: want.server });
    }
  };

  const reportWithheld = (entry: ServerEntry, withheld: WithheldTool, digest: string) => {
    const key = `${withheld.remoteName}\u0000${digest}`;
    if (entry.reported.has(key)) return;
    entry.reported.add(key);
    if (withheld.reason === 'new') {
      log(
        `${entry.spec.name}: the new tool "${withheld.remoteName}" is withheld (newTools is "withhold"); accept it with toolpact gateway pin.`,
      );
    } else {
      log(
        `${entry.spec.name}: the definition of "${withheld.remoteName}" changed since it was pinned, so it is withheld. Review the change and accept it with toolpact gateway pin.\n  description:\n${indent(withheld.descriptionDiff ?? '(the description is the same; the schema or annotations changed)')}`,
      );
    }
    // An audit that commits elsewhere (a store) answers a promise: a failed write is not this event's to fail.
    const recorded = options.audit?.({
      tool: withheld.name,
      category: undefined,
      callId: undefined,
      arguments: {
        server: entry.spec.name,
        remoteName: withheld.remoteName,
        reason: withheld.reason,
        ...(withheld.descriptionDiff ? { descriptionDiff: withheld.descriptionDiff } : {}),
      },
      decision: undefined,
      outcome: DEFINITION_CHANGED,
      startedAt: Date.now(),
      durationMs: 0,
      state: undefined,
    });
    if (recorded && typeof (recorded as PromiseLike<unknown>).then === 'function') {
      Promise.resolve(recorded).catch(() => {});
    }
  };

  const servedTool = (entry: ServerEntry, remote: McpTool, local: string): AnyTool => {
    const { spec } = entry;
    const override = spec.tools[remote.name] ?? {};
    const described = override.description ?? remote.description?.trim();
    const inputSchema = override.parameters
      ? describeParameters(remote.inputSchema as JsonSchema, override.parameters, (path) =>
          log(
            `${spec.name}: toolpact.servers.${spec.name}.tools.${remote.name}.parameters names "${path}", which its input schema does not have.`,
          ),
        )
      : remote.inputSchema;
    return remoteTool(
      { ...remote, inputSchema: inputSchema as McpTool['inputSchema'] },
      {
        name: local,
        server: spec.name,
        source: `mcp:${spec.name}`,
        category: override.category ?? inferCategory(remote.name, remote.annotations),
        inferredCategory: override.category === undefined,
        description:
          described ||
          `${remote.title ?? remote.annotations?.title ?? remote.name} (the MCP server "${spec.name}" gives no description).`,
        ...(override.title ? { title: override.title } : {}),
        ...(spec.timeoutMs ? { timeoutMs: spec.timeoutMs } : {}),
        meta: { gateway: true },
        call: (call) => {
          // The server as it is now: a config change may have restarted it as a new upstream.
          const upstream = entries.get(spec.name)?.upstream;
          if (!upstream) {
            throw new ToolError(`The MCP server "${spec.name}" is disabled in the gateway's config.`, {
              type: 'mcp_server_unavailable',
              details: { server: spec.name },
            });
          }
          return upstream.call(call.remoteName, call.arguments, {
            signal: call.signal,
            ...(call.meta ? { meta: call.meta } : {}),
          });
        },
      },
    ).tool;
  };

  const apply = async (next: GatewayConfig) => {
    const previous = config;
    config = next;
    const stopping: Promise<void>[] = [];
    for (const [name, entry] of entries) {
      const spec = next.servers.find((server) => server.name === name);
      if (!spec) {
        log(`${name}: removed from the config; stopping it.`);
        entries.delete(name);
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
      entries.delete(name);
      stopping.push(entry.upstream?.close() ?? Promise.resolve());
    }
    await Promise.all(stopping);
    // Keep the config's order: the names of earlier servers win collisions.
    const kept = new Map(entries);
    entries.clear();
    const started: Upstream[] = [];
    for (const spec of next.servers) {
      const entry = kept.get(spec.name);
      if (entry) {
        entries.set(spec.name, entry);
        continue;
      }
      if (previous !== next && !previous.servers.some((server) => server.name === spec.name)) {
        log(`${spec.name}: added to the config; starting it.`);
      }
      const fresh = startServer(spec);
      if (fresh.upstream) started.push(fresh.upstream);
    }
    rebuild();
    return started;
  };

  for (const skipped of config.skipped) log(`${skipped.name}: skipped: ${skipped.reason}`);
  const first = await apply(config);
  await settleWithin(
    first.map((upstream) => upstream.firstAttempt),
    options.startTimeoutMs ?? 30_000,
  );

  // Saving the config or the lock (a `gateway pin` elsewhere) takes effect without a restart.
  const watchers: FSWatcher[] = [];
  let reloading = Promise.resolve();
  const reload = () => {
    reloading = reloading.then(async () => {
      if (closing) return;
      let next: GatewayConfig;
      try {
        next = readGatewayConfig(config.file);
      } catch (error) {
        log(
          `the config could not be read again, so the running one is kept: ${error instanceof Error ? error.message : String(error)}`,
        );
        return;
      }
      for (const skipped of next.skipped) log(`${skipped.name}: skipped: ${skipped.reason}`);
      await apply(next);
    });
    return reloading;
  };
  const reloadLock = () => {
    if (closing) return;
    try {
      lock = readLock(lockFile) ?? { version: 1, servers: {} };
    } catch (error) {
      log(`the lock could not be read again: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    rebuild();
  };
  if (options.watch !== false) {
    watchers.push(watchFile(config.file, () => void reload()));
    watchers.push(watchFile(lockFile, reloadLock));
  }

  const listing: ToolListing = {
    schemas: () => {
      const withheld = new Set(
        [...entries.values()].flatMap((entry) => entry.withheld.map((tool) => tool.name)),
      );
      const all = registry.schemas();
      return withheld.size === 0 ? all : all.filter((contract) => !withheld.has(contract.name));
    },
    onChange: (listener) => registry.onChange(listener),
  };

  const gateway: Gateway = {
    registry,
    listing,
    config: () => config,
    status: () =>
      [...entries.values()].map((entry) => {
        const upstream = entry.upstream?.status();
        return {
          name: entry.spec.name,
          state: upstream?.state ?? 'stopped',
          era: upstream?.era,
          protocolVersion: upstream?.protocolVersion,
          restarts: upstream?.restarts ?? 0,
          reason: upstream?.reason ?? (entry.spec.enabled ? undefined : 'disabled in the config'),
          stderr: upstream?.stderr ?? '',
          tools: upstream?.tools ?? 0,
          enabled: entry.spec.enabled,
          transport: entry.spec.target.kind,
          unsandboxed: entry.spec.target.kind === 'stdio' && !entry.spec.sandbox,
          served: [...built]
            .filter(
              ([name, tool]) =>
                tool.server === entry.spec.name && !entry.withheld.some((w) => w.name === name),
            )
            .map(([name]) => name),
          withheld: entry.withheld,
          hidden: entry.hidden,
          skipped: entry.skipped,
          removed: entry.removed,
        };
      }),
    withheld: () => [...entries.values()].flatMap((entry) => entry.withheld),
    reload,
    pin: () => {
      let next = lock;
      for (const entry of entries.values()) {
        const listed = entry.upstream?.tools;
        if (listed) next = pinServer(next, entry.spec.name, listed, eraOf(entry), entry.upstream?.prior);
      }
      lock = next;
      writeLock(lockFile, lock);
      for (const entry of entries.values()) entry.reported.clear();
      rebuild();
    },
    close() {
      closing ??= (async () => {
        for (const watcher of watchers) watcher.close();
        await reloading.catch(() => {});
        await Promise.all([...entries.values()].map((entry) => entry.upstream?.close()));
        await registry.close();
      })();
      return closing;
    },
  };
  return gateway;
}

/** `<config>.lock.json` beside the config, e.g. `mcp.json` → `mcp.lock.json`. */
export function defaultLockFile(configFile: string): string {
  const name = basename(configFile).replace(/\.jsonc?$/i, '');
  return join(dirname(configFile), `${name}.lock.json`);
}

/** Two entries that start the same process: only overrides, prefixes or search settings differ. */
function sameProcess(a: GatewayServer, b: GatewayServer): boolean {
  return (
    a.enabled === b.enabled &&
    JSON.stringify([a.target, a.sandbox ?? null, a.timeoutMs ?? null]) ===
      JSON.stringify([b.target, b.sandbox ?? null, b.timeoutMs ?? null])
  );
}

/** The gate, except for withheld tools: their calls are refused by the tool itself, never asked about. */
function withheldPassGate(gate: BeforeCallHook | undefined): BeforeCallHook | undefined {
  if (!gate) return undefined;
  return (request) =>
    request.meta.withheld === true
      ? { action: 'allow', reason: 'the gateway withholds this tool and refuses the call itself' }
      : gate(request);
}

/**
 * What stands in for a withheld tool: a neutral contract (the changed description never reaches the
 * model) whose every call is refused with `tool_definition_changed`.
 */
function withheldTool(withheld: WithheldTool): AnyTool {
  const why =
    withheld.reason === 'changed'
      ? `The definition of "${withheld.remoteName}" on the MCP server "${withheld.server}" changed since it was pinned`
      : `"${withheld.remoteName}" is a new tool of the MCP server "${withheld.server}", and new tools are withheld until accepted`;
  return createTool(
    {
      name: withheld.name,
      description: `Withheld by the gateway until an operator accepts its current definition. Calls are refused.`,
      parameters: { type: 'object' },
      category: 'read',
    },
    {
      meta: {
        source: `mcp:${withheld.server}`,
        server: withheld.server,
        remoteName: withheld.remoteName,
        withheld: true,
      },
      execute() {
        throw new ToolError(
          `${why}, so the gateway withholds it until an operator reviews the change and accepts it with "toolpact gateway pin". Do not retry; use another tool or tell the user.`,
          {
            type: DEFINITION_CHANGED,
            details: { server: withheld.server, remoteName: withheld.remoteName, reason: withheld.reason },
          },
        );
      },
    },
  );
}

/**
 * The input schema with the config's parameter descriptions: each dotted path (`path`,
 * `options.depth`) names a property through nested `properties`; a path the schema lacks is reported.
 */
function describeParameters(
  schema: JsonSchema,
  descriptions: { readonly [path: string]: string },
  missing: (path: string) => void,
): JsonSchema {
  const copy = structuredClone(schema) as JsonSchema;
  for (const [path, description] of Object.entries(descriptions)) {
    let node: JsonSchema | undefined = copy;
    for (const key of path.split('.')) {
      const properties: unknown = node?.properties;
      const next =
        properties && typeof properties === 'object' && Object.hasOwn(properties, key)
          ? (properties as Record<string, unknown>)[key]
          : undefined;
      node = next && typeof next === 'object' ? (next as JsonSchema) : undefined;
      if (!node) break;
    }
    if (node) (node as { description?: string }).description = description;
    else missing(path);
  }
  return copy;
}

/** Watches one file through its folder (editors save by renaming), calling `changed` once per burst. */
function watchFile(file: string, changed: () => void): FSWatcher {
  let timer: NodeJS.Timeout | undefined;
  const name = basename(file);
  const watcher = watch(dirname(file), (_event, changedName) => {
    if (changedName !== null && changedName.toString() !== name) return;
    clearTimeout(timer);
    timer = setTimeout(changed, 150);
    timer.unref();
  });
  watcher.on('error', () => {});
  watcher.unref();
  return watcher;
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

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
