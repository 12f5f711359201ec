import { basename } from 'node:path';
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { counted } from '../util/counted.js';
import { type CatalogKind, catalogAcceptKey, SINGULAR, type UpstreamCatalog } from './catalog.js';
import { compareTools, type GatewayLock, lockEntry, lockedServer, nameTools, pinServer } from './lock.js';
import { addListedCatalog, namePrompts, pinCatalog } from './lock-catalog.js';
import { readLock, writeLock } from './lock-file.js';
import { acceptKey, hiddenInstructions } from './poisoning.js';

/** The era verdict an upstream keeps (the SDK's `PriorDiscovery`), opaque but for its `kind`. */
export type EraVerdict = { readonly kind: string };

/** Options of {@link LockKeeper}. */
export interface LockKeeperOptions {
  readonly file: string;
  /** `read-only` (as `gateway check`) never writes: pins are kept in memory only. Default `first-start`. */
  readonly pinning?: 'first-start' | 'read-only';
  /** Lines for the operator. */
  readonly log?: (line: string) => void;
}

/**
 * The one owner of the gateway's lock: reads it at start and again when the file changes, pins a
 * server the first time it lists its tools, adds allowed new tools and the server's era, and writes
 * each change atomically. Nothing else reads or writes the lock file while the gateway runs.
 *
 * @example
 * const keeper = new LockKeeper({ file: 'mcp.lock.json', log: console.error });
 * keeper.pinListed('memory', listed, 'allow', upstream.prior);
 */
export class LockKeeper {
  readonly file: string;
  readonly #pinning: 'first-start' | 'read-only';
  readonly #log: (line: string) => void;
  #lock: GatewayLock;

  /** Reads the lock; a lock that exists and cannot be read throws its `LockFileError`. */
  constructor(options: LockKeeperOptions) {
    this.file = options.file;
    this.#pinning = options.pinning ?? 'first-start';
    this.#log = options.log ?? (() => {});
    this.#lock = readLock(this.file) ?? emptyLock();
  }

  /** The lock as it stands. */
  get lock(): GatewayLock {
    return this.#lock;
  }

  /** Reads the file again (it changed: a `gateway pin` elsewhere); false, with a line logged, when it cannot be read. */
  reload(): boolean {
    try {
      this.#lock = readLock(this.file) ?? emptyLock();
      return true;
    } catch (error) {
      this.#log(`the lock could not be read again: ${messageOf(error)}`);
      return false;
    }
  }

  /**
   * A server's listing: the first one pins every tool; after that, with `newTools: allow`, the tools
   * the lock does not know are added. Changed tools are never pinned here (they are withheld).
   */
  pinListed(
    server: string,
    listed: readonly McpTool[],
    newTools: 'allow' | 'withhold',
    prior: EraVerdict | undefined,
  ): void {
    if (this.#pinning === 'read-only') return;
    const locked = lockedServer(this.#lock, server);
    const { clean, held } = withoutPoisoned(server, listed, new Set());
    if (!locked) {
      this.#save(pinServer(this.#lock, server, clean, eraOf(prior), prior));
      this.#log(`${server}: pinned ${counted(clean.length, 'tool definition')} in ${basename(this.file)}.`);
      this.#logHeld(server, held);
      return;
    }
    const { added: all, unchanged } = compareTools(locked, listed);
    // A lock written before definitions were kept gains them as its tools are listed unchanged.
    const bare = unchanged.filter((name) => !locked.tools[name]?.definition);
    if (bare.length > 0) {
      const tools = { ...locked.tools };
      for (const name of bare) {
        const tool = listed.find((each) => each.name === name);
        const entry = tools[name];
        if (tool && entry)
          tools[name] = { ...lockEntry(tool), ...(entry.name === undefined ? {} : { name: entry.name }) };
      }
      this.#save({ ...this.#lock, servers: { ...this.#lock.servers, [server]: { ...locked, tools } } });
    }
    if (newTools !== 'allow') return;
    // A new tool with hidden instructions is never pinned here: a person accepts it by name.
    const added = all.filter((name) => !held.includes(name));
    this.#logHeld(
      server,
      all.filter((name) => held.includes(name)),
    );
    if (added.length === 0) return;
    const current = lockedServer(this.#lock, server) ?? locked;
    const tools = { ...current.tools };
    for (const name of added) {
      const tool = listed.find((each) => each.name === name);
      if (tool) tools[name] = lockEntry(tool);
    }
    this.#save({ ...this.#lock, servers: { ...this.#lock.servers, [server]: { ...current, tools } } });
    this.#log(`${server}: new tools allowed and pinned: ${added.join(', ')}.`);
  }

  /**
   * A server's listing of its resources, templates and prompts: a kind listed for the first time (or
   * absent from an older lock) is pinned whole; after that, with `newTools: allow`, new items are
   * added. Changed items, and new ones with hidden instructions, are never pinned here.
   */
  pinCatalogListed(server: string, catalog: UpstreamCatalog, newTools: 'allow' | 'withhold'): void {
    if (this.#pinning === 'read-only') return;
    const { lock, held, added } = addListedCatalog(this.#lock, server, catalog, newTools);
    this.#logHeldItems(server, held);
    if (lock === this.#lock) return;
    this.#save(lock);
    if (added.length > 0) this.#log(`${server}: new items allowed and pinned: ${added.join(', ')}.`);
  }

  /** Records the name each pinned prompt is served under, so that it owns it among prompts. */
  recordPromptNames(served: readonly ServedName[]): void {
    if (this.#pinning === 'read-only') return;
    const next = withPromptNames(this.#lock, served);
    if (next !== this.#lock) this.#save(next);
  }

  /** The era a server spoke at its start joins the lock, so that the next start does not probe again. */
  pinEra(server: string, prior: EraVerdict | undefined): void {
    const locked = lockedServer(this.#lock, server);
    if (!locked || !prior || JSON.stringify(locked.prior) === JSON.stringify(prior)) return;
    this.#save({
      ...this.#lock,
      servers: { ...this.#lock.servers, [server]: { ...locked, era: eraOf(prior), prior } },
    });
  }

  /**
   * Records the name each pinned tool is served under, so that the tool owns it from now on (another
   * tool that held it in the lock, of a server no longer in the config, loses it).
   */
  recordNames(served: readonly ServedName[]): void {
    if (this.#pinning === 'read-only') return;
    const next = withNames(this.#lock, served);
    if (next !== this.#lock) this.#save(next);
  }

  /**
   * Accepts every listed server's current definitions (what `gateway pin` does), with the names they
   * are served under, and writes the lock whatever the pinning mode; a lock that cannot be written throws.
   */
  pinAll(
    listings: readonly {
      server: string;
      listed: readonly McpTool[];
      prior?: EraVerdict;
      catalog?: UpstreamCatalog;
    }[],
    served: readonly ServedName[],
    accept: ReadonlySet<string> = new Set(),
    prompts: readonly ServedName[] = [],
  ): void {
    let next = this.#lock;
    for (const { server, listed, prior } of listings) {
      // A tool with hidden instructions is pinned only when a person accepts it by name, or was before.
      const locked = lockedServer(next, server);
      const kept = new Set([...accept].filter((key) => key.startsWith(`${server}/`)));
      for (const name of Object.keys(locked?.tools ?? {})) kept.add(acceptKey(server, name));
      const { clean, held } = withoutPoisoned(server, listed, kept);
      this.#logHeld(server, held);
      next = pinServer(next, server, clean, eraOf(prior), prior);
    }
    // Resources, templates and prompts: the same rule, each with its own accept key.
    for (const { server, catalog } of listings) {
      if (!catalog) continue;
      const pinned = pinCatalog(next, server, catalog, accept);
      this.#logHeldItems(server, pinned.held);
      next = pinned.lock;
    }
    next = withPromptNames(withNames(next, served), prompts);
    this.#lock = next;
    writeLock(this.file, next);
  }

  #logHeld(server: string, held: readonly string[]): void {
    for (const name of held) {
      this.#log(
        `${server}: "${name}" has hidden instructions in its definition and is withheld until a person accepts it: toolpact gateway pin --accept ${acceptKey(server, name)} (toolpact gateway check shows the text).`,
      );
    }
  }

  #logHeldItems(server: string, held: readonly { kind: CatalogKind; key: string }[]): void {
    for (const { kind, key } of held) {
      this.#log(
        `${server}: the ${SINGULAR[kind]} "${key}" has hidden instructions in its text and is withheld until a person accepts it: toolpact gateway pin --accept ${catalogAcceptKey(server, kind, key)} (toolpact gateway check shows the text).`,
      );
    }
  }

  #save(next: GatewayLock): void {
    if (this.#pinning === 'read-only') return;
    this.#lock = next;
    try {
      writeLock(this.file, next);
    } catch (error) {
      this.#log(`cannot write the lock ${this.file}: ${messageOf(error)}`);
    }
  }
}

// The listed tools without those whose definition has hidden instructions, unless accepted.
function withoutPoisoned(
  server: string,
  listed: readonly McpTool[],
  accepted: ReadonlySet<string>,
): { clean: McpTool[]; held: string[] } {
  const clean: McpTool[] = [];
  const held: string[] = [];
  for (const tool of listed) {
    if (!accepted.has(acceptKey(server, tool.name)) && hiddenInstructions(tool).length > 0)
      held.push(tool.name);
    else clean.push(tool);
  }
  return { clean, held };
}

/** A tool as served: its server, its name there, and the name it is served under. */
export interface ServedName {
  readonly server: string;
  readonly remoteName: string;
  readonly name: string;
}

function withNames(lock: GatewayLock, served: readonly ServedName[]): GatewayLock {
  return namedBy(lock, served, nameTools);
}

function withPromptNames(lock: GatewayLock, served: readonly ServedName[]): GatewayLock {
  return namedBy(lock, served, namePrompts);
}

// The lock with each server's served names recorded by `name` (tools' or prompts').
function namedBy(
  lock: GatewayLock,
  served: readonly ServedName[],
  name: (lock: GatewayLock, server: string, names: Record<string, string>) => GatewayLock,
): GatewayLock {
  const byServer = new Map<string, Record<string, string>>();
  for (const { server, remoteName, name: local } of served) {
    const names = byServer.get(server) ?? (Object.create(null) as Record<string, string>);
    names[remoteName] = local;
    byServer.set(server, names);
  }
  let next = lock;
  for (const [server, names] of byServer) next = name(next, server, names);
  return next;
}

function eraOf(prior: EraVerdict | undefined): 'modern' | 'legacy' | undefined {
  return prior ? (prior.kind === 'modern' ? 'modern' : 'legacy') : undefined;
}

function emptyLock(): GatewayLock {
  return { version: 1, servers: {} };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
