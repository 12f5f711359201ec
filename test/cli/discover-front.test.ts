// The discover front of `toolpact gateway`: a 2026-07-28 client's `server/discover` is answered before
// the command loads, with what the full stdio server answers (compared here with serveStdio's own
// answer to the same line); every other line, and what follows it, reaches that server in order.
import { PassThrough } from 'node:stream';
import { afterEach, expect, test } from 'vitest';
import { afterFront, discoverFront, frontAnswersFor } from '../../src/cli/discover-front.js';
import { openingFirst } from '../../src/cli/opening-first.js';
import { type RunningStdioServer, serveStdio } from '../../src/mcp/serve-stdio.js';
import { discoverResult, MODERN_REVISIONS, SERVED_VERSION } from '../../src/mcp/served-identity.js';
import { Registry } from '../../src/registry/registry.js';
import { discoverLine, META } from '../support/discover-line.js';

const GATEWAY = ['gateway', '--config', 'mcp.json'];
const running: RunningStdioServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

/** Collects what is written to a stream, and resolves when it holds `count` lines. */
function lines(stream: PassThrough) {
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return {
    text: () => text,
    async count(count: number): Promise<unknown[]> {
      while (text.split('\n').length - 1 < count)
        await new Promise((resolve) => stream.once('data', resolve));
      return text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
    },
  };
}

/** What the full stdio server answers to `line`, as `toolpact gateway` serves it (default options). */
async function fullServerAnswer(line: string): Promise<unknown> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const answers = lines(stdout);
  running.push(await serveStdio(new Registry(), { stdin, stdout }));
  stdin.write(line);
  return (await answers.count(1))[0];
}

test('the front answers the probe with what the full server answers to the same line', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const answers = lines(stdout);
  const outcome = discoverFront(GATEWAY, stdin, stdout);
  stdin.write(discoverLine('server-discover-probe-1'));
  stdin.write(discoverLine(7));
  const [first, second] = await answers.count(2);
  stdin.end();
  expect(await outcome).toBe('probed');

  expect(first).toEqual(await fullServerAnswer(discoverLine('server-discover-probe-1')));
  expect(second).toEqual(await fullServerAnswer(discoverLine(7)));
  expect(first).toEqual({
    jsonrpc: '2.0',
    id: 'server-discover-probe-1',
    result: discoverResult({ name: 'toolpact', version: SERVED_VERSION }),
  });
  expect((first as { result: { supportedVersions: string[] } }).result.supportedVersions).toEqual(
    MODERN_REVISIONS,
  );
});

test('a line the front is not sure of goes, with everything after it, to the full server, which answers it', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const answers = lines(stdout);
  const outcome = discoverFront(GATEWAY, stdin, stdout);
  // Answered by the front; then a revision it does not serve, and a line in a later write.
  const unsupported = discoverLine(2, { [`${META}protocolVersion`]: '2099-01-01' });
  stdin.write(discoverLine(1) + unsupported.slice(0, 20));
  stdin.write(unsupported.slice(20));
  await answers.count(1);
  expect(await outcome).toBe('handed');
  const rest = afterFront(stdin);
  expect(rest).not.toBe(stdin);
  // The stdin of another server is its own.
  const other = new PassThrough();
  expect(afterFront(other)).toBe(other);

  running.push(await serveStdio(new Registry(), { stdin: openingFirst(stdin, {}), stdout }));
  stdin.write(discoverLine(3, { [`${META}logLevel`]: 'info' }));
  const [, refused, third] = await answers.count(3);
  expect(refused).toEqual(await fullServerAnswer(unsupported));
  expect(refused).toMatchObject({ id: 2, error: { data: { supported: MODERN_REVISIONS } } });
  expect(third).toEqual(await fullServerAnswer(discoverLine(3, { [`${META}logLevel`]: 'info' })));
  expect((third as { result?: unknown }).result).toEqual(
    discoverResult({ name: 'toolpact', version: SERVED_VERSION }),
  );
});

test.each([
  ['initialize', `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })}\n`],
  ['a line that is not JSON', 'not json\n'],
  ['a client capability it does not know', discoverLine(1, { [`${META}clientCapabilities`]: { tasks: {} } })],
  [
    'clientInfo with more than a name',
    discoverLine(1, { [`${META}clientInfo`]: { name: 'x', version: '1', icons: [] } }),
  ],
  [
    'roots.listChanged that is not a boolean',
    discoverLine(1, { [`${META}clientCapabilities`]: { roots: { listChanged: 'yes' } } }),
  ],
  ['a notification', `${JSON.stringify({ jsonrpc: '2.0', method: 'server/discover', params: {} })}\n`],
])('%s is handed over untouched, and nothing is answered', async (_what, line) => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const answers = lines(stdout);
  const outcome = discoverFront(GATEWAY, stdin, stdout);
  stdin.write(line);
  expect(await outcome).toBe('handed');
  const rest = lines(afterFront(stdin) as PassThrough);
  stdin.end('after\n');
  await new Promise((resolve) => afterFront(stdin).once('end', resolve));
  expect(rest.text()).toBe(`${line}after\n`);
  expect(answers.text()).toBe('');
});

test('a stdin that ends with nothing, or in the middle of a line, is handed over and ends', async () => {
  for (const sent of ['', discoverLine(1).slice(0, 30)]) {
    const stdin = new PassThrough();
    const outcome = discoverFront(GATEWAY, stdin, new PassThrough());
    stdin.end(sent);
    expect(await outcome).toBe('handed');
    const rest = lines(afterFront(stdin) as PassThrough);
    await new Promise((resolve) => afterFront(stdin).once('end', resolve));
    expect(rest.text()).toBe(sent);
  }
});

test('the front answers only for the gateway serving over stdio, with no --name, to a stdin that is no terminal', () => {
  expect(frontAnswersFor(GATEWAY, false)).toBe(true);
  expect(frontAnswersFor([...GATEWAY, '--lock', 'x.json', '--search', '--audit=a.jsonl'], false)).toBe(true);
  expect(frontAnswersFor(GATEWAY, true)).toBe(false);
  for (const argv of [
    ['serve', 'tools.ts'],
    ['gateway', 'check', '--config', 'mcp.json'],
    ['gateway', 'pin', '--config', 'mcp.json'],
    ['gateway', 'init', '--from', 'claude.json'],
    [...GATEWAY, '--http'],
    [...GATEWAY, '--name', 'gate'],
    [...GATEWAY, '--name=gate'],
    [...GATEWAY, '--help'],
    [...GATEWAY, '--', 'x'],
    [],
  ]) {
    expect(frontAnswersFor(argv, false), argv.join(' ')).toBe(false);
  }
});

test('a stdout that breaks ends the front: the client that probed is gone', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const outcome = discoverFront(GATEWAY, stdin, stdout);
  stdout.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
  expect(await outcome).toBe('probed');
  // It no longer reads stdin.
  expect(stdin.listenerCount('data')).toBe(0);
});
