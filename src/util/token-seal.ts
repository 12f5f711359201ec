import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

// The sealing of sign-ins to remote MCP servers, shared by the token file (mcp) and the fleet's
// PostgreSQL table (store): AES-256-GCM under a 32-byte key, each record bound to its name, names an
// HMAC of server and principal, and a public key id so that another key is told apart from no record.

/** A token store, key or token file that cannot be used; the message says what to do. */
export class TokenStoreError extends Error {
  override readonly name = 'TokenStoreError';
}

/** One sign-in sealed with AES-256-GCM under the token key, bound to the name it is kept under. */
export interface SealedEntry {
  readonly iv: string;
  readonly tag: string;
  readonly data: string;
}

/** A token key and where it was read from, for messages (`TOOLPACT_TOKEN_KEY`, a key file). */
export interface TokenKey {
  readonly key: Buffer;
  readonly source: string;
}

/** Where a token key comes from. */
export interface TokenKeyOptions {
  /**
   * The 32-byte encryption key, as 64 hex digits or base64. Default: `TOOLPACT_TOKEN_KEY`, else
   * `TOOLPACT_STATE_KEY`.
   */
  readonly key?: string;
  /** Where the keys are read (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * A store of sealed records by server and principal, as the fleet keeps them: a record is read back
 * as whatever was written (JSON). The MCP token stores (`McpTokenStore`) are this for sign-in records.
 */
export interface SealedRecordStore {
  read<Stored extends object>(server: string, principal: string): Promise<Stored | undefined>;
  write(server: string, principal: string, record: object): Promise<void>;
  /** Forgets a record; true when there was one. */
  remove(server: string, principal: string): Promise<boolean>;
}

/**
 * The name a sign-in is kept under: an HMAC of its server and principal under the key, so that a
 * store shows neither. The two are joined unambiguously (as a JSON array).
 */
export function entryName(key: Buffer, server: string, principal: string): string {
  return createHmac('sha256', key)
    .update(JSON.stringify([server, principal]))
    .digest('hex');
}

/**
 * A short public fingerprint of a token key, kept beside what it sealed: a store read with another
 * key is refused instead of reading as if no one had signed in.
 */
export function tokenKeyId(key: Buffer): string {
  return createHmac('sha256', key).update('toolpact token key id').digest('hex').slice(0, 16);
}

/** Seals a record (as JSON) with AES-256-GCM under `key`, bound to `name` (additional data). */
export function sealRecord(record: object, key: Buffer, name: string): SealedEntry {
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

/**
 * Opens what {@link sealRecord} sealed under the same key and name; anything else (another key, a
 * changed or moved entry) is a {@link TokenStoreError} naming `where` and the key's source.
 */
export function openRecord<Stored extends object>(
  entry: SealedEntry,
  key: TokenKey,
  name: string,
  where: string,
): Stored {
  try {
    const iv = Buffer.from(entry.iv, 'base64');
    const tag = Buffer.from(entry.tag, 'base64');
    // Only what seal() writes: a 12-byte IV and a whole 16-byte tag (a cut tag is easier to forge).
    if (iv.length !== 12 || tag.length !== 16) throw new Error('not a sealed entry');
    const decipher = createDecipheriv('aes-256-gcm', key.key, iv, { authTagLength: 16 });
    decipher.setAAD(Buffer.from(name, 'utf8'));
    decipher.setAuthTag(tag);
    const text = Buffer.concat([decipher.update(Buffer.from(entry.data, 'base64')), decipher.final()]);
    return JSON.parse(text.toString('utf8')) as Stored;
  } catch {
    throw new TokenStoreError(
      `A sign-in in ${where} does not open with this key: it was changed, or ${key.source} is not the key it was written with. Set the key it was written with, or sign in again (toolpact gateway logout <server>, then login).`,
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

/**
 * The token key given in `options.key`, else `TOOLPACT_TOKEN_KEY`, else `TOOLPACT_STATE_KEY`;
 * undefined when none is set. A key that is not 32 bytes is a {@link TokenStoreError}.
 */
export function configuredTokenKey(options: TokenKeyOptions): TokenKey | undefined {
  if (options.key !== undefined)
    return { key: parseTokenKey(options.key, 'The token key'), source: 'the token key given' };
  const env = options.env ?? process.env;
  for (const name of ['TOOLPACT_TOKEN_KEY', 'TOOLPACT_STATE_KEY']) {
    const value = env[name];
    if (value?.trim()) return { key: parseTokenKey(value, name), source: name };
  }
  return undefined;
}
