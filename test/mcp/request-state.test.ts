import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  bindingFor,
  MemoryUsedStateStore,
  RequestStateKeyError,
  type RequestStateOpened,
  type RequestStateRefusal,
  RequestStateSealer,
} from '../../src/mcp/request-state.js';

const KEY = Buffer.alloc(32, 7);
const OLD_KEY = Buffer.alloc(32, 9);
const args = { path: 'notes/todo.md', text: 'buy milk' };
const binding = bindingFor('write_file', args, 'ask-writes', 'alice');

/** A clock the test moves by hand. */
function clock(start = 1_800_000_000_000) {
  const time = { now: start };
  return { time, now: () => time.now };
}

function refused(result: RequestStateOpened | RequestStateRefusal): RequestStateRefusal {
  if (result.ok) throw new Error('expected a refusal, got an opened state');
  return result;
}

/** The state's bytes with one bit flipped at `offset`, encoded again. */
function flipped(state: string, offset: number, bit = 0): string {
  const bytes = Buffer.from(state, 'base64url');
  bytes[offset]! ^= 1 << bit;
  return bytes.toString('base64url');
}

describe('round trip', () => {
  test('a sealed state opens and is consumed for the call it was issued for, carrying its data', () => {
    const { now } = clock();
    const sealer = new RequestStateSealer({ key: KEY, now });
    const state = sealer.seal(binding, { approval: 'a-17' });
    const opened = sealer.open(state, binding);
    expect(opened).toMatchObject({ ok: true, expiresAt: now() + 600_000, data: { approval: 'a-17' } });
    const consumed = sealer.consume(state, binding);
    expect(consumed.ok).toBe(true);
    expect((consumed as RequestStateOpened).id).toBe((opened as RequestStateOpened).id);
  });

  test('argument key order does not matter; missing arguments are {}', () => {
    const sealer = new RequestStateSealer({ key: KEY });
    const state = sealer.seal(bindingFor('t', { a: 1, b: [2, { c: 3, d: 4 }] }, undefined, undefined));
    expect(
      sealer.open(state, bindingFor('t', { b: [2, { d: 4, c: 3 }], a: 1 }, undefined, undefined)).ok,
    ).toBe(true);
    const empty = sealer.seal(bindingFor('t', undefined, undefined, undefined));
    expect(sealer.open(empty, bindingFor('t', {}, undefined, undefined)).ok).toBe(true);
  });

  test('wire format: version 1, key id, expiry, then nonce, ciphertext and tag; nothing in clear', () => {
    const { now } = clock();
    const sealer = new RequestStateSealer({ key: KEY, now });
    const state = sealer.seal(binding);
    expect(state).toMatch(/^[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(state, 'base64url');
    expect(bytes[0]).toBe(1);
    expect(bytes.subarray(1, 5).toString('hex')).toBe(sealer.keyId);
    expect(Number(bytes.readBigUInt64BE(5))).toBe(now() + 600_000);
    expect(bytes.toString('latin1')).not.toContain('write_file');
    expect(bytes.toString('latin1')).not.toContain('alice');
    expect(state.length).toBeLessThan(400);
    const again = Buffer.from(sealer.seal(binding), 'base64url');
    expect(again.subarray(13, 25).equals(bytes.subarray(13, 25))).toBe(false); // a fresh nonce per seal
  });

  test('a state too large to carry is refused at seal (a programmer error)', () => {
    const sealer = new RequestStateSealer({ key: KEY });
    expect(() => sealer.seal(binding, { blob: 'x'.repeat(20_000) })).toThrow(RangeError);
    expect(() => sealer.seal(binding, { blob: 'x'.repeat(20_000) })).toThrow(/at most 16384/);
  });

  test('ttlMs outside 1 ms to 24 hours is refused at construction', () => {
    for (const ttlMs of [0, -1, 1.5, 24 * 3_600_000 + 1, Number.NaN]) {
      expect(() => new RequestStateSealer({ ttlMs })).toThrow(RangeError);
    }
    expect(new RequestStateSealer({ ttlMs: 5_000 }).ttlMs).toBe(5_000);
  });
});

describe('tampering', () => {
  const sealer = new RequestStateSealer({ key: KEY });
  const state = sealer.seal(binding, { approval: 'a-17' });
  const length = Buffer.from(state, 'base64url').length;
  const regions = [
    ['version byte', 0, 'malformed'],
    ['key id', 2, 'unknown_key'],
    ['expiry', 11, 'tampered'],
    ['nonce', 18, 'tampered'],
    ['ciphertext', 30, 'tampered'],
    ['tag', length - 3, 'tampered'],
  ] as const;

  test.each(regions)('a bit flipped in the %s is refused (byte %i → %s)', (_region, offset, code) => {
    const state = sealer.seal(binding, { approval: 'a-17' });
    for (const bit of [0, 7]) {
      const result = refused(sealer.consume(flipped(state, offset, bit), binding));
      expect(result.code).toBe(code);
      expect(result.message).toContain('without requestState to be asked afresh');
    }
    expect(sealer.consume(state, binding).ok).toBe(true); // none of the attempts used the state up
  });

  test('every single-bit flip anywhere is refused (property)', () => {
    const fresh = new RequestStateSealer({ key: KEY });
    const sealed = fresh.seal(binding);
    const size = Buffer.from(sealed, 'base64url').length;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: size - 1 }), fc.integer({ min: 0, max: 7 }), (offset, bit) => {
        const result = fresh.open(flipped(sealed, offset, bit), binding);
        return !result.ok && ['malformed', 'unknown_key', 'tampered'].includes(result.code);
      }),
      { numRuns: 500 },
    );
  });

  test('a truncated or extended state is refused', () => {
    const bytes = Buffer.from(state, 'base64url');
    expect(refused(sealer.open(bytes.subarray(0, -1).toString('base64url'), binding)).code).toBe('tampered');
    expect(
      refused(sealer.open(Buffer.concat([bytes, Buffer.from([0])]).toString('base64url'), binding)).code,
    ).toBe('tampered');
    expect(refused(sealer.open(bytes.subarray(0, 40).toString('base64url'), binding)).code).toBe('malformed');
  });
});

describe('malformed', () => {
  const sealer = new RequestStateSealer({ key: KEY });
  const state = sealer.seal(binding);

  test.each([
    ['undefined', undefined, /it is a undefined, not a string/],
    ['a number', 42, /not a string/],
    ['null', null, /it is null/],
    ['an object', { requestState: state }, /not a string/],
    ['empty', '', /it is empty/],
    ['not base64url', `${state.slice(0, 20)}+/${state.slice(22)}`, /not base64url/],
    ['padded', `${state}=`, /not base64url/],
    ['too short', 'AQAAAAAAAAAA', /too short/],
    ['too long', 'A'.repeat(16_385), /16385 characters long; at most 16384/],
  ])('%s', (_name, value, message) => {
    const result = refused(sealer.consume(value, binding));
    expect(result.code).toBe('malformed');
    expect(result.message).toMatch(message);
    expect(result.message).toContain('Call "write_file" again without requestState to be asked afresh.');
  });

  test('another format version', () => {
    const bytes = Buffer.from(state, 'base64url');
    bytes[0] = 2;
    const result = refused(sealer.open(bytes.toString('base64url'), binding));
    expect(result.code).toBe('malformed');
    expect(result.message).toContain('its format version is 2; this server reads version 1');
  });

  test('a non-canonical spelling of a valid state (unused low bits set) is refused', () => {
    // A state whose length leaves unused bits in its last character (the data decides the length).
    const canonical = ['', 'x', 'xx']
      .map((data) => sealer.seal(binding, data))
      .find((sealed) => sealed.length % 4)!;
    const bytes = Buffer.from(canonical, 'base64url');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(canonical.at(-1)!);
    const variant = canonical.slice(0, -1) + alphabet[last | 1];
    expect(Buffer.from(variant, 'base64url').equals(bytes)).toBe(true);
    expect(refused(sealer.open(variant, binding)).message).toContain('not canonical');
  });

  test('random strings never throw and are never accepted (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 600 }), fc.base64String({ maxLength: 600 })), (text) => {
        const result = sealer.consume(text.replace(/\+/g, '-').replace(/\//g, '_'), binding);
        // unknown_key: a random string whose first byte happens to read as version 1.
        return !result.ok && ['malformed', 'unknown_key', 'tampered'].includes(result.code);
      }),
      { numRuns: 2000 },
    );
  });

  test('random bytes behind a valid header are refused as tampered or malformed, never thrown (property)', () => {
    const header = Buffer.from(state, 'base64url').subarray(0, 13);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (tail) => {
        const result = sealer.consume(Buffer.concat([header, tail]).toString('base64url'), binding);
        return !result.ok && ['malformed', 'tampered'].includes(result.code);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('expiry', () => {
  test('a state opens until its expiry and is refused from then on', () => {
    const { time, now } = clock();
    const sealer = new RequestStateSealer({ key: KEY, now, ttlMs: 60_000 });
    const state = sealer.seal(binding);
    time.now += 59_999;
    expect(sealer.open(state, binding).ok).toBe(true);
    time.now += 1;
    const result = refused(sealer.consume(state, binding));
    expect(result.code).toBe('expired');
    expect(result.message).toContain(new Date(time.now).toISOString());
  });

  test('an altered expiry is tampering, not a new lifetime', () => {
    const { time, now } = clock();
    const sealer = new RequestStateSealer({ key: KEY, now, ttlMs: 1_000 });
    const state = sealer.seal(binding);
    time.now += 5_000;
    const bytes = Buffer.from(state, 'base64url');
    bytes.writeBigUInt64BE(BigInt(time.now + 3_600_000), 5);
    expect(refused(sealer.consume(bytes.toString('base64url'), binding)).code).toBe('tampered');
  });
});

describe('keys', () => {
  test('a state sealed with another key is unknown_key', () => {
    const state = new RequestStateSealer({ key: OLD_KEY }).seal(binding);
    const result = refused(new RequestStateSealer({ key: KEY }).consume(state, binding));
    expect(result.code).toBe('unknown_key');
    expect(result.message).not.toContain('TOOLPACT_STATE_KEY');
  });

  test('rotation: previous keys open, never seal; without them the old state is unknown_key', () => {
    const before = new RequestStateSealer({ key: OLD_KEY });
    const state = before.seal(binding);
    const rotated = new RequestStateSealer({ key: KEY, previousKeys: [OLD_KEY] });
    expect(rotated.consume(state, binding).ok).toBe(true);
    const fresh = Buffer.from(rotated.seal(binding), 'base64url');
    expect(fresh.subarray(1, 5).toString('hex')).toBe(rotated.keyId);
    expect(rotated.keyId).not.toBe(before.keyId);
    expect(refused(new RequestStateSealer({ key: KEY }).consume(state, binding)).code).toBe('unknown_key');
  });

  test('the key id is derived from the key and does not contain it', () => {
    const sealer = new RequestStateSealer({ key: KEY });
    expect(sealer.keyId).toMatch(/^[0-9a-f]{8}$/);
    expect(KEY.toString('hex')).not.toContain(sealer.keyId);
    expect(new RequestStateSealer({ key: KEY }).keyId).toBe(sealer.keyId);
  });

  test('the same 32 bytes as hex, base64 and base64url are one key', () => {
    const material = randomBytes(32);
    const spellings = [
      material.toString('hex'),
      material.toString('hex').toUpperCase(),
      material.toString('base64'),
      material.toString('base64').replace(/=+$/, ''),
      material.toString('base64url'),
      ` ${material.toString('base64url')}\n`,
      material,
      new Uint8Array(material),
    ];
    const sealers = spellings.map((key) => new RequestStateSealer({ key }));
    const state = sealers[0]!.seal(binding);
    for (const sealer of sealers) {
      expect(sealer.keyId).toBe(sealers[0]!.keyId);
      expect(sealer.open(state, binding).ok).toBe(true);
    }
  });

  test.each([
    ['62 hex digits', randomBytes(31).toString('hex'), /it is 62 hex digits/],
    ['66 hex digits', randomBytes(33).toString('hex'), /it is 66 hex digits/],
    ['base64 of 16 bytes', randomBytes(16).toString('base64'), /decode to 16 bytes/],
    ['base64url of 48 bytes', randomBytes(48).toString('base64url'), /decode to 48 bytes/],
    ['a passphrase', 'correct horse battery staple!', /neither hex digits nor base64/],
    ['empty', '', /it is empty/],
    ['spaces', '   ', /it is empty/],
  ])('a key given as %s is refused, naming what came but not the key', (_name, key, message) => {
    const error = (() => {
      try {
        new RequestStateSealer({ key });
      } catch (caught) {
        return caught;
      }
      throw new Error('expected the key to be refused');
    })();
    expect(error).toBeInstanceOf(RequestStateKeyError);
    expect((error as RequestStateKeyError).source).toBe('options.key');
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('64 hex digits');
    if (key.trim().length >= 4) {
      for (let start = 0; start + 6 <= key.length; start += 3) {
        expect((error as Error).message).not.toContain(key.slice(start, start + 6));
      }
    }
  });

  test('a key of the wrong byte length is refused', () => {
    expect(() => new RequestStateSealer({ key: new Uint8Array(16) })).toThrow(
      /is 16 bytes; a state key is exactly 32/,
    );
    expect(() => new RequestStateSealer({ key: KEY, previousKeys: [KEY, 'nope'] })).toThrow(
      /options\.previousKeys\[1\]/,
    );
  });
});

describe('environment', () => {
  test('without TOOLPACT_STATE_KEY the key is ephemeral: another process cannot open its states', () => {
    const one = RequestStateSealer.fromEnvironment({});
    const other = RequestStateSealer.fromEnvironment({});
    expect(one.ephemeral).toBe(true);
    expect(one.keyId).not.toBe(other.keyId);
    const result = refused(other.consume(one.seal(binding), binding));
    expect(result.code).toBe('unknown_key');
    expect(result.message).toContain('TOOLPACT_STATE_KEY');
  });

  test('TOOLPACT_STATE_KEY and TOOLPACT_STATE_KEY_PREVIOUS (comma-separated) rotate', () => {
    const older = randomBytes(32);
    const old = RequestStateSealer.fromEnvironment({ TOOLPACT_STATE_KEY: OLD_KEY.toString('hex') });
    const oldest = RequestStateSealer.fromEnvironment({ TOOLPACT_STATE_KEY: older.toString('base64url') });
    const current = RequestStateSealer.fromEnvironment({
      TOOLPACT_STATE_KEY: KEY.toString('base64'),
      TOOLPACT_STATE_KEY_PREVIOUS: ` ${OLD_KEY.toString('hex')} , ${older.toString('base64url')},`,
    });
    expect(old.ephemeral).toBe(false);
    expect(current.ephemeral).toBe(false);
    expect(current.keyId).toBe(new RequestStateSealer({ key: KEY }).keyId);
    expect(current.consume(old.seal(binding), binding).ok).toBe(true);
    expect(current.consume(oldest.seal(binding), binding).ok).toBe(true);
  });

  test('a bad environment key throws at construction, naming the variable, never the value', () => {
    const secret = 'deadbeef'.repeat(7); // 56 hex digits
    expect(() => RequestStateSealer.fromEnvironment({ TOOLPACT_STATE_KEY: secret })).toThrow(
      /^TOOLPACT_STATE_KEY is not a usable state key: it is 56 hex digits\./,
    );
    expect(() => RequestStateSealer.fromEnvironment({ TOOLPACT_STATE_KEY: '' })).toThrow(/it is empty/);
    try {
      RequestStateSealer.fromEnvironment({
        TOOLPACT_STATE_KEY: KEY.toString('hex'),
        TOOLPACT_STATE_KEY_PREVIOUS: `${OLD_KEY.toString('hex')},${secret}`,
      });
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(RequestStateKeyError);
      expect((error as RequestStateKeyError).source).toBe('TOOLPACT_STATE_KEY_PREVIOUS (key 2 of 2)');
      expect((error as Error).message).not.toContain('deadbeef');
      expect((error as Error).message).not.toContain(OLD_KEY.toString('hex').slice(0, 8));
    }
  });

  test('previous keys without a current key are a configuration that cannot rotate', () => {
    expect(() =>
      RequestStateSealer.fromEnvironment({ TOOLPACT_STATE_KEY_PREVIOUS: OLD_KEY.toString('hex') }),
    ).toThrow(/TOOLPACT_STATE_KEY_PREVIOUS is set but TOOLPACT_STATE_KEY is not/);
  });

  test('options other than keys pass through', () => {
    const { now } = clock();
    const sealer = RequestStateSealer.fromEnvironment(
      { TOOLPACT_STATE_KEY: KEY.toString('hex') },
      { ttlMs: 1_000, now },
    );
    expect(sealer.ttlMs).toBe(1_000);
    expect((sealer.open(sealer.seal(binding), binding) as RequestStateOpened).expiresAt).toBe(now() + 1_000);
  });
});

describe('binding', () => {
  const sealer = new RequestStateSealer({ key: KEY });
  test.each([
    [
      'other arguments',
      bindingFor('write_file', { ...args, text: 'sell milk' }, 'ask-writes', 'alice'),
      ['arguments'],
    ],
    ['another tool', bindingFor('delete_file', args, 'ask-writes', 'alice'), ['tool']],
    ['another rule', bindingFor('write_file', args, 'ask-deletes', 'alice'), ['rule']],
    ['no rule', bindingFor('write_file', args, undefined, 'alice'), ['rule']],
    ['another principal', bindingFor('write_file', args, 'ask-writes', 'mallory'), ['principal']],
    ['no principal', bindingFor('write_file', args, 'ask-writes', undefined), ['principal']],
    ['everything else', bindingFor('x', {}, 'r', 'p'), ['tool', 'arguments', 'rule', 'principal']],
  ] as const)(
    'replayed on %s: mismatch, and the state stays usable for its own call',
    (_name, other, fields) => {
      const state = sealer.seal(binding);
      const result = refused(sealer.consume(state, other));
      expect(result.code).toBe('mismatch');
      expect(result.mismatched).toEqual(fields);
      expect(result.message).toContain(`it differs in: ${fields.join(', ')}`);
      expect(result.message).not.toContain('alice');
      expect(sealer.consume(state, binding).ok).toBe(true);
    },
  );
});

describe('single use', () => {
  test('a consumed state replayed as it is: used', () => {
    const sealer = new RequestStateSealer({ key: KEY });
    const state = sealer.seal(binding);
    expect(sealer.consume(state, binding).ok).toBe(true);
    const result = refused(sealer.consume(state, binding));
    expect(result.code).toBe('used');
    expect(result.message).toContain('already been used');
    expect(sealer.open(state, binding).ok).toBe(true); // open does not consult the store
  });

  test('many concurrent consumes of one state in one process: exactly one succeeds', async () => {
    const store = new MemoryUsedStateStore();
    // Two servers in one process sharing a store, as a fleet would share a database.
    const servers = [
      new RequestStateSealer({ key: KEY, usedStates: store }),
      new RequestStateSealer({ key: KEY, usedStates: store }),
    ];
    const state = servers[0]!.seal(binding);
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        await new Promise((resolve) => setImmediate(resolve));
        return servers[index % 2]!.consume(state, binding);
      }),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(new Set(results.filter((result) => !result.ok).map((result) => result.code))).toEqual(
      new Set(['used']),
    );
  });

  test('the in-memory store drops ids once they expire', () => {
    const store = new MemoryUsedStateStore();
    expect(store.claim('a', 100, 0)).toBe('claimed');
    expect(store.claim('b', 200, 0)).toBe('claimed');
    expect(store.claim('a', 100, 50)).toBe('used');
    expect(store.claim('c', 300, 150)).toBe('claimed');
    expect(store.size).toBe(2); // a is gone
    expect(store.claim('d', 400, 1_000)).toBe('claimed');
    expect(store.size).toBe(1);
  });

  test('when full of live ids it refuses (busy) rather than forget one, until they expire', () => {
    const { time, now } = clock(0);
    const store = new MemoryUsedStateStore({ maxEntries: 2 });
    const sealer = new RequestStateSealer({ key: KEY, now, ttlMs: 1_000, usedStates: store });
    const first = sealer.seal(binding);
    const second = sealer.seal(binding);
    time.now = 500;
    const third = sealer.seal(binding);
    expect(sealer.consume(first, binding).ok).toBe(true);
    expect(sealer.consume(second, binding).ok).toBe(true);
    const busy = refused(sealer.consume(third, binding));
    expect(busy.code).toBe('busy');
    expect(busy.message).toContain('Try again in a few minutes');
    expect(refused(sealer.consume(first, binding)).code).toBe('used');
    time.now = 1_000; // first and second expire
    expect(sealer.consume(third, binding).ok).toBe(true);
    expect(store.size).toBe(1);
    expect(refused(sealer.consume(first, binding)).code).toBe('expired'); // evicted, yet still refused
  });

  test('a full store sweeps out-of-order expiries, and not before the earliest can have expired', () => {
    const store = new MemoryUsedStateStore({ maxEntries: 2 });
    expect(store.claim('late', 500, 0)).toBe('claimed');
    expect(store.claim('early', 300, 0)).toBe('claimed');
    expect(store.claim('x', 900, 100)).toBe('full');
    expect(store.claim('x', 900, 299)).toBe('full');
    expect(store.claim('x', 900, 300)).toBe('claimed'); // early swept from behind late
    expect(store.size).toBe(2);
    expect(store.claim('late', 500, 400)).toBe('used');
  });

  test('maxEntries must be a positive integer', () => {
    expect(() => new MemoryUsedStateStore({ maxEntries: 0 })).toThrow(RangeError);
  });
});
