// The stdin of `toolpact gateway`: the opening of either era passes at once, everything after it waits
// for the tools, in order, and the servers start at the first message other than server/discover.
import { PassThrough, type Readable } from 'node:stream';
import { expect, test } from 'vitest';
import { openingFirst } from '../../src/cli/opening-first.js';

const line = (id: number | undefined, method: string) =>
  `${JSON.stringify({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method })}\n`;

function setUp() {
  const input = new PassThrough();
  let begun = 0;
  let release: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    release = resolve;
  });
  const output = openingFirst(input, { begin: () => begun++, ready: () => ready });
  let seen = '';
  output.on('data', (chunk: Buffer) => {
    seen += chunk.toString();
  });
  return { input, output, release, seen: () => seen, begun: () => begun };
}

/** Waits until the output holds `text` (a write goes through in a later tick). */
async function seenIncludes(output: Readable, seen: () => string, text: string) {
  while (!seen().includes(text)) await new Promise((resolve) => output.once('data', resolve));
}

test('server/discover passes and starts nothing; initialize starts the tools; a request after it waits for them, in order', async () => {
  const { input, output, release, seen, begun } = setUp();
  input.write(line(1, 'server/discover'));
  await seenIncludes(output, seen, 'server/discover');
  expect(begun()).toBe(0);

  input.write(line(2, 'initialize') + line(undefined, 'notifications/initialized') + line(3, 'tools/list'));
  await seenIncludes(output, seen, 'notifications/initialized');
  expect(begun()).toBe(1);
  // Held: a ping sent after it waits too (order is kept), and a marker proves the stream moved on.
  input.write(line(4, 'ping'));
  expect(seen()).not.toContain('tools/list');

  release();
  await seenIncludes(output, seen, '"ping"');
  const order = seen()
    .trim()
    .split('\n')
    .map((each) => JSON.parse(each).method);
  expect(order).toEqual(['server/discover', 'initialize', 'notifications/initialized', 'tools/list', 'ping']);
  // Begun and ready: bytes pass untouched, even a line that is not JSON.
  input.write('not json\n');
  await seenIncludes(output, seen, 'not json\n');
  expect(begun()).toBe(1);
});

test('a line split across chunks is read whole, and the end of stdin ends the stream after what was held', async () => {
  const { input, output, release, seen } = setUp();
  const call = line(1, 'tools/call');
  input.write(call.slice(0, 10));
  input.write(call.slice(10));
  input.end();
  const ended = new Promise((resolve) => output.once('end', resolve));
  release();
  await ended;
  expect(seen()).toBe(call);
});

test('a line too long to be an opening message is held like any other, not passed unread', async () => {
  const { input, output, release, seen, begun } = setUp();
  // No newline: a client cannot slip a request past the hold by never ending its line.
  input.write(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"${'x'.repeat(1 << 20)}`);
  input.write(`"}}\n${line(2, 'ping')}`);
  expect(begun()).toBe(1);
  expect(seen()).toBe('');
  release();
  await seenIncludes(output, seen, '"ping"');
  expect(seen().split('\n')).toHaveLength(3);
});
