import { digestOf } from '../util/digest.js';
import { describeDiff } from './description-diff.js';

/** One upstream tool as the gateway pinned it: the digest of its whole definition and its description. */
export interface LockedTool {
  /** `sha256:<hex>` of the definition (see {@link definitionDigest}). */
  readonly digest: string;
  /** The upstream's own description (empty when it gave none), kept so a change can be shown as a diff. */
  readonly description: string;
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
}

/** The gateway's lock file: the pinned definition of every tool of every server. */
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
  return { digest: definitionDigest(tool), description: tool.description ?? '' };
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
 * of another); without it, the recorded ones are kept unless `prior` alone is given.
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
): GatewayLock {
  const previous = lockedServer(lock, server);
  const tools = record<LockedTool>();
  for (const tool of listed) if (!Object.hasOwn(tools, tool.name)) tools[tool.name] = lockEntry(tool);
  const chosenEra = era ?? previous?.era;
  const chosenPrior = prior ?? (era === undefined ? previous?.prior : undefined);
  const entry: LockedServer = {
    ...(chosenEra === undefined ? {} : { era: chosenEra }),
    ...(chosenPrior === undefined ? {} : { prior: chosenPrior }),
    tools,
  };
  const servers = record<LockedServer>();
  if (lock) for (const name of Object.keys(lock.servers)) servers[name] = lock.servers[name]!;
  servers[server] = entry;
  return { version: 1, servers };
}

/** An object without a prototype, so names such as `__proto__` or `constructor` are plain keys. */
export function record<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
