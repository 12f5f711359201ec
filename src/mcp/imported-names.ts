import { createHash } from 'node:crypto';
import { WIDE_TOOL_NAME_PATTERN } from '../contract/index.js';
import { nameKeys } from '../schema/names.js';

/** When imported tools get the server's prefix. */
export type PrefixMode = 'on-collision' | 'always' | 'never';

/** The local name of each remote tool, and why it differs from the remote one when it does. */
export interface NamePlan {
  readonly remote: string;
  readonly local: string;
  readonly reason?: 'collision' | 'always' | 'invalid_name';
}

const MAX_LOCAL = 64;

/**
 * Gives each remote tool a local name, deterministically. A name is kept when it is free, that is when
 * neither it nor the alias a provider would give it is in use (a name in
 * MCP's wider profile, with dots or up to 128 characters, is kept too: provider adapters alias it);
 * otherwise (or always, with `prefix: 'always'`) it becomes `<server>_<name>`, where `<server>` is the
 * server label cut to `[a-z0-9_]`, at most 24 characters. A prefixed name never exceeds 64 characters
 * (every provider's limit): a longer one keeps its first 55 characters and ends in `_` plus 8 hex digits
 * of the SHA-256 of the remote name. A remote name outside MCP's profile has each bad character replaced
 * by `_` first. Returns a name of `undefined` when `prefix: 'never'` and the name is taken.
 *
 * @example
 * planNames('fs', ['read_file', 'grep'], new Set(['read_file']), 'on-collision');
 * // [{ remote: 'read_file', local: 'fs_read_file', reason: 'collision' }, { remote: 'grep', local: 'grep' }]
 */
export function planNames(
  server: string,
  remoteNames: readonly string[],
  taken: ReadonlySet<string>,
  prefix: PrefixMode,
): (NamePlan | { readonly remote: string; readonly local: undefined })[] {
  // A name is taken when it, or the alias some provider would give it, is already in use: the
  // registry refuses "a.b" beside "a_b", since OpenAI would see both as "a_b".
  const used = new Set<string>();
  const take = (name: string) => {
    used.add(name);
    for (const key of nameKeys(name)) used.add(key);
  };
  const isTaken = (name: string) => used.has(name) || nameKeys(name).some((key) => used.has(key));
  for (const name of taken) take(name);
  const slug = serverSlug(server);
  return remoteNames.map((remote) => {
    const valid = WIDE_TOOL_NAME_PATTERN.test(remote);
    const base = valid ? remote : fitLength(remote.replace(/[^A-Za-z0-9._-]/g, '_') || 'tool', remote);
    let local: string | undefined = base;
    let reason: NamePlan['reason'] = valid ? undefined : 'invalid_name';
    if (prefix === 'always' || isTaken(base)) {
      if (prefix === 'never') return { remote, local: undefined };
      local = fitLength(`${slug}_${base}`, remote);
      reason = prefix === 'always' ? 'always' : 'collision';
      // A second collision (the prefixed name is taken too) is settled by the hash of the remote name.
      if (isTaken(local)) local = `${local.slice(0, MAX_LOCAL - 9)}_${digest(`${server}\u0000${remote}`)}`;
      if (isTaken(local)) return { remote, local: undefined };
    }
    take(local);
    return reason ? { remote, local, reason } : { remote, local };
  });
}

/**
 * The server label as a name prefix: lowercase `[a-z0-9_]`, at most 24 characters, never empty.
 *
 * @example
 * serverSlug('My Files!'); // 'my_files'
 */
export function serverSlug(server: string): string {
  const slug = server
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 24)
    .replace(/_+$/, '');
  return slug || 'mcp';
}

function fitLength(name: string, remote: string): string {
  return name.length <= MAX_LOCAL ? name : `${name.slice(0, MAX_LOCAL - 9)}_${digest(remote)}`;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}
