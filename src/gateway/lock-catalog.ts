import {
  CATALOG_KINDS,
  type CatalogItem,
  type CatalogKind,
  catalogAcceptKey,
  catalogDigest,
  catalogFindings,
  catalogKey,
  SINGULAR,
  type UpstreamCatalog,
} from './catalog.js';
import { describeDiff } from './description-diff.js';
import {
  byName,
  type GatewayLock,
  type LockedServer,
  type LockedText,
  lockedServer,
  record,
} from './lock.js';

/** A pinned item whose model-visible text is no longer the one the server lists. */
export interface ChangedItem {
  readonly key: string;
  readonly before: LockedText;
  readonly after: LockedText;
  /** The descriptions' diff, or a sentence saying the description is the same. */
  readonly descriptionDiff: string;
}

/** What {@link compareCatalog} found for one kind: keys in listing order (`removed`: lock order). */
export interface CatalogComparison {
  readonly changed: ChangedItem[];
  readonly added: string[];
  readonly removed: string[];
}

/**
 * The lock's entry for a listed item: its digest and its description.
 *
 * @example
 * lockedText('prompts', { name: 'greet', description: 'Greets.' }); // { digest: 'sha256:…', description: 'Greets.' }
 */
export function lockedText(kind: CatalogKind, item: CatalogItem): LockedText {
  return { digest: catalogDigest(kind, item), description: item.description ?? '' };
}

/** The pinned entry of an item, by its own key of the lock's section (never an inherited one). */
export function pinnedItem(
  section: { readonly [key: string]: LockedText } | undefined,
  key: string,
): LockedText | undefined {
  return section && Object.hasOwn(section, key) ? section[key] : undefined;
}

/**
 * Compares a server's pinned items of one kind with what it lists now. With no section in the lock
 * (never listed, or an older lock) every listed item is `added`. A key listed twice counts once.
 *
 * @example
 * const { changed } = compareCatalog(lockedServer(lock, 'everything')?.prompts, 'prompts', prompts);
 */
export function compareCatalog(
  section: { readonly [key: string]: LockedText } | undefined,
  kind: CatalogKind,
  listed: readonly CatalogItem[],
): CatalogComparison {
  const result: CatalogComparison = { changed: [], added: [], removed: [] };
  const seen = new Set<string>();
  for (const item of listed) {
    const key = catalogKey(kind, item);
    if (seen.has(key)) continue;
    seen.add(key);
    const before = pinnedItem(section, key);
    if (!before) {
      result.added.push(key);
      continue;
    }
    const after = lockedText(kind, item);
    if (after.digest === before.digest) continue;
    const descriptionDiff =
      before.description === after.description
        ? 'The description is the same; the name, title, MIME type or arguments changed.'
        : describeDiff(before.description, after.description);
    result.changed.push({ key, before, after, descriptionDiff });
  }
  if (section) for (const key of Object.keys(section)) if (!seen.has(key)) result.removed.push(key);
  return result;
}

/**
 * A new lock in which `server`'s items of the kinds its catalog lists are exactly what it lists now,
 * but for items with hidden instructions that `accepted` does not name (by `catalogAcceptKey`) and the
 * lock did not pin before (what `gateway pin` does). A prompt still listed keeps the name it owns.
 * A server the lock does not know is left as it is (its tools are pinned first). Answers the keys held
 * back, by kind.
 *
 * @example
 * const { lock: next, held } = pinCatalog(lock, 'everything', upstream.catalog, new Set());
 */
export function pinCatalog(
  lock: GatewayLock,
  server: string,
  catalog: UpstreamCatalog,
  accepted: ReadonlySet<string>,
): { lock: GatewayLock; held: { kind: CatalogKind; key: string }[] } {
  const locked = lockedServer(lock, server);
  const held: { kind: CatalogKind; key: string }[] = [];
  if (!locked) return { lock, held };
  let next: LockedServer = locked;
  for (const kind of CATALOG_KINDS) {
    const listed = catalog[kind] as readonly CatalogItem[] | undefined;
    if (!listed) continue;
    const previous = locked[kind];
    const section = record<LockedText>();
    for (const item of listed) {
      const key = catalogKey(kind, item);
      if (Object.hasOwn(section, key)) continue;
      const before = pinnedItem(previous, key);
      if (
        !before &&
        !accepted.has(catalogAcceptKey(server, kind, key)) &&
        catalogFindings(kind, item).length > 0
      ) {
        held.push({ kind, key });
        continue;
      }
      const entry = lockedText(kind, item);
      section[key] = before?.name === undefined ? entry : { ...entry, name: before.name };
    }
    next = { ...next, [kind]: section };
  }
  return { lock: withServer(lock, server, next), held };
}

/**
 * A new lock to which the items of `server`'s catalog the lock does not pin yet are added: every item
 * of a kind never listed before (the server's first listing of it, or a lock older than this section),
 * and, with `newTools: allow`, new items of the others. An item with hidden instructions is never
 * added here (a person accepts it). Changed items are not pinned (they are withheld). Answers the keys
 * held back for hidden instructions, and those added to a section that existed.
 *
 * @example
 * const { lock: next } = addListedCatalog(lock, 'everything', upstream.catalog, 'allow');
 */
export function addListedCatalog(
  lock: GatewayLock,
  server: string,
  catalog: UpstreamCatalog,
  newTools: 'allow' | 'withhold',
): { lock: GatewayLock; held: { kind: CatalogKind; key: string }[]; added: string[] } {
  const locked = lockedServer(lock, server);
  const held: { kind: CatalogKind; key: string }[] = [];
  const added: string[] = [];
  if (!locked) return { lock, held, added };
  let next: LockedServer = locked;
  for (const kind of CATALOG_KINDS) {
    const listed = catalog[kind] as readonly CatalogItem[] | undefined;
    if (!listed) continue;
    const previous = locked[kind];
    if (previous && newTools !== 'allow') continue;
    const section = record<LockedText>();
    if (previous) for (const key of Object.keys(previous)) section[key] = previous[key]!;
    let changed = previous === undefined;
    for (const item of listed) {
      const key = catalogKey(kind, item);
      if (Object.hasOwn(section, key)) continue;
      if (catalogFindings(kind, item).length > 0) {
        held.push({ kind, key });
        continue;
      }
      section[key] = lockedText(kind, item);
      changed = true;
      if (previous) added.push(`${SINGULAR[kind]} ${key}`);
    }
    if (changed) next = { ...next, [kind]: section };
  }
  return { lock: next === locked ? lock : withServer(lock, server, next), held, added };
}

/**
 * The names the lock's prompts own, in lock order (servers, then prompts, by name), each with its owner.
 *
 * @example
 * ownedPromptNames(lock).get('summarize'); // { server: 'notes', remoteName: 'summarize' }
 */
export function ownedPromptNames(
  lock: GatewayLock,
): Map<string, { readonly server: string; readonly remoteName: string }> {
  const owners = new Map<string, { readonly server: string; readonly remoteName: string }>();
  for (const server of Object.keys(lock.servers).sort(byName)) {
    const prompts = lock.servers[server]!.prompts ?? {};
    for (const remoteName of Object.keys(prompts).sort(byName)) {
      const name = prompts[remoteName]!.name;
      if (name !== undefined && !owners.has(name)) owners.set(name, { server, remoteName });
    }
  }
  return owners;
}

/**
 * A new lock in which `server`'s pinned prompts own the names given (by remote name); another
 * server's prompt that held one of them loses it. The same lock comes back when nothing changes.
 *
 * @example
 * namePrompts(lock, 'notes', { summarize: 'notes_summarize' });
 */
export function namePrompts(
  lock: GatewayLock,
  server: string,
  names: { readonly [remoteName: string]: string },
): GatewayLock {
  const own = lockedServer(lock, server)?.prompts;
  if (!own) return lock;
  const given = new Map<string, string>();
  for (const [remote, name] of Object.entries(names)) if (Object.hasOwn(own, remote)) given.set(remote, name);
  const claimed = new Set(given.values());
  let changed = false;
  const servers = record<LockedServer>();
  for (const [serverName, locked] of Object.entries(lock.servers)) {
    if (!locked.prompts) {
      servers[serverName] = locked;
      continue;
    }
    const prompts = record<LockedText>();
    for (const [remote, prompt] of Object.entries(locked.prompts)) {
      let kept = prompt.name;
      if (serverName === server && given.has(remote)) kept = given.get(remote);
      else if (kept !== undefined && claimed.has(kept)) kept = undefined;
      if (kept === prompt.name) {
        prompts[remote] = prompt;
        continue;
      }
      changed = true;
      prompts[remote] = {
        digest: prompt.digest,
        description: prompt.description,
        ...(kept === undefined ? {} : { name: kept }),
      };
    }
    servers[serverName] = { ...locked, prompts };
  }
  return changed ? { version: 1, servers } : lock;
}

function withServer(lock: GatewayLock, server: string, entry: LockedServer): GatewayLock {
  const servers = record<LockedServer>();
  for (const name of Object.keys(lock.servers)) servers[name] = lock.servers[name]!;
  servers[server] = entry;
  return { version: 1, servers };
}
