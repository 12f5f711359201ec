/**
 * The `requestState` of an MCP multi round-trip request (revision 2026-07-28): a server that needs an
 * answer (an approval) returns an `InputRequiredResult` with an opaque state, and the client retries the
 * same `tools/call` with `inputResponses` and that state. The state crosses the client, so it is sealed
 * (AES-256-GCM), versioned, bounded in size and time, bound to the call it was issued for, and single
 * use (the spec leaves single use to the server: sealing alone does not give it).
 *
 * Wire format, base64url (unpadded) of:
 *
 *     version (1 byte, 1) | key id (4) | expiry (8, ms since the epoch, big-endian)
 *     | nonce (12, random) | ciphertext | GCM tag (16)
 *
 * The first 13 bytes are the GCM additional authenticated data, so none of them can be altered; the
 * ciphertext holds `{"i":stateId,"t":tool,"a":argumentsDigest,"r":rule?,"p":principal?,"d":data?}`.
 */
import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { digestOf } from '../util/digest.js';

const VERSION = 1;
const HEADER_BYTES = 13;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const STATE_ID_BYTES = 16;
const KEY_BYTES = 32;
/** The longest state accepted, in characters; a sealed state longer than this is refused at `seal`. */
const MAX_STATE_LENGTH = 16_384;
const DEFAULT_TTL_MS = 10 * 60_000;
const MAX_TTL_MS = 24 * 60 * 60_000;
const DEFAULT_MAX_USED_STATES = 100_000;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const BASE64_TEXT = /^[A-Za-z0-9+/_-]+={0,2}$/;
const HEX_TEXT = /^[0-9a-fA-F]+$/;
const KEY_HELP =
  'Give 32 random bytes as 64 hex digits or as base64/base64url (e.g. `openssl rand -hex 32`).';
const AFRESH = 'without requestState to be asked afresh';

/**
 * What a state is bound to: the call it was issued for. A state presented with another binding is
 * refused as `mismatch`.
 *
 * @example
 * const binding: RequestStateBinding = bindingFor('write_file', { path: 'a.txt' }, 'ask-writes', 'alice');
 */
export interface RequestStateBinding {
  readonly tool: string;
  /** `digestOf(arguments)`: `sha256:<hex>` of the canonical JSON of the call's arguments. */
  readonly argumentsDigest: string;
  /** The id of the gate rule that asked, when there was one. */
  readonly rule: string | undefined;
  /** Who made the request (the authenticated client or user), where the request has one. */
  readonly principal: string | undefined;
}

/** One of the parts of a {@link RequestStateBinding} a state can disagree with. */
export type RequestStateBindingField = 'tool' | 'arguments' | 'rule' | 'principal';

/**
 * Builds the binding of a call. `args` are the `arguments` of the `tools/call` as the client sent them
 * (key order does not matter; missing arguments count as `{}`).
 *
 * @example
 * const binding = bindingFor('write_file', { path: 'a.txt', text: 'hi' }, 'ask-writes', undefined);
 * binding.argumentsDigest; // 'sha256:…'
 */
export function bindingFor(
  tool: string,
  args: unknown,
  rule: string | undefined,
  principal: string | undefined,
): RequestStateBinding {
  return { tool, argumentsDigest: digestOf(args ?? {}), rule, principal };
}

/** What {@link UsedStateStore.claim} found: the id was free and is now taken, was taken, or no room. */
export type UsedStateClaim = 'claimed' | 'used' | 'full';

/**
 * Where the ids of consumed states are kept until they expire, so that each state is used once. The
 * default, {@link MemoryUsedStateStore}, holds them in this process; a fleet of servers shares a store.
 *
 * @example
 * const store: UsedStateStore = { claim: (id, expiresAt, now) => (seen.has(id) ? 'used' : (seen.add(id), 'claimed')) };
 */
export interface UsedStateStore {
  /**
   * Marks `id` used until `expiresAt` (ms since the epoch) unless it already is, as one atomic step:
   * `'claimed'` the first time, `'used'` after, `'full'` when the store has no room (then nothing is
   * recorded and the state is refused). `now` is the sealer's clock, for evicting expired ids.
   */
  claim(id: string, expiresAt: number, now: number): UsedStateClaim;
}

/**
 * The in-process {@link UsedStateStore}: a map from state id to expiry. Expired ids are dropped as
 * new ones arrive. When it holds `maxEntries` (default 100,000) ids that have not expired yet, it
 * refuses new claims (`'full'`, so the state is refused as `busy`) rather than forget a live id, which
 * would let that state be replayed; room comes back as ids expire.
 *
 * @example
 * const sealer = new RequestStateSealer({ usedStates: new MemoryUsedStateStore({ maxEntries: 10_000 }) });
 */
export class MemoryUsedStateStore implements UsedStateStore {
  readonly maxEntries: number;
  readonly #used = new Map<string, number>();
  /** When full: the earliest expiry seen by the last full sweep; no sweep can free anything before it. */
  #nextSweepAt = Number.NEGATIVE_INFINITY;

  constructor(options: { readonly maxEntries?: number } = {}) {
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_USED_STATES;
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`MemoryUsedStateStore: maxEntries must be a positive integer; got ${maxEntries}.`);
    }
    this.maxEntries = maxEntries;
  }

  /** How many ids are held (expired ones included until they are swept). */
  get size(): number {
    return this.#used.size;
  }

  claim(id: string, expiresAt: number, now: number): UsedStateClaim {
    // Ids mostly arrive in expiry order (one ttl), so dropping from the front is amortized O(1).
    for (const [usedId, usedUntil] of this.#used) {
      if (usedUntil > now) break;
      this.#used.delete(usedId);
    }
    if (this.#used.has(id)) return 'used';
    if (this.#used.size >= this.maxEntries && !this.#sweep(now)) return 'full';
    this.#used.set(id, expiresAt);
    return 'claimed';
  }

  /** Drops every expired id; true when that made room. */
  #sweep(now: number): boolean {
    if (now < this.#nextSweepAt) return false;
    let earliest = Number.POSITIVE_INFINITY;
    for (const [usedId, usedUntil] of this.#used) {
      if (usedUntil <= now) this.#used.delete(usedId);
      else if (usedUntil < earliest) earliest = usedUntil;
    }
    const room = this.#used.size < this.maxEntries;
    this.#nextSweepAt = room ? Number.NEGATIVE_INFINITY : earliest;
    return room;
  }
}

/** Options of a {@link RequestStateSealer}. */
export interface RequestStateOptions {
  /** The key that seals (and opens): 32 bytes, or their 64 hex digits or base64/base64url. Random when left out. */
  readonly key?: string | Uint8Array;
  /** Keys that still open states sealed before a rotation; never used to seal. */
  readonly previousKeys?: readonly (string | Uint8Array)[];
  /** How long a state stays valid, in milliseconds: default 10 minutes, at most 24 hours. */
  readonly ttlMs?: number;
  /** Where consumed state ids are kept; default a {@link MemoryUsedStateStore} of this sealer's own. */
  readonly usedStates?: UsedStateStore;
  /**
   * A store every replica shares (`PostgresStore.claimState`): when given, single use is decided
   * there, once across the fleet, by {@link RequestStateSealer.consumeShared}.
   */
  readonly sharedClaim?: (id: string, expiresAt: number) => Promise<'claimed' | 'used'>;
  /** The clock, in ms since the epoch (for tests); default `Date.now`. */
  readonly now?: () => number;
}

/** A state that opened: it was sealed here, has not expired, and was issued for this call. */
export interface RequestStateOpened {
  readonly ok: true;
  /** The state's random id, which single use is keyed by. */
  readonly id: string;
  /** When the state expires, in ms since the epoch. */
  readonly expiresAt: number;
  /** The `data` given to `seal`, if any. */
  readonly data: unknown;
}

/** Why a state was refused. */
export type RequestStateRefusalCode =
  | 'malformed'
  | 'unknown_key'
  | 'tampered'
  | 'expired'
  | 'mismatch'
  | 'used'
  | 'busy';

/**
 * A state that was refused: nothing runs. `message` says what was wrong and what to do, for the
 * client; it never holds key material or the state's content.
 */
export interface RequestStateRefusal {
  readonly ok: false;
  readonly code: RequestStateRefusalCode;
  readonly message: string;
  /** For `mismatch`: what differs between the call the state was issued for and this one. */
  readonly mismatched?: readonly RequestStateBindingField[];
}

/**
 * A key that cannot be used (wrong length or encoding), thrown at construction. The message says
 * where the key came from, what was received (its length and encoding, never its value) and what to give.
 *
 * @example
 * try {
 *   RequestStateSealer.fromEnvironment({ TOOLPACT_STATE_KEY: 'short' });
 * } catch (error) {
 *   if (error instanceof RequestStateKeyError) console.error(error.message); // names TOOLPACT_STATE_KEY
 * }
 */
export class RequestStateKeyError extends Error {
  override readonly name = 'RequestStateKeyError';
  /** Where the key came from: `TOOLPACT_STATE_KEY`, `TOOLPACT_STATE_KEY_PREVIOUS`, `options.key`, ... */
  readonly source: string;

  constructor(source: string, message: string) {
    super(message);
    this.source = source;
  }
}

interface SealingKey {
  readonly id: number;
  readonly key: KeyObject;
}

/**
 * Seals and opens `requestState` values. Seal when answering `input_required`; `consume` the state the
 * client sends back before running anything, and run only on `ok: true`.
 *
 * @example
 * const sealer = RequestStateSealer.fromEnvironment();
 * const requestState = sealer.seal(bindingFor('write_file', args, 'ask-writes', principal));
 * // ... the client retries with inputResponses and requestState:
 * const opened = sealer.consume(request.requestState, bindingFor('write_file', request.arguments, 'ask-writes', principal));
 * if (!opened.ok) return errorResult(opened.message); // runs nothing
 */
export class RequestStateSealer {
  /**
   * True when the key was made at random for this process: a state sealed here cannot be opened by
   * another process (a replica, or this server after a restart). Set `TOOLPACT_STATE_KEY` to share one.
   */
  readonly ephemeral: boolean;
  /** The id of the sealing key (8 hex digits, derived from the key; reveals nothing of it). */
  readonly keyId: string;
  /** How long a state stays valid, in milliseconds. */
  readonly ttlMs: number;
  readonly #sealing: SealingKey;
  readonly #opening = new Map<number, KeyObject>();
  readonly #usedStates: UsedStateStore;
  readonly #sharedClaim: RequestStateOptions['sharedClaim'];
  readonly #now: () => number;

  /**
   * Reads the key from `TOOLPACT_STATE_KEY` and the keys of a rotation from
   * `TOOLPACT_STATE_KEY_PREVIOUS` (comma-separated). Without `TOOLPACT_STATE_KEY` the key is ephemeral.
   * Throws a {@link RequestStateKeyError} for a key that is set but unusable (also when empty), and when
   * previous keys are set without a current one.
   *
   * @example
   * const sealer = RequestStateSealer.fromEnvironment(process.env, { ttlMs: 5 * 60_000 });
   * if (sealer.ephemeral) console.warn('requestState only survives in this process; set TOOLPACT_STATE_KEY');
   */
  static fromEnvironment(
    env: NodeJS.ProcessEnv = process.env,
    options: Omit<RequestStateOptions, 'key' | 'previousKeys'> = {},
  ): RequestStateSealer {
    const current = env.TOOLPACT_STATE_KEY;
    const previous = (env.TOOLPACT_STATE_KEY_PREVIOUS ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    if (current === undefined && previous.length > 0) {
      throw new RequestStateKeyError(
        'TOOLPACT_STATE_KEY_PREVIOUS',
        'TOOLPACT_STATE_KEY_PREVIOUS is set but TOOLPACT_STATE_KEY is not: previous keys only open states, so ' +
          'a rotation needs the new key in TOOLPACT_STATE_KEY.',
      );
    }
    const key = current === undefined ? undefined : keyFrom(current, 'TOOLPACT_STATE_KEY');
    const previousKeys = previous.map((entry, index) =>
      keyFrom(
        entry,
        previous.length === 1
          ? 'TOOLPACT_STATE_KEY_PREVIOUS'
          : `TOOLPACT_STATE_KEY_PREVIOUS (key ${index + 1} of ${previous.length})`,
      ),
    );
    return new RequestStateSealer({ ...options, key, previousKeys });
  }

  constructor(options: RequestStateOptions = {}) {
    const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > MAX_TTL_MS) {
      throw new RangeError(
        `RequestStateSealer: ttlMs must be a whole number of milliseconds from 1 to ${MAX_TTL_MS} (24 hours); got ${ttlMs}.`,
      );
    }
    this.ttlMs = ttlMs;
    this.ephemeral = options.key === undefined;
    const material = options.key === undefined ? randomBytes(KEY_BYTES) : keyFrom(options.key, 'options.key');
    this.#sealing = derive(material);
    this.keyId = this.#sealing.id.toString(16).padStart(8, '0');
    this.#opening.set(this.#sealing.id, this.#sealing.key);
    const seen = [material];
    for (const [index, previous] of (options.previousKeys ?? []).entries()) {
      const bytes = keyFrom(previous, `options.previousKeys[${index}]`);
      if (seen.some((known) => known.equals(bytes))) continue;
      seen.push(bytes);
      const derived = derive(bytes);
      // Two different keys with one 32-bit id: astronomically rare, but then one would shadow the other.
      if (this.#opening.has(derived.id)) {
        throw new RequestStateKeyError(
          `options.previousKeys[${index}]`,
          `Two different state keys share the key id ${derived.id.toString(16).padStart(8, '0')}; retire one of them.`,
        );
      }
      this.#opening.set(derived.id, derived.key);
    }
    this.#usedStates = options.usedStates ?? new MemoryUsedStateStore();
    this.#sharedClaim = options.sharedClaim;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Seals a new state for `binding`, valid for `ttlMs`, with a fresh random id and nonce. `data` (any
   * JSON value, kept small) comes back from `open`/`consume`. Throws a `RangeError` when the state
   * would be longer than 16,384 characters (too much `data`, or a very long principal).
   *
   * @example
   * const requestState = sealer.seal(bindingFor('write_file', args, 'ask-writes', undefined), { approval: 'a-17' });
   */
  seal(binding: RequestStateBinding, data?: unknown): string {
    const random = randomBytes(NONCE_BYTES + STATE_ID_BYTES);
    const nonce = random.subarray(0, NONCE_BYTES);
    const payload = JSON.stringify({
      i: random.subarray(NONCE_BYTES).toString('base64url'),
      t: binding.tool,
      a: binding.argumentsDigest,
      r: binding.rule ?? undefined,
      p: binding.principal ?? undefined,
      d: data,
    });
    const header = Buffer.allocUnsafe(HEADER_BYTES);
    header[0] = VERSION;
    header.writeUInt32BE(this.#sealing.id, 1);
    header.writeBigUInt64BE(BigInt(Math.floor(this.#now() + this.ttlMs)), 5);
    const cipher = createCipheriv('aes-256-gcm', this.#sealing.key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(header);
    const sealed = Buffer.concat([
      header,
      nonce,
      cipher.update(payload, 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]).toString('base64url');
    if (sealed.length > MAX_STATE_LENGTH) {
      throw new RangeError(
        `RequestStateSealer.seal: the state for "${binding.tool}" would be ${sealed.length} characters; at most ` +
          `${MAX_STATE_LENGTH} are accepted. Keep \`data\` small (an id, not a document).`,
      );
    }
    return sealed;
  }

  /**
   * Checks a state against the call it is presented with, without using it up: well-formed, sealed by
   * one of this sealer's keys, unaltered, unexpired, issued for `expected`. Does not consult the
   * used-state store; use {@link consume} before running anything.
   *
   * @example
   * const opened = sealer.open(request.requestState, bindingFor(name, request.arguments, rule, principal));
   */
  open(state: unknown, expected: RequestStateBinding): RequestStateOpened | RequestStateRefusal {
    return this.#read(state, expected, false);
  }

  /**
   * {@link open}, then marks the state used, in one synchronous step: of any number of requests
   * carrying the same state, exactly one gets `ok: true`; the others are refused as `used`.
   *
   * @example
   * const opened = sealer.consume(request.requestState, bindingFor(name, request.arguments, rule, principal));
   * if (!opened.ok) return { isError: true, content: [{ type: 'text', text: opened.message }] };
   */
  /**
   * {@link consume}, with single use decided by the shared store when the sealer has one (across
   * every replica), else by its own. A store that cannot be reached refuses the state as `busy`.
   *
   * @example
   * const opened = await sealer.consumeShared(request.requestState, binding);
   */
  async consumeShared(
    state: unknown,
    expected: RequestStateBinding,
  ): Promise<RequestStateOpened | RequestStateRefusal> {
    const claim = this.#sharedClaim;
    if (!claim) return this.consume(state, expected);
    const opened = this.#read(state, expected, false);
    if (!opened.ok) return opened;
    let claimed: 'claimed' | 'used';
    try {
      claimed = await claim(opened.id, opened.expiresAt);
    } catch {
      return refuse('busy', expected.tool);
    }
    return claimed === 'claimed' ? opened : refuse('used', expected.tool);
  }

  consume(state: unknown, expected: RequestStateBinding): RequestStateOpened | RequestStateRefusal {
    return this.#read(state, expected, true);
  }

  #read(
    state: unknown,
    expected: RequestStateBinding,
    consume: boolean,
  ): RequestStateOpened | RequestStateRefusal {
    const tool = expected.tool;
    const bytes = decodeState(state);
    if (typeof bytes === 'string') return refuse('malformed', tool, bytes);
    const key = this.#opening.get(bytes.readUInt32BE(1));
    if (key === undefined) return refuse('unknown_key', tool, this.ephemeral ? EPHEMERAL_HINT : '');
    const payload = decrypt(key, bytes);
    if (payload === undefined) return refuse('tampered', tool);
    const sealed = payloadOf(payload);
    if (sealed === undefined) return refuse('malformed', tool, 'its sealed content is not a request state');
    const expiresAt = Number(bytes.readBigUInt64BE(5));
    const now = this.#now();
    if (now >= expiresAt) return refuse('expired', tool, new Date(expiresAt).toISOString());
    const mismatched: RequestStateBindingField[] = [];
    if (sealed.t !== expected.tool) mismatched.push('tool');
    if (sealed.a !== expected.argumentsDigest) mismatched.push('arguments');
    if (sealed.r !== (expected.rule ?? undefined)) mismatched.push('rule');
    if (sealed.p !== (expected.principal ?? undefined)) mismatched.push('principal');
    if (mismatched.length > 0) return refuse('mismatch', tool, mismatched.join(', '), mismatched);
    if (consume) {
      const claim = this.#usedStates.claim(sealed.i, expiresAt, now);
      if (claim !== 'claimed') return refuse(claim === 'used' ? 'used' : 'busy', tool);
    }
    return { ok: true, id: sealed.i, expiresAt, data: sealed.d };
  }
}

const EPHEMERAL_HINT =
  ' (this server seals with a key of its own process, so a state from another replica or from before a ' +
  'restart cannot be opened: its operator should set TOOLPACT_STATE_KEY on every instance)';

/** The one place a refusal's words are written. */
function refuse(
  code: RequestStateRefusalCode,
  tool: string,
  detail = '',
  mismatched?: readonly RequestStateBindingField[],
): RequestStateRefusal {
  const name = JSON.stringify(tool.slice(0, 200));
  const again = `Call ${name} again ${AFRESH}.`;
  let message: string;
  switch (code) {
    case 'malformed':
      message = `The requestState is not one this server issued: ${detail}. ${again}`;
      break;
    case 'unknown_key':
      message = `The requestState was sealed with a key this server does not hold (another deployment, or a key since retired)${detail}. ${again}`;
      break;
    case 'tampered':
      message = `The requestState failed its integrity check: it was altered after this server sealed it. ${again}`;
      break;
    case 'expired':
      message = `The requestState expired at ${detail}. ${again}`;
      break;
    case 'mismatch':
      message = `The requestState was issued for another call (it differs in: ${detail}). A requestState answers only the call it was issued for: retry that call as it was, or call ${name} again ${AFRESH}.`;
      break;
    case 'used':
      message = `The requestState has already been used: each one answers a single retry. ${again}`;
      break;
    case 'busy':
      message = `This server cannot record another used requestState right now (it holds as many as it may until they expire). Try again in a few minutes, or call ${name} again ${AFRESH}.`;
      break;
    default: {
      const unreachable: never = code;
      throw new Error(`unknown refusal ${String(unreachable)}`);
    }
  }
  return mismatched === undefined ? { ok: false, code, message } : { ok: false, code, message, mismatched };
}

interface SealedPayload {
  readonly i: string;
  readonly t: string;
  readonly a: string;
  readonly r: string | undefined;
  readonly p: string | undefined;
  readonly d: unknown;
}

/** The bytes of a state of the current version, or why it is malformed (its shape only, never its text). */
function decodeState(state: unknown): Buffer | string {
  if (typeof state !== 'string')
    return `it is ${state === null ? 'null' : `a ${typeof state}`}, not a string`;
  if (state.length > MAX_STATE_LENGTH) {
    return `it is ${state.length} characters long; at most ${MAX_STATE_LENGTH} are accepted`;
  }
  if (state === '') return 'it is empty';
  if (!BASE64URL.test(state)) return 'it is not base64url text';
  const bytes = Buffer.from(state, 'base64url');
  if (bytes.length < HEADER_BYTES + NONCE_BYTES + 1 + TAG_BYTES) {
    return `it is too short to hold a sealed state (${state.length} characters)`;
  }
  // One state, one spelling: unused low bits in the last character would otherwise give variants.
  if (bytes.toString('base64url') !== state) return 'it is not canonical base64url';
  if (bytes[0] !== VERSION) return `its format version is ${bytes[0]}; this server reads version ${VERSION}`;
  return bytes;
}

/** Authenticates and decrypts; undefined when the tag does not verify. */
function decrypt(key: KeyObject, bytes: Buffer): string | undefined {
  const nonceEnd = HEADER_BYTES + NONCE_BYTES;
  const tagStart = bytes.length - TAG_BYTES;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(HEADER_BYTES, nonceEnd), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(bytes.subarray(0, HEADER_BYTES));
    decipher.setAuthTag(bytes.subarray(tagStart));
    const plain = Buffer.concat([decipher.update(bytes.subarray(nonceEnd, tagStart)), decipher.final()]);
    return plain.toString('utf8');
  } catch {
    return undefined;
  }
}

function payloadOf(text: string): SealedPayload | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { i, t, a, r, p, d } = value as Record<string, unknown>;
  const optional = (entry: unknown) => entry === undefined || typeof entry === 'string';
  if (typeof i !== 'string' || typeof t !== 'string' || typeof a !== 'string') return undefined;
  if (!optional(r) || !optional(p)) return undefined;
  return { i, t, a, r: r as string | undefined, p: p as string | undefined, d };
}

/** Separate keys for sealing and for the key id, so the id says nothing usable about the sealing key. */
function derive(material: Buffer): SealingKey {
  const salt = 'toolpact.requestState';
  const sealing = Buffer.from(hkdfSync('sha256', material, salt, 'v1 aes-256-gcm', KEY_BYTES));
  const id = Buffer.from(hkdfSync('sha256', material, salt, 'v1 key id', 4)).readUInt32BE(0);
  return { id, key: createSecretKey(sealing) };
}

/** Parses a key; the error says what came (length, encoding), never the key itself. */
function keyFrom(value: string | Uint8Array, source: string): Buffer {
  if (typeof value !== 'string') {
    if (value.byteLength === KEY_BYTES) return Buffer.from(value);
    throw new RequestStateKeyError(
      source,
      `${source} is ${value.byteLength} bytes; a state key is exactly ${KEY_BYTES}. ${KEY_HELP}`,
    );
  }
  const text = value.trim();
  const unpadded = text.replace(/=+$/, '');
  let received: string;
  if (text === '') received = 'it is empty';
  else if (HEX_TEXT.test(text)) {
    if (text.length === 2 * KEY_BYTES) return Buffer.from(text, 'hex');
    received = `it is ${text.length} hex digits`;
  } else if (!BASE64_TEXT.test(text)) {
    received = `it is ${text.length} characters, some of them neither hex digits nor base64`;
  } else {
    const bytes = Buffer.from(unpadded, 'base64');
    const canonical = bytes.toString('base64url') === unpadded.replace(/\+/g, '-').replace(/\//g, '_');
    const padding = text.length - unpadded.length;
    if (bytes.length === KEY_BYTES && canonical && padding <= 1) return bytes;
    received = `it is ${text.length} characters of base64 that decode to ${bytes.length} bytes${
      canonical ? '' : ' (with stray bits at the end)'
    }`;
  }
  throw new RequestStateKeyError(source, `${source} is not a usable state key: ${received}. ${KEY_HELP}`);
}
