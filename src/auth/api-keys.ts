/**
 * Static API keys: a small-team mode without an OAuth provider. Each key is a shared secret issued to
 * a subject with its groups; the key file holds only a hash of each key, so reading the file does not
 * hand out a key.
 *
 * The hash is SHA-256, not a password hash. A key is 32 random bytes (256 bits), so nothing can guess
 * it from its hash, and a slow hash such as scrypt or Argon2 would only make every request pay for a
 * defence against weak, human-chosen secrets that keys are not. Every entry's hash is compared with
 * `timingSafeEqual`, without stopping at a match, so how long a check takes says nothing about which
 * bytes matched.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Principal } from '../dispatch/principal.js';

/** What every key starts with, so secret scanners and people recognise a leaked one. */
export const API_KEY_PREFIX = 'tpk_';

/** The issuer of every principal an API key authenticates. */
export const API_KEY_ISSUER = 'api-key';

/** The version of the key file's format this module writes and reads. */
export const API_KEY_FILE_VERSION = 1;

const KEY_PATTERN = /tpk_[A-Za-z0-9_-]{43}/;
const HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;
const ID_PATTERN = /^key_[0-9a-f]{12}$/;

/** One key as the key file stores it: who it authenticates, never the key itself. */
export interface ApiKeyEntry {
  /** Names the key in listings and for revocation (`key_` and 12 hex digits); not secret. */
  readonly id: string;
  /** `sha256:` and the hex SHA-256 of the whole key. */
  readonly hash: string;
  readonly subject: string;
  readonly groups: readonly string[];
  readonly roles: readonly string[];
  readonly scopes: readonly string[];
  /** What the key is for, for people reading a listing. */
  readonly label?: string;
  /** When the key was minted (ISO 8601). */
  readonly created: string;
  /** When the key stops authenticating (ISO 8601); a key without one never expires. */
  readonly expires?: string;
}

/** The key file: `{ "version": 1, "keys": [ … ] }`. */
export interface ApiKeyFile {
  readonly version: typeof API_KEY_FILE_VERSION;
  readonly keys: readonly ApiKeyEntry[];
}

/** What {@link mintApiKey} needs: who the key is for, and until when. */
export interface MintApiKeyOptions {
  readonly subject: string;
  readonly groups?: readonly string[];
  readonly roles?: readonly string[];
  readonly scopes?: readonly string[];
  readonly label?: string;
  readonly expiresAt?: Date;
}

/** Checks a presented key against the loaded file. */
export interface ApiKeyChecker {
  /**
   * The principal the key authenticates (issuer `api-key`, no client id), or undefined when it is not
   * a key of the file, has expired, or the file has been changed into one that cannot be read.
   */
  check(presented: string): Principal | undefined;
}

/** Why a key file cannot be used. */
export type ApiKeyFileProblem = 'unreadable' | 'not_json' | 'bad_shape' | 'bad_entry' | 'plain_text_key';

/** A key file that cannot be used: names the file, the entry when one is at fault, and what to do. */
export class ApiKeyFileError extends Error {
  override readonly name = 'ApiKeyFileError';
  constructor(
    readonly code: ApiKeyFileProblem,
    readonly file: string,
    message: string,
    readonly entry?: string,
  ) {
    super(message);
  }
}

/**
 * A new key, shown once, and the entry to store for it.
 *
 * @example
 * const { key, entry } = mintApiKey({ subject: 'alice', groups: ['leads'] });
 * // key: 'tpk_…' (give it to alice); entry: { id: 'key_…', hash: 'sha256:…', subject: 'alice', … }
 */
export function mintApiKey(options: MintApiKeyOptions): {
  readonly key: string;
  readonly entry: ApiKeyEntry;
} {
  if (typeof options.subject !== 'string' || options.subject.trim() === '') {
    throw new TypeError('An API key needs a subject: the name of who it authenticates, such as "alice".');
  }
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const entry: ApiKeyEntry = {
    id: `key_${randomBytes(6).toString('hex')}`,
    hash: hashApiKey(key),
    subject: options.subject,
    groups: [...(options.groups ?? [])],
    roles: [...(options.roles ?? [])],
    scopes: [...(options.scopes ?? [])],
    ...(options.label === undefined ? {} : { label: options.label }),
    created: new Date().toISOString(),
    ...(options.expiresAt === undefined ? {} : { expires: options.expiresAt.toISOString() }),
  };
  return { key, entry };
}

/**
 * The stored form of a key: `sha256:` and its hex SHA-256.
 *
 * @example
 * hashApiKey('tpk_…'); // 'sha256:9f86d0…'
 */
export function hashApiKey(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/**
 * Reads and checks a key file's text. Throws {@link ApiKeyFileError} naming the file and the entry
 * when the file is not a key file, an entry is malformed, or the file holds a key in plain text.
 *
 * @example
 * const keys = parseApiKeyFile(await readFile('keys.json', 'utf8'), 'keys.json');
 */
export function parseApiKeyFile(text: string, file: string): ApiKeyFile {
  if (KEY_PATTERN.test(text)) {
    throw new ApiKeyFileError(
      'plain_text_key',
      file,
      `${file} holds an API key in plain text (a "${API_KEY_PREFIX}…" value). The file must hold only hashes: remove the key, revoke it with "toolpact auth revoke --keys ${file} <key>" if it was ever shared, and mint a new one with "toolpact auth key".`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ApiKeyFileError(
      'not_json',
      file,
      `${file} is not JSON (${(error as Error).message}). Fix it, or mint a key with "toolpact auth key --keys ${file} --subject <name>" to write a new file.`,
    );
  }
  const record = isRecord(data) ? data : undefined;
  if (record?.version !== API_KEY_FILE_VERSION || !Array.isArray(record.keys)) {
    throw new ApiKeyFileError(
      'bad_shape',
      file,
      `${file} is not a toolpact key file: expected {"version": ${API_KEY_FILE_VERSION}, "keys": [...]}, received ${describeShape(data)}. Write it with "toolpact auth key".`,
    );
  }
  const seen = new Set<string>();
  const keys = record.keys.map((each, index) => {
    const entry = readEntry(each, index, file);
    for (const unique of [entry.id, entry.hash]) {
      if (seen.has(unique)) {
        throw entryError(file, index, each, `repeats ${unique} of an earlier entry`, 'remove one of the two');
      }
      seen.add(unique);
    }
    return entry;
  });
  return { version: API_KEY_FILE_VERSION, keys };
}

/**
 * Reads a key file for changing it; undefined when there is none yet. Throws {@link ApiKeyFileError}
 * as {@link parseApiKeyFile} does, and when the file exists but cannot be read.
 *
 * @example
 * const current = (await readApiKeyFile('keys.json'))?.keys ?? [];
 */
export async function readApiKeyFile(file: string): Promise<ApiKeyFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(file, error);
  }
  return parseApiKeyFile(text, file);
}

/**
 * Writes the key file whole, readable by its owner only (mode 0600): to a new file beside it, then
 * renamed over it, so a server reading the file never sees half of it.
 *
 * @example
 * await writeApiKeyFile('keys.json', [...current, entry]);
 */
export async function writeApiKeyFile(file: string, keys: readonly ApiKeyEntry[]): Promise<void> {
  const data: ApiKeyFile = { version: API_KEY_FILE_VERSION, keys };
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Loads a key file and answers a checker for presented keys. The checker reads the file again when it
 * changes (a key added or revoked takes effect at the next request); if the changed file cannot be
 * read, no key authenticates until it is fixed.
 *
 * @example
 * const keys = await loadApiKeys('keys.json');
 * keys.check(request.headers['x-api-key']); // { subject: 'alice', issuer: 'api-key', groups: ['leads'], … }
 */
export async function loadApiKeys(file: string): Promise<ApiKeyChecker> {
  let version = fileVersion(file);
  let entries: readonly Loaded[] | undefined = loadEntries(file);
  return {
    check(presented) {
      // Anything but a toolpact key (a JWT, say) is not one of ours: no look at the file for it.
      if (!isApiKey(presented)) return undefined;
      const now = fileVersion(file);
      if (now !== version) {
        version = now;
        try {
          entries = loadEntries(file);
        } catch {
          entries = undefined;
        }
      }
      return entries === undefined ? undefined : matchKey(entries, presented, Date.now());
    },
  };
}

function isApiKey(presented: unknown): presented is string {
  return typeof presented === 'string' && presented.startsWith(API_KEY_PREFIX);
}

/** An entry ready for checking: its hash as bytes, its principal built once. */
interface Loaded {
  readonly digest: Buffer;
  readonly expiresAt: number | undefined;
  readonly principal: Principal;
}

/** The entry the key belongs to, compared against every entry in constant time; undefined if none. */
function matchKey(entries: readonly Loaded[], presented: string, now: number): Principal | undefined {
  const digest = createHash('sha256').update(presented, 'utf8').digest();
  let found: Loaded | undefined;
  for (const entry of entries) {
    // No early exit: every entry is compared, whichever matches.
    if (timingSafeEqual(entry.digest, digest) && found === undefined) found = entry;
  }
  if (found === undefined) return undefined;
  if (found.expiresAt !== undefined && found.expiresAt <= now) return undefined;
  return found.principal;
}

function loadEntries(file: string): readonly Loaded[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw unreadable(file, error);
  }
  return parseApiKeyFile(text, file).keys.map((entry) => ({
    digest: Buffer.from(entry.hash.slice('sha256:'.length), 'hex'),
    expiresAt: entry.expires === undefined ? undefined : Date.parse(entry.expires),
    principal: Object.freeze({
      subject: entry.subject,
      issuer: API_KEY_ISSUER,
      clientId: undefined,
      groups: Object.freeze([...entry.groups]),
      roles: Object.freeze([...entry.roles]),
      scopes: Object.freeze([...entry.scopes]),
    }),
  }));
}

/** Changes when the file is rewritten (the CLI replaces it by renaming) or edited in place. */
function fileVersion(file: string): string {
  try {
    const stat = statSync(file, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
  } catch {
    return 'missing';
  }
}

function readEntry(value: unknown, index: number, file: string): ApiKeyEntry {
  if (!isRecord(value))
    throw entryError(file, index, value, 'is not an object', 'write each key as an object');
  const fail = (what: string, fix: string) => entryError(file, index, value, what, fix);
  if ('key' in value || 'secret' in value) {
    throw fail('has a "key" or "secret" field', 'store only the hash: remove the field and mint a new key');
  }
  const { id, hash, subject, label, created, expires } = value;
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
    throw fail(`has id ${JSON.stringify(id)}`, 'give it an id such as "key_0123456789ab"');
  }
  if (typeof hash !== 'string' || !HASH_PATTERN.test(hash)) {
    throw fail(
      'has no "hash" of the form "sha256:<64 hex digits>"',
      'mint a new key with "toolpact auth key"',
    );
  }
  if (typeof subject !== 'string' || subject.trim() === '') {
    throw fail(`has subject ${JSON.stringify(subject)}`, 'give the subject as a non-empty string');
  }
  const lists = { groups: value.groups, roles: value.roles, scopes: value.scopes };
  for (const [name, list] of Object.entries(lists)) {
    if (list !== undefined && !(Array.isArray(list) && list.every((each) => typeof each === 'string'))) {
      throw fail(`has ${name} ${JSON.stringify(list)}`, `give ${name} as a list of strings`);
    }
  }
  if (label !== undefined && typeof label !== 'string') {
    throw fail(`has label ${JSON.stringify(label)}`, 'give the label as a string');
  }
  for (const [name, date] of [
    ['created', created],
    ['expires', expires],
  ] as const) {
    if ((date !== undefined || name === 'created') && !isTimestamp(date)) {
      throw fail(
        `has ${name} ${JSON.stringify(date)}`,
        `give ${name} as an ISO 8601 time such as "2027-01-31T00:00:00Z"`,
      );
    }
  }
  return {
    id,
    hash,
    subject,
    groups: (lists.groups as string[] | undefined) ?? [],
    roles: (lists.roles as string[] | undefined) ?? [],
    scopes: (lists.scopes as string[] | undefined) ?? [],
    ...(label === undefined ? {} : { label: label as string }),
    created: created as string,
    ...(expires === undefined ? {} : { expires: expires as string }),
  };
}

function entryError(file: string, index: number, value: unknown, what: string, fix: string): ApiKeyFileError {
  const id = isRecord(value) && typeof value.id === 'string' ? ` (${value.id.slice(0, 40)})` : '';
  const entry = `keys[${index}]${id}`;
  return new ApiKeyFileError('bad_entry', file, `${file}: entry ${entry} ${what}: ${fix}.`, entry);
}

function unreadable(file: string, error: unknown): ApiKeyFileError {
  return new ApiKeyFileError(
    'unreadable',
    file,
    `Cannot read the API key file ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Check the path, or create it with "toolpact auth key --keys ${file} --subject <name>".`,
  );
}

function isTimestamp(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) && Number.isFinite(Date.parse(value));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describeShape(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (!isRecord(value)) return value === null ? 'null' : typeof value;
  const keys = Object.keys(value).slice(0, 5);
  return keys.length === 0 ? 'an empty object' : `an object with ${keys.map((key) => `"${key}"`).join(', ')}`;
}
