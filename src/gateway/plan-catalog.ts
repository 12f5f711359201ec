import {
  CATALOG_KINDS,
  type CatalogItem,
  type CatalogItems,
  type CatalogKind,
  catalogFindings,
  catalogKey,
  markedCatalogFindings,
  type UpstreamCatalog,
} from './catalog.js';
import type { GatewayServer } from './config/types.js';
import type { GatewayLock } from './lock.js';
import { lockedServer } from './lock.js';
import { compareCatalog, ownedPromptNames } from './lock-catalog.js';
import { type NameCollision, Names } from './plan-tools.js';
import type { MarkedFinding } from './poisoning.js';

/** A resource, template or prompt the gateway withholds, as a tool is: changed since pinned, new and held, or with hidden instructions. */
export interface WithheldItem {
  readonly server: string;
  readonly kind: CatalogKind;
  /** Its key on the server: a URI, a URI template or a prompt's name. */
  readonly key: string;
  /** What a client asks for: the same URI or template, or the prompt's served name. */
  readonly name: string;
  readonly reason: 'changed' | 'new' | 'hidden-instructions';
  readonly findings?: readonly MarkedFinding[];
  readonly descriptionDiff?: string;
}

/** A resource or template not served because an earlier server of the config offers the same key. */
export interface ShadowedItem {
  readonly server: string;
  readonly kind: 'resources' | 'templates';
  readonly key: string;
  /** The server that keeps it. */
  readonly owner: string;
}

/** One item the gateway registers, served or withheld. */
export interface PlannedItem<Kind extends CatalogKind = CatalogKind> {
  readonly kind: Kind;
  readonly server: string;
  /** Its key on the server. */
  readonly key: string;
  /** Its key as served: the URI or template as they are (they belong to their server), a prompt's local name. */
  readonly name: string;
  /** The item as the server lists it. */
  readonly item: CatalogItems[Kind];
  readonly withheld?: WithheldItem;
  /** What the registered item is built from: an equal key means the one already registered can stay. */
  readonly buildKey: string;
}

/** What the plan says of one server's catalog. */
export interface CatalogServerPlan {
  readonly withheld: readonly WithheldItem[];
  readonly shadowed: readonly ShadowedItem[];
  /** Prompts served under a prefixed name because their own is another's. */
  readonly collisions: readonly NameCollision[];
  /** Pinned items the server no longer lists, as `<kind> <key>`. */
  readonly removed: readonly string[];
}

/** What the gateway serves besides tools. */
export interface CatalogPlan {
  readonly resources: readonly PlannedItem<'resources'>[];
  readonly templates: readonly PlannedItem<'templates'>[];
  readonly prompts: readonly PlannedItem<'prompts'>[];
  /** By server name, for every enabled server that has listed a catalog. */
  readonly servers: ReadonlyMap<string, CatalogServerPlan>;
}

/** What {@link planCatalog} decides from. */
export interface CatalogPlanInput {
  /** The config's servers, in config order, disabled ones included. */
  readonly servers: readonly GatewayServer[];
  readonly newTools: 'allow' | 'withhold';
  readonly lock: GatewayLock;
  /** What each server lists now besides tools; absent while it has not listed. */
  readonly catalogs: ReadonlyMap<string, UpstreamCatalog | undefined>;
}

/**
 * Decides, from what is configured, pinned and listed, which resources, templates and prompts the
 * gateway serves. Pure: no process, file or clock.
 *
 * A resource URI or a URI template stays as its server gives it: two servers offering the same one,
 * the first in config order serves it and the other's is {@link ShadowedItem shadowed}. A prompt's
 * name is owned in the lock as a tool's is, and a prompt that owns none is named in config order,
 * prefixed with its server's name when its own is taken (a {@link NameCollision}). An item is withheld
 * as a tool is: its pinned text changed, it is new while `newTools` is `withhold` (and its kind was
 * pinned before), or it is new with hidden instructions.
 *
 * @example
 * const plan = planCatalog({ servers: config.servers, newTools: 'allow', lock, catalogs });
 * for (const prompt of plan.prompts) console.log(prompt.name, prompt.server, prompt.withheld ? 'withheld' : 'served');
 */
export function planCatalog(input: CatalogPlanInput): CatalogPlan {
  const names = new Names(ownedPromptNames(input.lock), input.servers, new Set());
  const owners = { resources: new Map<string, string>(), templates: new Map<string, string>() };
  const planned = {
    resources: [] as PlannedItem[],
    templates: [] as PlannedItem[],
    prompts: [] as PlannedItem[],
  };
  const servers = new Map<string, CatalogServerPlan>();
  for (const spec of input.servers) {
    if (!spec.enabled) continue;
    const catalog = input.catalogs.get(spec.name);
    if (!catalog) continue;
    const locked = lockedServer(input.lock, spec.name);
    const withheld: WithheldItem[] = [];
    const shadowed: ShadowedItem[] = [];
    const removed: string[] = [];
    let collisions: NameCollision[] = [];
    for (const kind of CATALOG_KINDS) {
      const listed = unique(kind, (catalog[kind] as readonly CatalogItem[] | undefined) ?? []);
      const section = locked?.[kind];
      const comparison = compareCatalog(section, kind, listed);
      const changed = new Map(comparison.changed.map((change) => [change.key, change]));
      removed.push(...comparison.removed.map((key) => `${kind} ${key}`));
      const served = new Map<string, string>();
      if (kind === 'prompts') {
        const assigned = names.assign(
          spec,
          listed.map((item) => item.name),
        );
        collisions = assigned.collisions;
        for (const { remote, local } of assigned.names) if (local !== undefined) served.set(remote, local);
      }
      for (const item of listed) {
        const key = catalogKey(kind, item);
        let name = key;
        if (kind === 'prompts') {
          const local = served.get(key);
          if (local === undefined) continue;
          name = local;
        } else {
          const taken = owners[kind].get(key);
          if (taken !== undefined) {
            shadowed.push({ server: spec.name, kind, key, owner: taken });
            continue;
          }
          owners[kind].set(key, spec.name);
        }
        const change = changed.get(key);
        const pinned = section !== undefined && Object.hasOwn(section, key);
        const poisoned = !pinned && catalogFindings(kind, item).length > 0;
        const fresh = !pinned && section !== undefined && input.newTools === 'withhold';
        const reason = change ? 'changed' : poisoned ? 'hidden-instructions' : fresh ? 'new' : undefined;
        const hold: WithheldItem | undefined = reason
          ? {
              server: spec.name,
              kind,
              key,
              name,
              reason,
              ...(poisoned ? { findings: markedCatalogFindings(kind, item) } : {}),
              ...(change ? { descriptionDiff: change.descriptionDiff } : {}),
            }
          : undefined;
        if (hold) withheld.push(hold);
        planned[kind].push({
          kind,
          server: spec.name,
          key,
          name,
          item,
          ...(hold ? { withheld: hold } : {}),
          buildKey: hold
            ? JSON.stringify(['withheld', spec.name, kind, key, name, hold.reason])
            : JSON.stringify([spec.name, kind, key, name, item, spec.timeoutMs ?? null]),
        });
      }
    }
    servers.set(spec.name, { withheld, shadowed, collisions, removed });
  }
  return {
    resources: planned.resources as PlannedItem<'resources'>[],
    templates: planned.templates as PlannedItem<'templates'>[],
    prompts: planned.prompts as PlannedItem<'prompts'>[],
    servers,
  };
}

/** The listed items with a key listed twice kept once, by its first listing. */
function unique(kind: CatalogKind, listed: readonly CatalogItem[]): CatalogItem[] {
  const seen = new Set<string>();
  return listed.filter((item) => {
    const key = catalogKey(kind, item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
