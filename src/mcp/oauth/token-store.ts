import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { withFileLock } from '../../util/file-lock.js';
import {
  configuredTokenKey,
  entryName,
  openRecord,
  parseTokenKey,
  type SealedEntry,
  sealRecord,
  type TokenKey,
  TokenStoreError,
  tokenKeyId,
} from '../../util/token-seal.js';

export { TokenStoreError };

/**
 * What toolpact keeps about one person's sign-in to one remote MCP server: the tokens, the client
 * registration, the discovery results, and, while a sign-in is under way, its PKCE verifier and state.
 */
export interface McpSignInRecord {
  /** The tokens, with `obtainedAt` (milliseconds since the epoch) so that expiry can be told. */
  readonly tokens?: StoredOAuthTokens & { readonly obtainedAt?: number };
  /** The client registration (dynamic, pre-registered or a metadata document URL). */
  readonly client?: StoredOAuthClientInformation;
  /** Protected resource and authorization server metadata, found by discovery. */
  readonly discovery?: OAuthDiscoveryState;
  /** The PKCE verifier of the sign-in under way. */
  readonly verifier?: string;
  /** The `state` of the sign-in under way. */
  readonly state?: string;
  /**
   * In the server's own record (not a person's): the authorization server a configured client (id
   * with a secret or key, and no `issuer` option) was first used with; its credentials go there only.
   */
  readonly clientIssuer?: string;
}

/**
 * Where sign-ins to remote MCP servers are kept, by server and by principal (the person the tokens
 * act for). {@link fileTokenStore} keeps them encrypted in a file, {@link memoryTokenStore} in memory,
 * and `postgresTokenStore` of `toolpact/store` in a fleet's PostgreSQL.
 */
export interface McpTokenStore {
  read(server: string, principal: string): Promise<McpSignInRecord | undefined>;
  write(server: string, principal: string, record: McpSignInRecord): Promise<void>;
  /** Forgets a sign-in; true when there was one. */
  remove(server: string, principal: string): Promise<boolean>;
}

/** A store in memory: for tests, and for a process that signs in anew each time it starts. */
export function memoryTokenStore(): McpTokenStore {
  const records = new Map<string, McpSignInRecord>();
  const id = (server: string, principal: string) => JSON.stringify([server, principal]);
  return {
    read: async (server, principal) => structuredClone(records.get(id(server, principal))),
    write: async (server, principal, record) => {
      records.set(id(server, principal), structuredClone(record));
    },
    remove: async (server, principal) => records.delete(id(server, principal)),
  };
}

/** Where the gateway keeps sign-ins by default: `$XDG_STATE_HOME/toolpact/mcp-tokens.json`. */
export function defaultTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.local', 'state');
  return join(state, 'toolpact', 'mcp-tokens.json');
}

/** Options of {@link fileTokenStore}. */
export interface FileTokenStoreOptions {
  /**
   * The 32-byte encryption key, as 64 hex digits or base64. Default: `TOOLPACT_TOKEN_KEY`, else
   * `TOOLPACT_STATE_KEY`, else a key made once and kept beside the file (`<file>.key`, mode 0600).
   */
  readonly key?: string;
  /** Where the keys are read (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
}

interface TokenFile {
  readonly version: 1;
  /** The {@link tokenKeyId} of the key the entries were sealed with. */
  readonly keyId?: string;
  readonly entries: Record<string, SealedEntry>;
}

/**
 * A token store in one file, each entry sealed with AES-256-GCM. An entry's name is an HMAC of its
 * server and principal under the key, and is bound to its contents as additional data, so the file
 * shows neither whose tokens it holds nor for which server, and an entry moved under another name
 * does not open. The file names its key by {@link tokenKeyId}, so that another key is refused instead
 * of reading as no sign-in. The file is replaced atomically (a new file renamed over it), with mode
 * 0600, in a folder made with mode 0700; each change holds `<file>.lock`, so that processes writing at
 * once (a gateway refreshing while `gateway login` signs in) keep each other's entries.
 *
 * @example
 * const store = fileTokenStore(defaultTokenFile()); // key from TOOLPACT_TOKEN_KEY
 */
export function fileTokenStore(file: string, options: FileTokenStoreOptions = {}): McpTokenStore {
  let cachedKey: TokenKey | undefined;
  const tokenKey = (): TokenKey => {
    cachedKey ??= resolveKey(file, options);
    return cachedKey;
  };
  const key = () => tokenKey().key;

  const load = (): TokenFile => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, entries: {} };
      throw new TokenStoreError(
        `Could not read the token file ${file}: ${(error as Error).message}. Check its owner and mode (0600).`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new TokenStoreError(
        `The token file ${file} is not JSON. Move it aside and sign in again (toolpact gateway login <server>).`,
      );
    }
    const contents = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Partial<TokenFile>;
    const entries = contents.entries;
    if (contents.version !== 1 || typeof entries !== 'object' || entries === null) {
      throw new TokenStoreError(
        `The token file ${file} is not a toolpact token file (version 1). Move it aside and sign in again.`,
      );
    }
    const mine = tokenKeyId(key());
    if (contents.keyId !== undefined && contents.keyId !== mine) {
      throw new TokenStoreError(
        `The token file ${file} was sealed with another key (key id ${String(contents.keyId)}) than ${tokenKey().source} (key id ${mine}). Set the key it was written with, or move the file aside and sign in again (toolpact gateway login <server>).`,
      );
    }
    return { version: 1, entries: entries as Record<string, SealedEntry> };
  };

  const save = (entries: Record<string, SealedEntry>) => {
    const folder = dirname(file);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const contents: TokenFile = { version: 1, keyId: tokenKeyId(key()), entries };
    writeFileSync(temporary, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, file);
  };

  const locked = async <T>(change: () => T): Promise<T> => {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const outcome = await withFileLock(file, change);
    if (outcome.done) return outcome.value;
    throw new TokenStoreError(
      `The token file ${file} stayed locked by another process (${outcome.lock}) for 10 s. If no toolpact process is writing it, remove ${outcome.lock} and try again.`,
    );
  };

  return {
    async read(server, principal) {
      // An empty store is read without its key, so that reading never makes a key file.
      const entries = load().entries;
      if (Object.keys(entries).length === 0) return undefined;
      const name = entryName(key(), server, principal);
      const entry = entries[name];
      if (!entry) return undefined;
      return openRecord(entry, tokenKey(), name, file);
    },
    async write(server, principal, record) {
      const name = entryName(key(), server, principal);
      const sealed = sealRecord(record, key(), name);
      // Read again under the lock, so that what another process wrote to other entries stays.
      await locked(() => save({ ...load().entries, [name]: sealed }));
    },
    async remove(server, principal) {
      if (Object.keys(load().entries).length === 0) return false;
      const name = entryName(key(), server, principal);
      return locked(() => {
        const contents = load();
        if (!(name in contents.entries)) return false;
        const { [name]: _gone, ...rest } = contents.entries;
        save(rest);
        return true;
      });
    },
  };
}

function resolveKey(file: string, options: FileTokenStoreOptions): TokenKey {
  const configured = configuredTokenKey(options);
  if (configured) return configured;
  const keyFile = `${file}.key`;
  const fromFile = () => {
    refuseForeignKeyFile(keyFile);
    return { key: parseTokenKey(readFileSync(keyFile, 'utf8'), keyFile), source: keyFile };
  };
  try {
    return fromFile();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    // `wx`: when two processes make the key at once, one wins and the other reads it.
    writeFileSync(keyFile, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    return { key, source: keyFile };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fromFile();
    throw new TokenStoreError(
      `Could not write the token key ${keyFile}: ${(error as Error).message}. Set TOOLPACT_TOKEN_KEY instead (openssl rand -hex 32).`,
    );
  }
}

/**
 * Refuses a key file that someone else could have chosen or can read: a symbolic link, one owned by
 * another user, or one with any group or other permission. A missing file throws ENOENT as before.
 */
function refuseForeignKeyFile(keyFile: string): void {
  const stat = lstatSync(keyFile);
  const uid = process.getuid?.();
  const problem = stat.isSymbolicLink()
    ? 'is a symbolic link'
    : !stat.isFile()
      ? 'is not a file'
      : uid !== undefined && stat.uid !== uid
        ? `belongs to another user (uid ${stat.uid})`
        : (stat.mode & 0o077) !== 0
          ? `can be read or written by others (mode ${(stat.mode & 0o777).toString(8)})`
          : undefined;
  if (problem) {
    throw new TokenStoreError(
      `The token key ${keyFile} ${problem}, so it is not used: a key someone else chose or can read would open every sign-in. Remove it and sign in again (a new key is made, mode 0600), or set TOOLPACT_TOKEN_KEY (openssl rand -hex 32).`,
    );
  }
}
