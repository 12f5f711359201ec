// The fleet's store of sign-ins to remote MCP servers on a real PostgreSQL (a private cluster started
// for the file): two replicas see each other's sign-ins, the rows hold nothing in clear, and a replica
// with another key, a moved row or no key at all is refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import {
  importMcpTools,
  type McpSignInRecord,
  type McpTokenStore,
  TokenStoreError,
} from '../../src/mcp/index.js';
import { openPostgresStore, type PostgresStore, postgresTokenStore } from '../../src/store/index.js';
import { drivenSignIn, startUpstream } from '../mcp/support/oauth-upstream.js';
import { PUBLIC_CLIENT, startProvider } from '../support/oidc-provider.js';
import { hasPostgres, type PostgresServer, startPostgres } from '../support/postgres.js';

const KEY = '0123456789abcdef'.repeat(4);
const OTHER_KEY = 'fedcba9876543210'.repeat(4);
const ACCESS = 'eyJhbGciOiJSUzI1NiJ9.fleet-access-token.signature';
const REFRESH = 'fleet-refresh-token-0123456789';
const SERVER = 'linear-remote';
const ALICE = 'auth:alice@https://id.example.com';
const BOB = 'auth:bob@https://id.example.com';

const record = (access: string): McpSignInRecord => ({
  tokens: { access_token: access, refresh_token: REFRESH, token_type: 'Bearer', expires_in: 300 },
  client: { client_id: 'desk-app' },
});

let postgres: PostgresServer;
const opened: PostgresStore[] = [];
let databases = 0;

async function replicas(count: number): Promise<{ url: string; stores: PostgresStore[] }> {
  databases++;
  const url = await postgres.createDatabase(`tokens${databases}`);
  const stores = await Promise.all(Array.from({ length: count }, () => openPostgresStore(url)));
  opened.push(...stores);
  return { url, stores };
}

async function rows(url: string): Promise<Record<string, unknown>[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SELECT * FROM mcp_tokens ORDER BY name')).rows;
  } finally {
    await client.end();
  }
}

async function thrown(action: () => Promise<unknown>): Promise<Error> {
  try {
    await action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the action to fail');
}

describe.runIf(hasPostgres)('postgresTokenStore', () => {
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(opened.map((store) => store.close()));
    await postgres?.stop();
  });

  test("two replicas see each other's sign-ins, updates and removals", async () => {
    const { stores } = await replicas(2);
    // Each is an MCP token store, as `importMcpTools(…, { auth: { store } })` takes it.
    const first: McpTokenStore = postgresTokenStore(stores[0]!, { key: KEY });
    const second: McpTokenStore = postgresTokenStore(stores[1]!, { env: { TOOLPACT_TOKEN_KEY: KEY } });

    await first.write(SERVER, ALICE, record(ACCESS));
    expect(await second.read(SERVER, ALICE)).toEqual(record(ACCESS));
    expect(await second.read(SERVER, BOB)).toBeUndefined();

    await second.write(SERVER, BOB, record(`${ACCESS}-bob`));
    await second.write(SERVER, ALICE, record(`${ACCESS}-refreshed`));
    expect(await first.read(SERVER, BOB)).toEqual(record(`${ACCESS}-bob`));
    expect(await first.read(SERVER, ALICE)).toEqual(record(`${ACCESS}-refreshed`));

    expect(await first.remove(SERVER, ALICE)).toBe(true);
    expect(await second.remove(SERVER, ALICE)).toBe(false);
    expect(await second.read(SERVER, ALICE)).toBeUndefined();
    expect(await second.read(SERVER, BOB)).toEqual(record(`${ACCESS}-bob`));
  });

  test('the rows hold no token, server name or principal in clear', async () => {
    const { url, stores } = await replicas(1);
    const tokens = postgresTokenStore(stores[0]!, { key: KEY });
    await tokens.write(SERVER, ALICE, record(ACCESS));
    await tokens.write(SERVER, BOB, record(`${ACCESS}-bob`));
    const kept = await rows(url);
    expect(kept).toHaveLength(2);
    const text = JSON.stringify(kept);
    for (const clear of [ACCESS, REFRESH, SERVER, ALICE, BOB, 'alice', 'desk-app', 'fleet-access-token']) {
      expect(text).not.toContain(clear);
    }
    for (const encoded of [ACCESS, REFRESH])
      expect(text).not.toContain(Buffer.from(encoded).toString('base64'));
  });

  test('a replica with another key is refused, reading and writing, and changes nothing', async () => {
    const { url, stores } = await replicas(2);
    await postgresTokenStore(stores[0]!, { key: KEY }).write(SERVER, ALICE, record(ACCESS));
    const before = await rows(url);
    const other = postgresTokenStore(stores[1]!, { env: { TOOLPACT_TOKEN_KEY: OTHER_KEY } });
    for (const action of [
      () => other.read(SERVER, ALICE),
      () => other.read(SERVER, BOB),
      () => other.write(SERVER, BOB, record(ACCESS)),
    ]) {
      const error = await thrown(action);
      expect(error).toBeInstanceOf(TokenStoreError);
      expect(error.message).toMatch(
        /^The sign-ins in the store at postgres:\/\/toolpact@127\.0\.0\.1:\d+\/tokens\d+ were sealed with another key \(key id [0-9a-f]{16}\) than TOOLPACT_TOKEN_KEY \(key id [0-9a-f]{16}\)\. Give every replica the key/,
      );
      expect(error.message).not.toContain(OTHER_KEY);
    }
    expect(await rows(url)).toEqual(before);
  });

  test('a row moved under another name does not open', async () => {
    const { url, stores } = await replicas(1);
    const tokens = postgresTokenStore(stores[0]!, { key: KEY });
    await tokens.write(SERVER, 'auth:mallory@https://id.example.com', record(ACCESS));
    await tokens.write(SERVER, ALICE, { client: { client_id: 'desk-app' } });
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      // Mallory's sealed tokens copied into every other row, as one with write access to the table might.
      await client.query(
        `UPDATE mcp_tokens SET iv = source.iv, tag = source.tag, data = source.data
         FROM (SELECT iv, tag, data FROM mcp_tokens ORDER BY updated_at LIMIT 1) AS source`,
      );
    } finally {
      await client.end();
    }
    const error = await thrown(() => tokens.read(SERVER, ALICE));
    expect(error).toBeInstanceOf(TokenStoreError);
    expect(error.message).toMatch(/^A sign-in in the store at postgres:\/\/.* does not open with this key/);
  });

  test('without a key it refuses at once, saying which variable to set and how to make a key', async () => {
    const { stores } = await replicas(1);
    expect(() => postgresTokenStore(stores[0]!, { env: {} })).toThrow(TokenStoreError);
    expect(() => postgresTokenStore(stores[0]!, { env: {} })).toThrow(
      /needs a key that every replica shares.*Set TOOLPACT_TOKEN_KEY \(or TOOLPACT_STATE_KEY\).*openssl rand -hex 32/,
    );
    expect(() => postgresTokenStore(stores[0]!, { env: { TOOLPACT_TOKEN_KEY: 'short' } })).toThrow(
      /^TOOLPACT_TOKEN_KEY must be 32 random bytes/,
    );
  });

  test('a sign-in made through one replica is used by another replica without signing in again', async () => {
    const { stores } = await replicas(2);
    const folder = mkdtempSync(join(tmpdir(), 'toolpact-fleet-signin-'));
    const provider = await startProvider();
    const served = await startUpstream(folder, provider.issuer, { required: ['tools:read'] });
    const { driver, visits } = await drivenSignIn('alice');
    const registries = [new Registry(), new Registry()];
    try {
      const auth = { server: 'upstream', principal: ALICE, clientId: PUBLIC_CLIENT.id };
      await importMcpTools(
        registries[0]!,
        { url: served.url },
        {
          name: 'upstream',
          auth: { ...auth, store: postgresTokenStore(stores[0]!, { key: KEY }), signIn: driver },
        },
      );
      expect(visits).toHaveLength(1);
      // The other replica has no way to send anyone to sign in: it needs the sign-in the first one kept.
      await importMcpTools(
        registries[1]!,
        { url: served.url },
        { name: 'upstream', auth: { ...auth, store: postgresTokenStore(stores[1]!, { key: KEY }) } },
      );
      expect(await registries[1]!.call('echo', { text: 'from the other replica' })).toEqual({
        ok: true,
        result: 'from the other replica',
      });
      expect(visits).toHaveLength(1);
    } finally {
      await Promise.all(registries.map((registry) => registry.close()));
      await driver.close();
      await served.stop();
      await provider.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
