import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  defaultTokenFile,
  fileTokenStore,
  type McpSignInRecord,
  memoryTokenStore,
  TokenStoreError,
} from '../../src/mcp/index.js';

// The encrypted token file: what it keeps, what it shows, and what it refuses.

const KEY = '0123456789abcdef'.repeat(4);
const OTHER_KEY = 'fedcba9876543210'.repeat(4);
const ACCESS = 'eyJhbGciOiJSUzI1NiJ9.access-token-bytes.signature';
const REFRESH = 'refresh-token-bytes-0123456789';
const SERVER = 'github-remote';
const PRINCIPAL = 'auth:alice@https://id.example.com';

const record: McpSignInRecord = {
  tokens: {
    access_token: ACCESS,
    refresh_token: REFRESH,
    token_type: 'Bearer',
    expires_in: 300,
    obtainedAt: 1_700_000_000_000,
  },
  client: { client_id: 'desk-app' },
};

let folder: string;
let count = 0;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-token-store-'));
});

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** A file path in a folder of its own. */
function freshFile(): string {
  count++;
  return join(folder, `case-${count}`, 'mcp-tokens.json');
}

async function thrown(action: () => Promise<unknown>): Promise<Error> {
  try {
    await action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the action to fail');
}

describe('fileTokenStore', () => {
  test('keeps, reads back and forgets a sign-in, by server and by principal', async () => {
    const store = fileTokenStore(freshFile(), { key: KEY });
    expect(await store.read(SERVER, PRINCIPAL)).toBeUndefined();
    await store.write(SERVER, PRINCIPAL, record);
    expect(await store.read(SERVER, PRINCIPAL)).toEqual(record);
    expect(await store.read(SERVER, 'local')).toBeUndefined();
    expect(await store.read('another-server', PRINCIPAL)).toBeUndefined();
    expect(await store.remove(SERVER, PRINCIPAL)).toBe(true);
    expect(await store.remove(SERVER, PRINCIPAL)).toBe(false);
    expect(await store.read(SERVER, PRINCIPAL)).toBeUndefined();
  });

  test('server names and principals that would collide if joined naively are kept apart', async () => {
    const store = fileTokenStore(freshFile(), { key: KEY });
    await store.write('a', 'b\u0000c', { client: { client_id: 'first' } });
    await store.write('a\u0000b', 'c', { client: { client_id: 'second' } });
    expect((await store.read('a', 'b\u0000c'))?.client?.client_id).toBe('first');
    expect((await store.read('a\u0000b', 'c'))?.client?.client_id).toBe('second');
  });

  test('the file and the key made beside it are mode 0600, in a folder of mode 0700', async () => {
    const file = freshFile();
    const store = fileTokenStore(file, { env: {} });
    await store.write(SERVER, PRINCIPAL, record);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}.key`).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    // The key made once is the one used again.
    expect(await fileTokenStore(file, { env: {} }).read(SERVER, PRINCIPAL)).toEqual(record);
  });

  test('shows neither the server, the principal nor any token in clear', async () => {
    const file = freshFile();
    const store = fileTokenStore(file, { key: KEY });
    await store.write(SERVER, PRINCIPAL, record);
    const text = readFileSync(file, 'utf8');
    for (const clear of [SERVER, PRINCIPAL, 'alice', ACCESS, REFRESH, 'access-token-bytes', 'desk-app']) {
      expect(text).not.toContain(clear);
    }
    for (const encoded of [ACCESS, REFRESH]) {
      expect(text).not.toContain(Buffer.from(encoded).toString('base64'));
      expect(text).not.toContain(Buffer.from(encoded).toString('hex'));
    }
  });

  test('is replaced whole: no temporary file is left, and what another writer kept stays', async () => {
    const file = freshFile();
    const first = fileTokenStore(file, { key: KEY });
    const second = fileTokenStore(file, { key: KEY });
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        (index % 2 === 0 ? first : second).write(`server-${index}`, PRINCIPAL, record),
      ),
    );
    expect(readdirSync(join(file, '..'))).toEqual(['mcp-tokens.json']);
    for (let index = 0; index < 20; index++) {
      expect(await first.read(`server-${index}`, PRINCIPAL)).toEqual(record);
    }
    await second.remove('server-3', PRINCIPAL);
    expect(await first.read('server-3', PRINCIPAL)).toBeUndefined();
    expect(await first.read('server-4', PRINCIPAL)).toEqual(record);
    expect(readdirSync(join(file, '..'))).toEqual(['mcp-tokens.json']);
  });

  test('an entry moved under another name does not open', async () => {
    const file = freshFile();
    const store = fileTokenStore(file, { key: KEY });
    await store.write(SERVER, 'auth:mallory@https://id.example.com', { tokens: record.tokens! });
    await store.write(SERVER, PRINCIPAL, { client: { client_id: 'desk-app' } });
    const contents = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, unknown> };
    const [mallory, alice] = Object.keys(contents.entries);
    // Mallory's sealed tokens put where Alice's entry is.
    contents.entries[alice!] = contents.entries[mallory!];
    writeFileSync(file, JSON.stringify(contents));
    const error = await thrown(() => store.read(SERVER, PRINCIPAL));
    expect(error).toBeInstanceOf(TokenStoreError);
    expect(error.message).toContain(`A sign-in in ${file} does not open with this key`);
  });

  test('an entry whose tag was cut short does not open (a 4-byte GCM tag is easy to forge)', async () => {
    const file = freshFile();
    const store = fileTokenStore(file, { key: KEY });
    await store.write(SERVER, PRINCIPAL, record);
    const contents = JSON.parse(readFileSync(file, 'utf8')) as {
      entries: Record<string, { tag: string }>;
    };
    const [name] = Object.keys(contents.entries);
    const entry = contents.entries[name!]!;
    // The first four bytes of the right tag: Node checks only as many bytes as it is given.
    entry.tag = Buffer.from(entry.tag, 'base64').subarray(0, 4).toString('base64');
    writeFileSync(file, JSON.stringify(contents));
    const error = await thrown(() => store.read(SERVER, PRINCIPAL));
    expect(error).toBeInstanceOf(TokenStoreError);
    expect(error.message).toContain('does not open with this key');
  });

  test('another key: refused, naming TOOLPACT_TOKEN_KEY and what to do, and the file left as it was', async () => {
    const file = freshFile();
    await fileTokenStore(file, { env: { TOOLPACT_TOKEN_KEY: KEY } }).write(SERVER, PRINCIPAL, record);
    const before = readFileSync(file, 'utf8');
    const other = fileTokenStore(file, { env: { TOOLPACT_TOKEN_KEY: OTHER_KEY } });
    for (const action of [
      () => other.read(SERVER, PRINCIPAL),
      () => other.read('never-signed-in', 'local'),
      () => other.write('another-server', PRINCIPAL, record),
      () => other.remove(SERVER, PRINCIPAL),
    ]) {
      const error = await thrown(action);
      expect(error).toBeInstanceOf(TokenStoreError);
      expect(error.message).toMatch(
        new RegExp(
          `^The token file ${file} was sealed with another key \\(key id [0-9a-f]{16}\\) than TOOLPACT_TOKEN_KEY \\(key id [0-9a-f]{16}\\)\\. Set the key it was written with, or move the file aside and sign in again`,
        ),
      );
      expect(error.message).not.toContain(OTHER_KEY);
    }
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  test('TOOLPACT_TOKEN_KEY is used before TOOLPACT_STATE_KEY, and the state key without it', async () => {
    const file = freshFile();
    await fileTokenStore(file, { env: { TOOLPACT_STATE_KEY: KEY } }).write(SERVER, PRINCIPAL, record);
    expect(await fileTokenStore(file, { key: KEY }).read(SERVER, PRINCIPAL)).toEqual(record);
    const error = await thrown(() =>
      fileTokenStore(file, { env: { TOOLPACT_TOKEN_KEY: OTHER_KEY, TOOLPACT_STATE_KEY: KEY } }).read(
        SERVER,
        PRINCIPAL,
      ),
    );
    expect(error).toBeInstanceOf(TokenStoreError);
  });

  test.each([
    ['too short', 'abc123', 'TOOLPACT_TOKEN_KEY'],
    ['31 bytes of hex', 'ab'.repeat(31), 'TOOLPACT_TOKEN_KEY'],
    ['not hex nor base64 of 32 bytes', `${'z'.repeat(63)}!`, 'TOOLPACT_TOKEN_KEY'],
    ['a short state key', 'c2hvcnQ=', 'TOOLPACT_STATE_KEY'],
  ])('a key %s is refused with the way to make one, never echoing it', async (_, key, variable) => {
    const store = fileTokenStore(freshFile(), { env: { [variable]: key } });
    const error = await thrown(() => store.write(SERVER, PRINCIPAL, record));
    expect(error).toBeInstanceOf(TokenStoreError);
    expect(error.message).toMatch(
      new RegExp(
        `^${variable} must be 32 random bytes, as 64 hex digits or base64; received ${key.length} characters\\. Make one with: openssl rand -hex 32$`,
      ),
    );
  });

  test('a key file that is not a key is refused, naming the file', async () => {
    const file = freshFile();
    await fileTokenStore(file, { key: KEY }).write(SERVER, PRINCIPAL, record);
    writeFileSync(`${file}.key`, 'not a key\n', { mode: 0o600 });
    const error = await thrown(() => fileTokenStore(file, { env: {} }).read(SERVER, PRINCIPAL));
    expect(error).toBeInstanceOf(TokenStoreError);
    expect(error.message).toContain(`${file}.key must be 32 random bytes`);
  });

  test('a key file others can read, or a symbolic link in its place, is not used', async () => {
    const file = freshFile();
    const store = fileTokenStore(file, { env: {} });
    await store.write(SERVER, PRINCIPAL, record);
    const keyFile = `${file}.key`;
    chmodSync(keyFile, 0o644);
    const open = await thrown(() => fileTokenStore(file, { env: {} }).read(SERVER, PRINCIPAL));
    expect(open).toBeInstanceOf(TokenStoreError);
    expect(open.message).toContain(`${keyFile} can be read or written by others (mode 644)`);

    // Someone plants a link to a key of their choosing where the key file was.
    const planted = join(file, '..', 'planted.key');
    writeFileSync(planted, `${OTHER_KEY}\n`, { mode: 0o600 });
    rmSync(keyFile);
    symlinkSync(planted, keyFile);
    const linked = await thrown(() => fileTokenStore(file, { env: {} }).read(SERVER, PRINCIPAL));
    expect(linked).toBeInstanceOf(TokenStoreError);
    expect(linked.message).toContain(`${keyFile} is a symbolic link`);
  });

  test.each([
    ['not JSON', '{ "version": 1, "entries": ', /is not JSON\. Move it aside and sign in again/],
    ['another version', '{ "version": 2, "entries": {} }', /is not a toolpact token file \(version 1\)/],
    ['no entries', '{ "version": 1 }', /is not a toolpact token file \(version 1\)/],
    ['null', 'null', /is not a toolpact token file \(version 1\)/],
  ])('a token file that is %s is refused clearly, and not overwritten', async (_, text, message) => {
    const file = freshFile();
    await fileTokenStore(file, { key: KEY }).write(SERVER, PRINCIPAL, record);
    writeFileSync(file, text);
    const store = fileTokenStore(file, { key: KEY });
    for (const action of [
      () => store.read(SERVER, PRINCIPAL),
      () => store.write(SERVER, PRINCIPAL, record),
    ]) {
      const error = await thrown(action);
      expect(error).toBeInstanceOf(TokenStoreError);
      expect(error.message).toContain(`The token file ${file}`);
      expect(error.message).toMatch(message);
    }
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('memoryTokenStore and defaultTokenFile', () => {
  test('the memory store keeps copies, not the caller objects', async () => {
    const store = memoryTokenStore();
    const mutable = structuredClone(record);
    await store.write(SERVER, PRINCIPAL, mutable);
    (mutable.tokens as { access_token: string }).access_token = 'changed';
    expect((await store.read(SERVER, PRINCIPAL))?.tokens?.access_token).toBe(ACCESS);
    expect(await store.remove(SERVER, PRINCIPAL)).toBe(true);
  });

  test('the default file is under XDG_STATE_HOME, else ~/.local/state', () => {
    expect(defaultTokenFile({ XDG_STATE_HOME: '/state' })).toBe('/state/toolpact/mcp-tokens.json');
    expect(defaultTokenFile({ HOME: '/home/alice' })).toBe(
      '/home/alice/.local/state/toolpact/mcp-tokens.json',
    );
  });
});
