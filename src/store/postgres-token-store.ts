import type { Pool } from 'pg';
import {
  configuredTokenKey,
  entryName,
  openRecord,
  type SealedRecordStore,
  sealRecord,
  TokenStoreError,
  tokenKeyId,
} from '../util/token-seal.js';
import { type PostgresStore, poolOf, reasonOf } from './postgres-store.js';
import { StoreError } from './store-error.js';

/** Options of {@link postgresTokenStore}. */
export interface PostgresTokenStoreOptions {
  /**
   * The 32-byte encryption key, as 64 hex digits or base64, the same on every replica. Default:
   * `TOOLPACT_TOKEN_KEY`, else `TOOLPACT_STATE_KEY`, read from `env`.
   */
  readonly key?: string;
  /** Where the keys are read (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
}

/** What {@link postgresTokenStore} answers: an MCP token store (`McpTokenStore` of `toolpact/mcp`). */
export type PostgresTokenStore = SealedRecordStore;

/** How long a check that the rows hold no other key is trusted, in milliseconds. */
const KEY_CHECK_MS = 60_000;

/**
 * The fleet's store of sign-ins to remote MCP servers, in the `mcp_tokens` table of the shared store,
 * sealed as the token file seals them (AES-256-GCM, the row named by an HMAC of server and principal
 * and bound to it), so every replica sees the sign-ins the others made and the database holds no
 * token, server name or principal in clear. Each row names its key by fingerprint: a replica with
 * another key is refused ({@link TokenStoreError}) instead of reading as if no one had signed in.
 * A key must be given (there is no key file to fall back on in a fleet); without one this throws.
 *
 * @example
 * const store = await openPostgresStore(process.env.TOOLPACT_STORE!);
 * const tokens = postgresTokenStore(store); // key from TOOLPACT_TOKEN_KEY
 * await importMcpTools(registry, { url }, { auth: { store: tokens, principal: 'auth:alice@…' } });
 */
export function postgresTokenStore(
  store: PostgresStore,
  options: PostgresTokenStoreOptions = {},
): PostgresTokenStore {
  const pool = poolOf(store);
  const key = configuredTokenKey(options);
  if (!key) {
    throw new TokenStoreError(
      'The PostgreSQL token store needs a key that every replica shares, and none is set. Set TOOLPACT_TOKEN_KEY (or TOOLPACT_STATE_KEY) to 32 random bytes, the same on each replica: openssl rand -hex 32',
    );
  }
  const keyId = tokenKeyId(key.key);
  const where = `the store at ${store.where}`;
  const refuseOtherKey = (found: string) => {
    throw new TokenStoreError(
      `The sign-ins in ${where} were sealed with another key (key id ${found}) than ${key.source} (key id ${keyId}). Give every replica the key they were written with, or remove the sign-ins (toolpact gateway logout <server>) and sign in again.`,
    );
  };
  // A passed check holds for a minute: a replica with another key is refused by its own check, and
  // calls of people who have not signed in (each a read that finds nothing) cost no extra query.
  let checked: { readonly at: number; readonly done: Promise<void> } | undefined;
  const checkNoOtherKey = () => {
    if (checked === undefined || Date.now() - checked.at > KEY_CHECK_MS) {
      const done = (async () => {
        const other = await query(pool, where, 'SELECT key_id FROM mcp_tokens WHERE key_id <> $1 LIMIT 1', [
          keyId,
        ]);
        if (other.rows.length > 0) refuseOtherKey(String(other.rows[0]!.key_id));
      })();
      checked = { at: Date.now(), done };
      done.catch(() => {
        checked = undefined;
      });
    }
    return checked.done;
  };

  return {
    async read<Stored extends object>(server: string, principal: string): Promise<Stored | undefined> {
      const name = entryName(key.key, server, principal);
      const found = await query(pool, where, 'SELECT key_id, iv, tag, data FROM mcp_tokens WHERE name = $1', [
        name,
      ]);
      const row = found.rows[0];
      if (!row) {
        // A name under another key finds nothing: tell that apart from no sign-in.
        await checkNoOtherKey();
        return undefined;
      }
      if (row.key_id !== keyId) refuseOtherKey(String(row.key_id));
      return openRecord<Stored>(
        { iv: String(row.iv), tag: String(row.tag), data: String(row.data) },
        key,
        name,
        where,
      );
    },
    async write(server, principal, record) {
      await checkNoOtherKey();
      const name = entryName(key.key, server, principal);
      const sealed = sealRecord(record, key.key, name);
      await query(
        pool,
        where,
        `INSERT INTO mcp_tokens (name, key_id, iv, tag, data) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (name) DO UPDATE SET key_id = EXCLUDED.key_id, iv = EXCLUDED.iv, tag = EXCLUDED.tag, data = EXCLUDED.data, updated_at = now()`,
        [name, keyId, sealed.iv, sealed.tag, sealed.data],
      );
    },
    async remove(server, principal) {
      const name = entryName(key.key, server, principal);
      const removed = await query(pool, where, 'DELETE FROM mcp_tokens WHERE name = $1', [name]);
      return removed.rowCount === 1;
    },
  };
}

async function query(pool: Pool, where: string, sql: string, values: readonly unknown[]) {
  try {
    return await pool.query(sql, [...values]);
  } catch (error) {
    throw new StoreError(
      'unavailable',
      `The sign-ins in ${where} cannot be reached: ${reasonOf(error)}. Check that PostgreSQL runs there, then try again.`,
      { cause: error },
    );
  }
}
