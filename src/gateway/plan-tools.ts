import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { SkippedTool } from '../mcp/import-mcp-tools.js';
import { planNames } from '../mcp/imported-names.js';
import type { GatewayServer, ToolOverride } from './config/types.js';
import { byName, compareTools, type GatewayLock, lockedListing, lockedServer, ownedNames } from './lock.js';
import { hiddenInstructions, type MarkedFinding, markedFindings } from './poisoning.js';

/** A tool the gateway withholds: its definition changed since it was pinned, or it is new and new tools are withheld. */
export interface WithheldTool {
  readonly server: string;
  readonly remoteName: string;
  /** The local name a call uses. */
  readonly name: string;
  /**
   * `changed` since it was pinned, `new` under `newTools: withhold`, or `hidden-instructions`: new, with
   * an error-level hidden-instruction finding, until a person accepts it.
   */
  readonly reason: 'changed' | 'new' | 'hidden-instructions';
  /** For `hidden-instructions`: what was found, with the text marked. */
  readonly findings?: readonly MarkedFinding[];
  /** For a changed tool, the description's diff against the pinned one. */
  readonly descriptionDiff?: string;
}

/** What {@link planTools} decides from. */
export interface ToolPlanInput {
  /** The config's servers, in config order, disabled ones included. */
  readonly servers: readonly GatewayServer[];
  /** `toolpact.newTools`. */
  readonly newTools: 'allow' | 'withhold';
  readonly lock: GatewayLock;
  /** What each server lists now, by server name; absent (or undefined) while it has not listed yet. */
  readonly listings: ReadonlyMap<string, readonly McpTool[] | undefined>;
  /** Names already in use outside the gateway's servers, never given to a server's tool. */
  readonly reserved?: Iterable<string>;
}

/** One tool the gateway registers: served, or standing in for a withheld one. */
export interface PlannedTool {
  /** The local name a call uses. */
  readonly name: string;
  readonly server: string;
  /** The tool as the server lists it. */
  readonly remote: McpTool;
  /** `toolpact.servers.<server>.tools.<remote name>`, or `{}`. */
  readonly override: ToolOverride;
  /** Present when the tool is withheld; its call is refused. */
  readonly withheld?: WithheldTool;
  /** For a withheld tool: the digest of the definition withheld (`new` for a new tool), to report each change once. */
  readonly withheldDigest?: string;
  /** What the registered tool is built from: an equal key means the tool already registered can stay. */
  readonly key: string;
}

/** What the plan says of one server. */
export interface ServerPlan {
  readonly withheld: readonly WithheldTool[];
  /** Remote names the config hides. */
  readonly hidden: readonly string[];
  /** Remote names in the lock that the server no longer lists. */
  readonly removed: readonly string[];
  /** Tools not served for their name (`name_taken` under `prefix: never`). */
  readonly skipped: readonly SkippedTool[];
  /** Remote names `toolpact.servers.<server>.tools` gives overrides for that the server does not list. */
  readonly unknownOverrides: readonly string[];
  /** Tools that own no name yet and whose own name is held by another, so they are served prefixed. */
  readonly collisions: readonly NameCollision[];
}

/** A tool served under a prefixed name because its own name belongs to another tool. */
export interface NameCollision {
  readonly server: string;
  readonly remoteName: string;
  /** The name it is served under. */
  readonly name: string;
  /** The name it would have had. */
  readonly wanted: string;
  /** Who holds the name: another server's tool, or nobody of the gateway's (a name held outside it). */
  readonly owner?: { readonly server: string; readonly remoteName: string };
}

/** What the gateway serves: its tools in the order they are listed, and what each server's plan says. */
export interface ToolPlan {
  readonly tools: readonly PlannedTool[];
  /** By server name, for every enabled server of the config. */
  readonly servers: ReadonlyMap<string, ServerPlan>;
}

/**
 * Decides, from what is configured, pinned and listed, what the gateway serves: each tool's local name,
 * which tools are withheld (a definition changed since the lock, or a new tool under `newTools:
 * withhold`), which are hidden, and what each server no longer lists. Pure: no process, file or clock.
 *
 * Names are owned. A tool whose name the lock records keeps it, and no other server's tool takes a name
 * the lock gives a server of the config, whatever the config order and whether or not that server has
 * listed yet. A tool that owns no name yet is named in config order (`planNames`: its own name when
 * free, else prefixed with its server's, which is a {@link NameCollision}). A name the lock gives a
 * server no longer in the config is free. Tools come in a stable order: pinned tools in lock order
 * (servers, then their tools, by name), then the others by name, whichever server listed first.
 *
 * @example
 * const plan = planTools({ servers: config.servers, newTools: config.newTools, lock, listings });
 * for (const tool of plan.tools) console.log(tool.name, tool.server, tool.withheld ? 'withheld' : 'served');
 */
export function planTools(input: ToolPlanInput): ToolPlan {
  const reserved = new Set(input.reserved ?? []);
  const names = new Names(ownedNames(input.lock), input.servers, reserved);
  const tools: PlannedTool[] = [];
  const servers = new Map<string, ServerPlan>();
  for (const spec of input.servers) {
    if (!spec.enabled) continue;
    const locked = lockedServer(input.lock, spec.name);
    // A server that has not listed yet (still starting) serves its pinned tools from the lock.
    const listed = input.listings.get(spec.name) ?? (lockedListing(locked) as McpTool[] | undefined);
    const shown = (name: string) => !spec.tools[name]?.hidden;
    const remoteNames = listed
      ? listed.map((tool) => tool.name).filter(shown)
      : Object.keys(locked?.tools ?? {}).filter(shown);
    const named = names.assign(spec, remoteNames);
    if (!listed) {
      servers.set(spec.name, { ...EMPTY_PLAN });
      continue;
    }
    const comparison = locked ? compareTools(locked, listed) : undefined;
    const changed = new Map(comparison?.changed.map((change) => [change.name, change]) ?? []);
    const added = new Set(input.newTools === 'withhold' ? (comparison?.added ?? []) : []);
    const withheld: WithheldTool[] = [];
    const skipped: SkippedTool[] = [];
    for (const { remote: remoteName, local } of named.names) {
      const remote = listed.find((tool) => tool.name === remoteName);
      if (!remote) continue;
      if (!local) {
        skipped.push({
          remoteName,
          code: 'name_taken',
          message: `Another server's tool is named "${remoteName}" and prefix is "never"; set toolpact.servers.${spec.name}.prefix to "auto".`,
        });
        continue;
      }
      const override = spec.tools[remote.name] ?? {};
      const change = changed.get(remote.name);
      // A tool seen for the first time whose definition carries hidden instructions is withheld
      // until a person accepts it, whatever newTools says.
      const poisoned =
        !change &&
        !(locked && Object.hasOwn(locked.tools, remote.name)) &&
        hiddenInstructions(remote).length > 0;
      if (change || added.has(remote.name) || poisoned) {
        const tool: WithheldTool = {
          server: spec.name,
          remoteName: remote.name,
          name: local,
          reason: change ? 'changed' : poisoned ? 'hidden-instructions' : 'new',
          ...(poisoned
            ? {
                findings: markedFindings({
                  name: remote.name,
                  ...(typeof remote.title === 'string' ? { title: remote.title } : {}),
                  ...(typeof remote.description === 'string' ? { description: remote.description } : {}),
                  inputSchema: remote.inputSchema,
                }),
              }
            : {}),
          ...(change ? { descriptionDiff: change.descriptionDiff } : {}),
        };
        withheld.push(tool);
        tools.push({
          name: local,
          server: spec.name,
          remote,
          override,
          withheld: tool,
          withheldDigest: change?.after.digest ?? (poisoned ? 'hidden-instructions' : 'new'),
          key: `withheld\u0000${spec.name}\u0000${remote.name}\u0000${tool.reason}`,
        });
        continue;
      }
      tools.push({
        name: local,
        server: spec.name,
        remote,
        override,
        key: JSON.stringify([spec.name, remote, override, spec.timeoutMs ?? null, local]),
      });
    }
    servers.set(spec.name, {
      withheld,
      hidden: listed.filter((tool) => spec.tools[tool.name]?.hidden).map((tool) => tool.name),
      removed: comparison?.removed ?? [],
      skipped,
      unknownOverrides: Object.keys(spec.tools).filter((name) => !listed.some((tool) => tool.name === name)),
      collisions: named.collisions.filter((collision) =>
        listed.some((tool) => tool.name === collision.remoteName),
      ),
    });
  }
  return { tools: inListOrder(tools, input.lock), servers };
}

const EMPTY_PLAN: ServerPlan = {
  withheld: [],
  hidden: [],
  removed: [],
  skipped: [],
  unknownOverrides: [],
  collisions: [],
};

/** Pinned tools in lock order (servers, then their tools, by name), then the others by name. */
function inListOrder(tools: readonly PlannedTool[], lock: GatewayLock): PlannedTool[] {
  const pinned = (tool: PlannedTool) => {
    const locked = lockedServer(lock, tool.server);
    return locked !== undefined && Object.hasOwn(locked.tools, tool.remote.name);
  };
  const inLock = tools.filter(pinned);
  const others = tools.filter((tool) => !pinned(tool));
  inLock.sort((a, b) => byName(a.server, b.server) || byName(a.remote.name, b.remote.name));
  others.sort((a, b) => byName(a.name, b.name));
  return [...inLock, ...others];
}

/**
 * The names in use while a plan is made: those held outside the gateway, those the lock gives the
 * config's servers (`owners`: the tools' names, or the prompts'), and those given so far.
 *
 * @example
 * const names = new Names(ownedNames(lock), config.servers, new Set());
 * const { names: served, collisions } = names.assign(spec, ['read_file', 'search']);
 */
export class Names {
  readonly #owners: Map<string, { readonly server: string; readonly remoteName: string }>;
  readonly #reserved: ReadonlySet<string>;
  readonly #taken: Set<string>;
  readonly #holders = new Map<string, { readonly server: string; readonly remoteName: string }>();

  constructor(
    owners: ReadonlyMap<string, { readonly server: string; readonly remoteName: string }>,
    servers: readonly GatewayServer[],
    reserved: ReadonlySet<string>,
  ) {
    const configured = new Set(servers.map((server) => server.name));
    this.#owners = new Map(
      [...owners].filter(([name, owner]) => configured.has(owner.server) && !reserved.has(name)),
    );
    this.#reserved = reserved;
    this.#taken = new Set([...reserved, ...this.#owners.keys()]);
  }

  /** Names for a server's tools: the ones they own, then the others in order, in config order across servers. */
  assign(
    spec: GatewayServer,
    remoteNames: readonly string[],
  ): { names: { remote: string; local: string | undefined }[]; collisions: NameCollision[] } {
    const owned = new Map<string, string>();
    for (const [name, owner] of this.#owners) {
      // Under prefix "always" a name owned without the prefix is not the server's to keep.
      if (owner.server === spec.name && (spec.prefix !== 'always' || name !== owner.remoteName)) {
        owned.set(owner.remoteName, name);
      }
    }
    const fresh = remoteNames.filter((remote) => !owned.has(remote));
    // planNames weighs every name in use, so it is asked only when there is a tool to name.
    const planned =
      fresh.length === 0
        ? []
        : planNames(spec.name, fresh, this.#taken, spec.prefix === 'auto' ? 'on-collision' : spec.prefix);
    const byRemote = new Map(planned.map((plan) => [plan.remote, plan]));
    const collisions: NameCollision[] = [];
    const names = remoteNames.map((remote) => {
      const own = owned.get(remote);
      if (own !== undefined) return { remote, local: own };
      const plan = byRemote.get(remote);
      const local = plan?.local;
      if (local !== undefined) {
        this.#taken.add(local);
        this.#holders.set(local, { server: spec.name, remoteName: remote });
      }
      if (plan && 'reason' in plan && plan.reason === 'collision') {
        const owner = this.#owners.get(remote) ?? this.#holders.get(remote);
        collisions.push({
          server: spec.name,
          remoteName: remote,
          name: local as string,
          wanted: remote,
          ...(owner && !this.#reserved.has(remote) ? { owner } : {}),
        });
      }
      return { remote, local };
    });
    return { names, collisions };
  }
}
