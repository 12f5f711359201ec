import { digestOf } from '../util/digest.js';
import { describeDiff } from './description-diff.js';

/** One upstream tool as the gateway pinned it: the digest of its whole definition and its description. */
export interface LockedTool {
  /** `sha256:<hex>` of the definition (see {@link definitionDigest}). */
  readonly digest: string;
  /** The upstream's own description (empty when it gave none), kept so a change can be shown as a diff. */
  readonly description: string;
  /**
   * The name the gateway serves the tool under, which this tool owns: no other server's tool takes it,
   * whatever the config order. Absent until the gateway has served the tool.
   */
  readonly name?: string;
  /**
   * The rest of the pinned definition (title, schemas, annotations), so that a server still starting
   * has its tools listed from the lock. Served only while it matches `digest`; absent in older locks.
   */
  readonly definition?: LockedDefinition;
}

/** A pinned tool's definition beside its name and description. */
export interface LockedDefinition {
  readonly title?: string;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/** What the lock holds for one server of the gateway's config. */
export interface LockedServer {
  /** The protocol era the server spoke when it was last pinned. */
  readonly era?: 'modern' | 'legacy';
  /**
   * The SDK's era verdict (`PriorDiscovery`), passed back as `prior` so a restart does not probe again.
   * Kept as opaque JSON: only checked to be an object with a string `kind`.
   */
  readonly prior?: unknown;
  /** Pinned tools by their name on the server (not the gateway's prefixed name). */
  readonly tools: { readonly [remoteName: string]: LockedTool };
  /** Pinned resources by URI; absent until the server's resources were first listed (and in older locks). */
  readonly resources?: { readonly [uri: string]: LockedText };
  /** Pinned resource templates by URI template; absent as `resources` is. */
  readonly templates?: { readonly [uriTemplate: string]: LockedText };
  /** Pinned prompts by their name on the server; absent until the server's prompts were first listed. */
  readonly prompts?: { readonly [remoteName: string]: LockedText };
}

/** A pinned resource, resource template or prompt: the digest of its model-visible text, and its description. */
export interface LockedText {
  /** `sha256:<hex>` of the item's model-visible text (see `catalogDigest`). */
  readonly digest: string;
  /** The server's own description (empty when it gave none), kept so a change can be shown as a diff. */
  readonly description: string;
  /** A prompt's name as the gateway serves it, which the prompt owns among prompts (as a tool owns its name). */
  readonly name?: string;
}

/** The gateway's lock file: the pinned definition of every tool of every server, and the name each owns. */
export interface GatewayLock {
  readonly version: 1;
  readonly servers: { readonly [serverName: string]: LockedServer };
}

/** The part of an MCP tool listing the lock pins; the SDK's `Tool` fits it. */
export interface McpToolLike {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/** A pinned tool whose definition is no longer the one the server lists. */
export interface ChangedTool {
  readonly name: string;
  readonly before: LockedTool;
  readonly after: LockedTool;
  /** {@link describeDiff} of the two descriptions, or a sentence saying the description is the same. */
  readonly descriptionDiff: string;
}

/** What {@link compareTools} found: tool names on the server, in listing order (`removed`: lock order). */
export interface ToolComparison {
  readonly unchanged: string[];
  readonly changed: ChangedTool[];
  readonly added: string[];
  readonly removed: string[];
}

/**
 * The digest the lock pins for a tool: SHA-256 of the canonical JSON (keys sorted at every level,
 * undefined left out) of its name, title, description, input schema, output schema and annotations.
 * The same definition listed with its keys in another order gives the same digest; a change to any
 * of those fields gives another.
 *
 * @example
 * definitionDigest({ name: 'add', inputSchema: { type: 'object', properties: {} } });
 * // 'sha256:…' (64 hex digits), equal to the digest of { inputSchema: { properties: {}, type: 'object' }, name: 'add' }
 */
export function definitionDigest(tool: McpToolLike): string {
  return digestOf({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
  });
}

/**
 * The lock's entry for a listed tool: its {@link definitionDigest} and its description.
 *
 * @example
 * lockEntry({ name: 'add', description: 'Adds two numbers.', inputSchema: { type: 'object' } });
 * // { digest: 'sha256:…', description: 'Adds two numbers.' }
 */
export function lockEntry(tool: McpToolLike): LockedTool {
  return {
    digest: definitionDigest(tool),
    description: tool.description ?? '',
    definition: {
      ...(tool.title === undefined ? {} : { title: tool.title }),
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    },
  };
}

/**
 * The tools a server's lock entry can list before the server is up: each pinned tool with a
 * definition whose digest is the pinned one (a definition edited in the lock file is not listed).
 * Undefined when the lock has none for the server.
 *
 * @example
 * const listed = lockedListing(lockedServer(lock, 'github')); // served until github lists its own
 */
export function lockedListing(locked: LockedServer | undefined): McpToolLike[] | undefined {
  if (!locked) return undefined;
  const listed: McpToolLike[] = [];
  for (const [name, entry] of Object.entries(locked.tools)) {
    const definition = entry.definition;
    if (!definition) continue;
    const tool: McpToolLike = {
      name,
      ...(definition.title === undefined ? {} : { title: definition.title }),
      ...(entry.description === '' ? {} : { description: entry.description }),
      inputSchema: definition.inputSchema,
      ...(definition.outputSchema === undefined ? {} : { outputSchema: definition.outputSchema }),
      ...(definition.annotations === undefined ? {} : { annotations: definition.annotations }),
    };
    if (definitionDigest(tool) === entry.digest) listed.push(tool);
  }
  return listed.length > 0 ? listed : undefined;
}

/**
 * The lock's record of one server, or undefined. Looks only at the lock's own entries, so a server
 * named e.g. `constructor` is not mistaken for something inherited.
 *
 * @example
 * const locked = lockedServer(readLock(file), 'github'); // then compareTools(locked, listed)
 */
export function lockedServer(lock: GatewayLock | undefined, server: string): LockedServer | undefined {
  return lock && Object.hasOwn(lock.servers, server) ? lock.servers[server] : undefined;
}

/**
 * Compares a server's pinned tools with what it lists now. With no lock for the server (its first
 * start) every listed tool is `added`. A name listed twice counts once, by its first listing (as
 * `importMcpTools` keeps it).
 *
 * @example
 * const { changed, added, removed } = compareTools(lockedServer(lock, 'github'), listed);
 * for (const tool of changed) console.error(`github/${tool.name} changed:\n${tool.descriptionDiff}`);
 */
export function compareTools(
  locked: LockedServer | undefined,
  listed: readonly McpToolLike[],
): ToolComparison {
  const result: ToolComparison = { unchanged: [], changed: [], added: [], removed: [] };
  const seen = new Set<string>();
  for (const tool of listed) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    const before = locked && Object.hasOwn(locked.tools, tool.name) ? locked.tools[tool.name] : undefined;
    if (!before) {
      result.added.push(tool.name);
      continue;
    }
    const after = lockEntry(tool);
    if (after.digest === before.digest) {
      result.unchanged.push(tool.name);
      continue;
    }
    const descriptionDiff =
      before.description === after.description
        ? 'The description is the same; the input or output schema, the title or the annotations changed.'
        : describeDiff(before.description, after.description);
    result.changed.push({ name: tool.name, before, after, descriptionDiff });
  }
  if (locked) for (const name of Object.keys(locked.tools)) if (!seen.has(name)) result.removed.push(name);
  return result;
}

/**
 * A new lock in which `server`'s tools are exactly those listed now (what `gateway pin` accepts);
 * other servers are kept, and the lock given is not changed. With `era`, the server's era and prior
 * verdict become `era` and `prior` (none when `prior` is not given, so an era never keeps the verdict
 * of another); without it, the recorded ones are kept unless `prior` alone is given. A tool still
 * listed keeps the name it owns, unless `names` (by remote name) gives it one (see {@link nameTools}).
 *
 * @example
 * const lock = pinServer(readLock(file), 'memory', listed, 'modern', connection.prior);
 * writeLock(file, lock);
 */
export function pinServer(
  lock: GatewayLock | undefined,
  server: string,
  listed: readonly McpToolLike[],
  era?: 'modern' | 'legacy',
  prior?: unknown,
  names?: { readonly [remoteName: string]: string },
): GatewayLock {
  const previous = lockedServer(lock, server);
  const tools = record<LockedTool>();
  const kept = record<string>();
  for (const tool of listed) {
    if (Object.hasOwn(tools, tool.name)) continue;
    tools[tool.name] = lockEntry(tool);
    const owned =
      previous && Object.hasOwn(previous.tools, tool.name) ? previous.tools[tool.name]?.name : undefined;
    if (owned !== undefined) kept[tool.name] = owned;
  }
  const chosenEra = era ?? previous?.era;
  const chosenPrior = prior ?? (era === undefined ? previous?.prior : undefined);
  const entry: LockedServer = {
    // The server's pinned resources, templates and prompts are kept: they are pinned apart from its tools.
    ...(previous?.resources ? { resources: previous.resources } : {}),
    ...(previous?.templates ? { templates: previous.templates } : {}),
    ...(previous?.prompts ? { prompts: previous.prompts } : {}),
    ...(chosenEra === undefined ? {} : { era: chosenEra }),
    ...(chosenPrior === undefined ? {} : { prior: chosenPrior }),
    tools,
  };
  const servers = record<LockedServer>();
  if (lock) for (const name of Object.keys(lock.servers)) servers[name] = lock.servers[name]!;
  servers[server] = entry;
  return nameTools({ version: 1, servers }, server, { ...kept, ...names });
}

/**
 * A new lock in which `server`'s pinned tools own the names given (by remote name); a tool of another
 * server that held one of those names loses it, so a name has one owner. Names for tools the lock does
 * not pin are left out. The lock given is not changed; the same lock comes back when nothing changes.
 *
 * @example
 * nameTools(lock, 'notes', { read_note: 'read_note', search: 'notes_search' });
 */
export function nameTools(
  lock: GatewayLock,
  server: string,
  names: { readonly [remoteName: string]: string },
): GatewayLock {
  const own = lockedServer(lock, server);
  if (!own) return lock;
  const given = new Map<string, string>();
  for (const [remote, name] of Object.entries(names))
    if (Object.hasOwn(own.tools, remote)) given.set(remote, name);
  const claimed = new Set(given.values());
  let changed = false;
  const servers = record<LockedServer>();
  for (const [serverName, locked] of Object.entries(lock.servers)) {
    const tools = record<LockedTool>();
    for (const [remote, tool] of Object.entries(locked.tools)) {
      let kept = tool.name;
      if (serverName === server && given.has(remote)) kept = given.get(remote);
      else if (kept !== undefined && claimed.has(kept)) kept = undefined;
      if (kept === tool.name) {
        tools[remote] = tool;
        continue;
      }
      changed = true;
      tools[remote] = {
        digest: tool.digest,
        description: tool.description,
        ...(kept === undefined ? {} : { name: kept }),
        ...(tool.definition === undefined ? {} : { definition: tool.definition }),
      };
    }
    servers[serverName] = { ...locked, tools };
  }
  return changed ? { version: 1, servers } : lock;
}

/**
 * The names the lock's tools own, in lock order (servers, then their tools, by name), each with its
 * owner. A name recorded twice (a lock edited by hand) keeps its first owner.
 *
 * @example
 * ownedNames(lock).get('read_note'); // { server: 'notes', remoteName: 'read_note' }
 */
export function ownedNames(
  lock: GatewayLock,
): Map<string, { readonly server: string; readonly remoteName: string }> {
  const owners = new Map<string, { readonly server: string; readonly remoteName: string }>();
  for (const server of Object.keys(lock.servers).sort(byName)) {
    const tools = lock.servers[server]!.tools;
    for (const remoteName of Object.keys(tools).sort(byName)) {
      const name = tools[remoteName]!.name;
      if (name !== undefined && !owners.has(name)) owners.set(name, { server, remoteName });
    }
  }
  return owners;
}

/** The lock's order: by UTF-16 code units, as the lock file is written. */
export function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An object without a prototype, so names such as `__proto__` or `constructor` are plain keys. */
export function record<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
