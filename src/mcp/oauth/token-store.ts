import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

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
}

/**
 * Where sign-ins to remote MCP servers are kept, by server and by principal (the person the tokens
 * act for). {@link fileTokenStore} keeps them encrypted in a file; {@link memoryTokenStore} in memory.
 */
export interface McpTokenStore {
  read(server: string, principal: string): Promise<McpSignInRecord | undefined>;
  write(server: string, principal: string, record: McpSignInRecord): Promise<void>;
  /** Forgets a sign-in; true when there was one. */
  remove(server: string, principal: string): Promise<boolean>;
}

/** A token store, key or token file that cannot be used; the message says what to do. */
export class TokenStoreError extends Error {
  override readonly name = 'TokenStoreError';
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

interface SealedEntry {
  readonly iv: string;
  readonly tag: string;
  readonly data: string;
}

interface TokenFile {
  readonly version: 1;
  readonly entries: Record<string, SealedEntry>;
}

/**
 * A token store in one file, each entry sealed with AES-256-GCM. An entry's name is an HMAC of its
 * server and principal under the key, and is bound to its contents as additional data, so the file
 * shows neither whose tokens it holds nor for which server, and an entry moved under another name
 * does not open. The file is replaced atomically (a new file renamed over it), with mode 0600, in a
 * folder made with mode 0700.
 *
 * @example
 * const store = fileTokenStore(defaultTokenFile()); // key from TOOLPACT_TOKEN_KEY
 */
export function fileTokenStore(file: string, options: FileTokenStoreOptions = {}): McpTokenStore {
  let cachedKey: Buffer | undefined;
  const key = (): Buffer => {
    cachedKey ??= resolveKey(file, options);
    return cachedKey;
  };
  const nameOf = (server: string, principal: string) =>
    createHmac('sha256', key()).update(`${server}\u0000${principal}`).digest('hex');

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
    const entries = (parsed as { entries?: unknown } | null)?.entries;
    if ((parsed as { version?: unknown }).version !== 1 || typeof entries !== 'object' || entries === null) {
      throw new TokenStoreError(
        `The token file ${file} is not a toolpact token file (version 1). Move it aside and sign in again.`,
      );
    }
    return { version: 1, entries: entries as Record<string, SealedEntry> };
  };

  const save = (contents: TokenFile) => {
    const folder = dirname(file);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, file);
  };

  return {
    async read(server, principal) {
      // An empty store is read without its key, so that reading never makes a key file.
      const entries = load().entries;
      if (Object.keys(entries).length === 0) return undefined;
      const name = nameOf(server, principal);
      const entry = entries[name];
      if (!entry) return undefined;
      return open(entry, key(), name, file);
    },
    async write(server, principal, record) {
      const name = nameOf(server, principal);
      // Read again just before writing, so that what another process wrote to other entries stays.
      const contents = load();
      save({ version: 1, entries: { ...contents.entries, [name]: seal(record, key(), name) } });
    },
    async remove(server, principal) {
      const contents = load();
      if (Object.keys(contents.entries).length === 0) return false;
      const name = nameOf(server, principal);
      if (!(name in contents.entries)) return false;
      const { [name]: _gone, ...rest } = contents.entries;
      save({ version: 1, entries: rest });
      return true;
    },
  };
}

function seal(record: McpSignInRecord, key: Buffer, name: string): SealedEntry {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(name, 'utf8'));
  const data = Buffer.concat([cipher.update(JSON.stringify(record), 'utf8'), cipher.final()]);
  return {
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
}

function open(entry: SealedEntry, key: Buffer, name: string, file: string): McpSignInRecord {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(entry.iv, 'base64'));
    decipher.setAAD(Buffer.from(name, 'utf8'));
    decipher.setAuthTag(Buffer.from(entry.tag, 'base64'));
    const text = Buffer.concat([decipher.update(Buffer.from(entry.data, 'base64')), decipher.final()]);
    return JSON.parse(text.toString('utf8')) as McpSignInRecord;
  } catch {
    throw new TokenStoreError(
      `A sign-in in ${file} does not open with this key: the file was changed, or TOOLPACT_TOKEN_KEY is not the key it was written with. Set the key it was written with, or sign in again (toolpact gateway logout <server>, then login).`,
    );
  }
}

/** Reads a 32-byte key written as 64 hex digits or as base64. */
export function parseTokenKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) {
    throw new TokenStoreError(
      `${source} must be 32 random bytes, as 64 hex digits or base64; received ${trimmed.length} characters. Make one with: openssl rand -hex 32`,
    );
  }
  return key;
}

function resolveKey(file: string, options: FileTokenStoreOptions): Buffer {
  if (options.key !== undefined) return parseTokenKey(options.key, 'The token key');
  const env = options.env ?? process.env;
  if (env.TOOLPACT_TOKEN_KEY?.trim()) return parseTokenKey(env.TOOLPACT_TOKEN_KEY, 'TOOLPACT_TOKEN_KEY');
  if (env.TOOLPACT_STATE_KEY?.trim()) return parseTokenKey(env.TOOLPACT_STATE_KEY, 'TOOLPACT_STATE_KEY');
  const keyFile = `${file}.key`;
  try {
    return parseTokenKey(readFileSync(keyFile, 'utf8'), keyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    // `wx`: when two processes make the key at once, one wins and the other reads it.
    writeFileSync(keyFile, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return parseTokenKey(readFileSync(keyFile, 'utf8'), keyFile);
    throw new TokenStoreError(
      `Could not write the token key ${keyFile}: ${(error as Error).message}. Set TOOLPACT_TOKEN_KEY instead (openssl rand -hex 32).`,
    );
  }
}
