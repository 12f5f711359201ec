import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { SkippedTool } from '../mcp/import-mcp-tools.js';
import { planNames } from '../mcp/imported-names.js';
import type { GatewayServer, ToolOverride } from './config/types.js';
import { compareTools, type GatewayLock, lockedServer } from './lock.js';

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
}

/** What the gateway serves: its tools in the order they are listed, and what each server's plan says. */
export interface ToolPlan {
  readonly tools: readonly PlannedTool[];
  /** By server name, for every enabled server of the config. */
  readonly servers: ReadonlyMap<string, ServerPlan>;
}

/**
 * Decides, from what is configured, pinned and listed, what the gateway serves: each tool's local name
 * (config order decides a collision: a later server's tool is prefixed, see `planNames`), which tools
 * are withheld (a definition changed since the lock, or a new tool under `newTools: withhold`), which
 * are hidden, and what each server no longer lists. A server that has not listed yet still holds the
 * names of its pinned tools, so names do not move while it starts. Pure: no process, file or clock.
 *
 * @example
 * const plan = planTools({ servers: config.servers, newTools: config.newTools, lock, listings });
 * for (const tool of plan.tools) console.log(tool.name, tool.server, tool.withheld ? 'withheld' : 'served');
 */
export function planTools(input: ToolPlanInput): ToolPlan {
  const tools: PlannedTool[] = [];
  const servers = new Map<string, ServerPlan>();
  const taken = new Set(input.reserved ?? []);
  for (const spec of input.servers) {
    if (!spec.enabled) continue;
    const listed = input.listings.get(spec.name);
    const locked = lockedServer(input.lock, spec.name);
    const shown = (name: string) => !spec.tools[name]?.hidden;
    const remoteNames = listed
      ? listed.map((tool) => tool.name).filter(shown)
      : Object.keys(locked?.tools ?? {}).filter(shown);
    const names = planNames(
      spec.name,
      remoteNames,
      taken,
      spec.prefix === 'auto' ? 'on-collision' : spec.prefix,
    );
    for (const plan of names) if (plan.local) taken.add(plan.local);
    if (!listed) {
      servers.set(spec.name, { withheld: [], hidden: [], removed: [], skipped: [], unknownOverrides: [] });
      continue;
    }
    const comparison = locked ? compareTools(locked, listed) : undefined;
    const changed = new Map(comparison?.changed.map((change) => [change.name, change]) ?? []);
    const added = new Set(input.newTools === 'withhold' ? (comparison?.added ?? []) : []);
    const withheld: WithheldTool[] = [];
    const skipped: SkippedTool[] = [];
    for (const plan of names) {
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
      const override = spec.tools[remote.name] ?? {};
      const change = changed.get(remote.name);
      if (change || added.has(remote.name)) {
        const tool: WithheldTool = {
          server: spec.name,
          remoteName: remote.name,
          name: plan.local,
          reason: change ? 'changed' : 'new',
          ...(change ? { descriptionDiff: change.descriptionDiff } : {}),
        };
        withheld.push(tool);
        tools.push({
          name: plan.local,
          server: spec.name,
          remote,
          override,
          withheld: tool,
          withheldDigest: change?.after.digest ?? 'new',
          key: `withheld\u0000${spec.name}\u0000${remote.name}\u0000${tool.reason}`,
        });
        continue;
      }
      tools.push({
        name: plan.local,
        server: spec.name,
        remote,
        override,
        key: JSON.stringify([spec.name, remote, override, spec.timeoutMs ?? null, plan.local]),
      });
    }
    servers.set(spec.name, {
      withheld,
      hidden: listed.filter((tool) => spec.tools[tool.name]?.hidden).map((tool) => tool.name),
      removed: comparison?.removed ?? [],
      skipped,
      unknownOverrides: Object.keys(spec.tools).filter((name) => !listed.some((tool) => tool.name === name)),
    });
  }
  return { tools, servers };
}
