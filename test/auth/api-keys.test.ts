// Static API keys through the CLI that mints them and the checker a server loads: the key file holds
// only hashes, keys authenticate their own subject and nothing else, revocation and expiry take effect
// on a loaded checker, and a tampered or plain-text file is refused with the file and entry named.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeApiKeyFile } from '../../src/auth/api-keys.js';
import { ApiKeyFileError, hashApiKey, loadApiKeys, mintApiKey } from '../../src/mcp/index.js';
import { runCli } from '../support/cli.js';

const KEY = /^tpk_[A-Za-z0-9_-]{43}$/;

let dir: string;
let files = 0;
const fresh = () => join(dir, `keys-${++files}.json`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolpact-api-keys-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Mints a key with `toolpact auth key` and answers it (the only thing on stdout). */
async function mint(file: string, ...flags: string[]): Promise<string> {
  const run = await runCli(['auth', 'key', '--keys', file, ...flags], { cwd: dir });
  expect(run.stderr).toContain('shown once');
  expect(run.code).toBe(0);
  const key = run.stdout.replace(/\n$/, '');
  expect(key).toMatch(KEY);
  return key;
}

describe('toolpact auth key, then loadApiKeys', () => {
  test('the key authenticates its subject with its groups; the file, mode 0600, holds only its hash', async () => {
    const file = fresh();
    const key = await mint(file, '--subject', 'alice', '--group', 'leads', '--group=ops', '--scope', 'tools');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(4));
    expect(text).toContain(hashApiKey(key));
    const keys = await loadApiKeys(file);
    expect(keys.check(key)).toEqual({
      subject: 'alice',
      issuer: 'api-key',
      clientId: undefined,
      groups: ['leads', 'ops'],
      roles: [],
      scopes: ['tools'],
    });
  });

  test('each key authenticates its own subject; a wrong, altered or foreign key none', async () => {
    const file = fresh();
    const alice = await mint(file, '--subject', 'alice', '--group', 'leads');
    const bob = await mint(file, '--subject', 'bob', '--role', 'reader', '--label', 'ci runner');
    const keys = await loadApiKeys(file);
    expect(keys.check(alice)?.subject).toBe('alice');
    expect(keys.check(bob)).toMatchObject({ subject: 'bob', groups: [], roles: ['reader'] });
    const last = alice.at(-1) === 'A' ? 'B' : 'A';
    for (const wrong of [
      `${alice.slice(0, -1)}${last}`,
      `${alice} `,
      alice.slice(4),
      alice.toUpperCase(),
      'tpk_',
    ]) {
      expect(keys.check(wrong)).toBeUndefined();
    }
    // The comparison is between digests of equal length, whatever length was presented.
    for (const odd of ['', 'tpk_x', `tpk_${'a'.repeat(10_000)}`, `tpk_${'\u{1F511}'.repeat(50)}`]) {
      expect(keys.check(odd)).toBeUndefined();
    }
    const other = await loadApiKeys(fresh()).catch((error: unknown) => error);
    expect(other).toBeInstanceOf(ApiKeyFileError);
    expect((other as ApiKeyFileError).code).toBe('unreadable');
  });

  test('auth keys lists ids, subjects and status, never a key or its hash', async () => {
    const file = fresh();
    const key = await mint(file, '--subject', 'alice', '--group', 'leads', '--label', 'laptop');
    await mint(file, '--subject', 'bob', '--expires', '90d');
    const table = await runCli(['auth', 'keys', '--keys', file]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/alice\s+leads\s+-\s+-\s+laptop/);
    const json = await runCli(['auth', 'keys', '--keys', file, '--format', 'json']);
    const listed = JSON.parse(json.stdout) as {
      id: string;
      subject: string;
      expires?: string;
      status: string;
    }[];
    expect(listed.map((each) => [each.subject, each.status])).toEqual([
      ['alice', 'active'],
      ['bob', 'active'],
    ]);
    const days = (Date.parse(listed[1]!.expires!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89);
    expect(days).toBeLessThanOrEqual(90);
    for (const output of [table.stdout, json.stdout]) {
      expect(output).not.toContain(key);
      expect(output).not.toContain('sha256:');
    }
  });

  test('revoking by id or by the key itself takes effect on a checker already loaded; the file stays 0600', async () => {
    const file = fresh();
    const alice = await mint(file, '--subject', 'alice');
    const bob = await mint(file, '--subject', 'bob');
    const carol = await mint(file, '--subject', 'carol');
    const keys = await loadApiKeys(file);
    expect(keys.check(alice)?.subject).toBe('alice');
    const listed = JSON.parse(
      (await runCli(['auth', 'keys', '--keys', file, '--format', 'json'])).stdout,
    ) as {
      id: string;
      subject: string;
    }[];
    const aliceId = listed.find((each) => each.subject === 'alice')!.id;
    const byId = await runCli(['auth', 'revoke', '--keys', file, aliceId]);
    expect(byId).toMatchObject({ code: 0, stdout: `Revoked ${aliceId} (alice).\n` });
    expect(keys.check(alice)).toBeUndefined();
    expect(keys.check(bob)?.subject).toBe('bob');
    const byKey = await runCli(['auth', 'revoke', '--keys', file, bob]);
    expect(byKey.code).toBe(0);
    expect(byKey.stdout).not.toContain(bob);
    expect(keys.check(bob)).toBeUndefined();
    expect(keys.check(carol)?.subject).toBe('carol');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const again = await runCli(['auth', 'revoke', '--keys', file, aliceId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`has no key matching "${aliceId}"`);
  });

  test('an expired key does not authenticate, and is listed as expired', async () => {
    const file = fresh();
    const live = mintApiKey({ subject: 'alice', expiresAt: new Date(Date.now() + 3_600_000) });
    const gone = mintApiKey({ subject: 'bob', expiresAt: new Date(Date.now() - 1000) });
    await writeApiKeyFile(file, [live.entry, gone.entry]);
    const keys = await loadApiKeys(file);
    expect(keys.check(live.key)?.subject).toBe('alice');
    expect(keys.check(gone.key)).toBeUndefined();
    const listed = await runCli(['auth', 'keys', '--keys', file, '--format', 'json']);
    expect((JSON.parse(listed.stdout) as { status: string }[]).map((each) => each.status)).toEqual([
      'active',
      'expired',
    ]);
  });

  test('usage errors say what is missing or wrong', async () => {
    const file = fresh();
    const cases: [string[], RegExp][] = [
      [['auth'], /Give a subcommand: key, keys, revoke/],
      [['auth', 'rotate', '--keys', file], /Unknown subcommand "rotate"/],
      [['auth', 'key', '--subject', 'alice'], /Give the key file with --keys <file>/],
      [['auth', 'key', '--keys', file], /Give who the key is for with --subject/],
      [['auth', 'key', '--keys', file, '--subject', 'a', '--group'], /Option "--group" needs a value/],
      [['auth', 'key', '--keys', file, '--subject', 'a', '--expires', 'soon'], /--expires takes an ISO 8601/],
      [['auth', 'key', '--keys', file, '--subject', 'a', '--expires', '2001-01-01'], /has already passed/],
      [['auth', 'keys', '--keys', file, '--group', 'x'], /"auth keys" takes only --keys and --format/],
      [['auth', 'revoke', '--keys', file], /Give one key to revoke/],
    ];
    for (const [argv, message] of cases) {
      const run = await runCli(argv);
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
  });
});

type FileData = { version: number; keys: Record<string, unknown>[] };

describe('a key file that cannot be trusted', () => {
  async function written(mutate: (data: FileData) => unknown) {
    const file = fresh();
    const { key, entry } = mintApiKey({ subject: 'alice', groups: ['leads'] });
    await writeApiKeyFile(file, [entry]);
    const data = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify(mutate(data) ?? data));
    return { file, key, entry };
  }

  async function refusal(file: string): Promise<ApiKeyFileError> {
    const error = await loadApiKeys(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiKeyFileError);
    const refused = error as ApiKeyFileError;
    expect(refused.file).toBe(file);
    expect(refused.message).toContain(file);
    return refused;
  }

  test('a tampered hash authenticates no one', async () => {
    const { file, key } = await written((data) => {
      const hash = data.keys[0]!.hash as string;
      data.keys[0]!.hash = `${hash.slice(0, -1)}${hash.at(-1) === '0' ? '1' : '0'}`;
    });
    expect((await loadApiKeys(file)).check(key)).toBeUndefined();
  });

  test('a malformed entry is refused, naming the file, the entry and the way out', async () => {
    const entry = (patch: Record<string, unknown>) => (data: FileData) => ({
      ...data,
      keys: [{ ...data.keys[0], ...patch }],
    });
    const cases: [(data: FileData) => unknown, string, RegExp][] = [
      [
        entry({ hash: 'md5:abc' }),
        'bad_entry',
        /entry keys\[0\] \(key_[0-9a-f]{12}\) has no "hash" of the form/,
      ],
      [entry({ subject: undefined }), 'bad_entry', /keys\[0\].*has subject undefined: give the subject/],
      [entry({ groups: 'leads' }), 'bad_entry', /has groups "leads": give groups as a list of strings/],
      [entry({ expires: 'tomorrow' }), 'bad_entry', /has expires "tomorrow": give expires as an ISO 8601/],
      [
        (data) => ({ ...data, keys: [data.keys[0], data.keys[0]] }),
        'bad_entry',
        /entry keys\[1\].*repeats key_/,
      ],
      [(data) => ({ ...data, version: 2 }), 'bad_shape', /not a toolpact key file: expected \{"version": 1/],
      [(data) => data.keys, 'bad_shape', /received a list/],
    ];
    for (const [mutate, code, message] of cases) {
      const { file } = await written(mutate);
      const refused = await refusal(file);
      expect(refused.code).toBe(code);
      expect(refused.message).toMatch(message);
    }
    const notJson = fresh();
    await writeFile(notJson, '{"version": 1, "keys": [');
    expect((await refusal(notJson)).code).toBe('not_json');
  });

  test('a key in plain text is refused, and the message does not repeat it', async () => {
    const { file: asField, key } = await written((data) => {
      data.keys[0]!.key = 'not even a toolpact key';
    });
    expect((await refusal(asField)).message).toMatch(/has a "key" or "secret" field: store only the hash/);
    const { file: asLabel } = await written((data) => {
      data.keys[0]!.label = key;
    });
    const refused = await refusal(asLabel);
    expect(refused.code).toBe('plain_text_key');
    expect(refused.message).not.toContain(key);
    expect(refused.message).toContain('toolpact auth revoke');
    const listed = await runCli(['auth', 'keys', '--keys', asLabel]);
    expect(listed.code).toBe(2);
    expect(listed.stderr).toContain('holds an API key in plain text');
    expect(listed.stderr).not.toContain(key);
  });

  test('a loaded checker that sees the file broken refuses every key until the file is whole again', async () => {
    const file = fresh();
    const { key, entry } = mintApiKey({ subject: 'alice' });
    await writeApiKeyFile(file, [entry]);
    const keys = await loadApiKeys(file);
    expect(keys.check(key)?.subject).toBe('alice');
    await writeFile(file, '{"version": 1, "keys": [ oops');
    expect(keys.check(key)).toBeUndefined();
    await rm(file);
    expect(keys.check(key)).toBeUndefined();
    await writeApiKeyFile(file, [entry]);
    expect(keys.check(key)?.subject).toBe('alice');
  });
});
