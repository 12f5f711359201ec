/** The pure parts of serveHttp's limits, by table: Host reading, who a client is, which sessions go, JSON depth. */
import { describe, expect, test } from 'vitest';
import { clientOf, parseHostHeader } from '../../src/mcp/index.js';
import { jsonDepth } from '../../src/mcp/json-body.js';
import { expiredSessions, type SessionUse, sessionsToEvict } from '../../src/mcp/session-limits.js';

describe('parseHostHeader', () => {
  test.each([
    ['localhost', 'localhost', undefined],
    ['LocalHost:3000', 'localhost', 3000],
    ['127.0.0.1:80', '127.0.0.1', 80],
    ['[::1]:8080', '[::1]', 8080],
    ['[0:0:0:0:0:0:0:1]', '[::1]', undefined],
    ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', undefined],
    ['2130706433', '127.0.0.1', undefined],
    ['0x7f.1', '127.0.0.1', undefined],
    ['my_service.internal:0', 'my_service.internal', 0],
    ['example.com.:65535', 'example.com.', 65_535],
  ])('%j → %s port %s', (value, hostname, port) => {
    expect(parseHostHeader(value)).toEqual({ hostname, port });
  });

  test.each([
    undefined,
    '',
    ' ',
    'localhost:1@evil',
    'user@localhost',
    'localhost:abc',
    'localhost:',
    'localhost:+80',
    'localhost:65536',
    'localhost:123456',
    'localhost/evil',
    'localhost?x',
    'localhost#x',
    'local host',
    'localhost\t',
    '::1',
    '[::1',
    '[::1]x',
    '[::1]:',
    '[evil.com]',
    '[::1]:80:80',
    'a..b',
    '.localhost',
    'xn--bcher-kva.example:80:',
    '%6cocalhost',
    '1.2.3.256',
    `${'a'.repeat(64)}.com`,
    `${'a.'.repeat(130)}com`,
  ])('%j is not host[:port]', (value) => {
    expect(parseHostHeader(value)).toBeUndefined();
  });
});

describe('clientOf', () => {
  test.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.2', '127.0.0.2'],
    ['::FFFF:10.0.0.1', '10.0.0.1'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:bbbb:cccc:dddd:eeee', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002::', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    [undefined, 'unknown'],
  ])('%j → %s', (address, client) => {
    expect(clientOf(address)).toBe(client);
  });
});

describe('which sessions go', () => {
  const table = new Map<string, SessionUse>([
    ['a-old-busy', { client: 'a', lastActive: 1, inFlight: 1 }],
    ['a-old-idle', { client: 'a', lastActive: 2, inFlight: 0 }],
    ['b-oldest', { client: 'b', lastActive: 0, inFlight: 0 }],
    ['a-new-idle', { client: 'a', lastActive: 5, inFlight: 0 }],
    ['a-new-busy', { client: 'a', lastActive: 6, inFlight: 2 }],
  ]);

  test.each([
    ['a', 4, []],
    ['a', 3, ['a-old-idle']],
    ['a', 2, ['a-old-idle', 'a-new-idle']],
    ['a', 1, ['a-old-idle', 'a-new-idle', 'a-old-busy']],
    ['a', 0, ['a-old-idle', 'a-new-idle', 'a-old-busy', 'a-new-busy']],
    ['b', 0, ['b-oldest']],
    ['c', 0, []],
  ])(
    'client %s keeping %i closes %j: idle first, oldest first, never another client',
    (client, keep, ids) => {
      expect(sessionsToEvict(table, client, keep)).toEqual(ids);
    },
  );

  test.each([
    [4, 10, []],
    [5, 5, ['b-oldest']],
    [7, 5, ['a-old-idle', 'b-oldest']],
    [1000, 1, ['a-old-idle', 'b-oldest', 'a-new-idle']],
  ])('at %i with idle %i, %j have expired; a session with a request open never does', (now, idleMs, ids) => {
    expect(expiredSessions(table, now, idleMs)).toEqual(ids);
  });
});

describe('jsonDepth', () => {
  test.each([
    ['1', 0],
    ['[]', 1],
    ['{"a":[1,{"b":[]}]}', 4],
    ['["[[[["]', 1],
    ['["\\"[[[["]', 1],
    ['["\\\\",[[[]]]]', 4],
    ['["\\\\\\"[[",[]]', 2],
    ['{"é[":"😀{{"}', 1],
    ['[[]][[[]]]', 3],
    [']]]][[', 2],
  ])('%s → %i', (text, depth) => {
    expect(jsonDepth(Buffer.from(text), 100)).toBe(depth);
  });

  test('closing brackets before any opening one buy no extra depth', () => {
    expect(jsonDepth(Buffer.from(`${']'.repeat(10)}${'['.repeat(65)}`), 64)).toBe(65);
  });

  test('stops as soon as the limit is passed', () => {
    expect(jsonDepth(Buffer.from('['.repeat(1_000_000)), 64)).toBe(65);
  });
});
