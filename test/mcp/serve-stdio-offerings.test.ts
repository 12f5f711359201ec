import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { defineResource, Registry } from '../../src/index.js';
import { type RunningStdioServer, serveStdio } from '../../src/mcp/index.js';

// serveStdio in process, over two pipes, with raw JSON-RPC: resource updates reach a legacy client
// that subscribed and a 2026-07-28 listen stream that named the URI, and stop when it is cancelled.

const watching = new Set<() => void>();
const registry = new Registry().registerResource(
  defineResource({
    name: 'clock',
    uri: 'test://clock',
    description: 'A resource that changes.',
    read: () => 'now',
    subscribe: (_uri, updated) => {
      watching.add(updated);
      return () => watching.delete(updated);
    },
  }),
);

function changed(): void {
  for (const updated of watching) updated();
}

let running: RunningStdioServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A raw JSON-RPC peer of serveStdio over pipes: send a message, wait for the next one that matches. */
async function connect() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  running = await serveStdio(registry, { stdin, stdout });
  const received: Record<string, unknown>[] = [];
  const waiters: { match: (message: Record<string, unknown>) => boolean; resolve: (m: unknown) => void }[] =
    [];
  let buffer = '';
  stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const message = JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>;
      buffer = buffer.slice(newline + 1);
      received.push(message);
      for (const waiter of waiters.splice(0)) {
        if (waiter.match(message)) waiter.resolve(message);
        else waiters.push(waiter);
      }
      newline = buffer.indexOf('\n');
    }
  });
  return {
    received,
    send: (message: object) => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`),
    next: (match: (message: Record<string, unknown>) => boolean) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const found = received.find(match);
        if (found) resolve(found);
        else waiters.push({ match, resolve: resolve as (m: unknown) => void });
      }),
  };
}

const isUpdate = (message: Record<string, unknown>) => message.method === 'notifications/resources/updated';
const answerTo = (id: number) => (message: Record<string, unknown>) => message.id === id;

describe('serveStdio routes resource updates', () => {
  test('legacy: resources/subscribe, then an update, then unsubscribe releases the watch', async () => {
    const peer = await connect();
    peer.send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(await peer.next(answerTo(1))).toMatchObject({
      result: { capabilities: { resources: { subscribe: true, listChanged: true } } },
    });
    peer.send({ method: 'notifications/initialized' });
    peer.send({ id: 2, method: 'resources/subscribe', params: { uri: 'test://clock' } });
    expect(await peer.next(answerTo(2))).toMatchObject({ result: {} });
    expect(watching.size).toBe(1);
    changed();
    expect(await peer.next(isUpdate)).toMatchObject({ params: { uri: 'test://clock' } });
    peer.send({ id: 3, method: 'resources/unsubscribe', params: { uri: 'test://clock' } });
    await peer.next(answerTo(3));
    await waitFor(() => watching.size === 0);
  });

  test('2026-07-28: a listen stream naming the URI gets its updates until it is cancelled', async () => {
    const peer = await connect();
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    };
    peer.send({ id: 1, method: 'server/discover', params: { _meta: meta } });
    await peer.next(answerTo(1));
    peer.send({
      id: 2,
      method: 'subscriptions/listen',
      params: { _meta: meta, notifications: { resourceSubscriptions: ['test://clock', 'test://nothing'] } },
    });
    expect(
      await peer.next((message) => message.method === 'notifications/subscriptions/acknowledged'),
    ).toMatchObject({
      params: { notifications: { resourceSubscriptions: ['test://clock', 'test://nothing'] } },
    });
    await waitFor(() => watching.size === 1);
    changed();
    expect(await peer.next(isUpdate)).toMatchObject({
      params: { uri: 'test://clock', _meta: { 'io.modelcontextprotocol/subscriptionId': 2 } },
    });
    peer.send({ method: 'notifications/cancelled', params: { requestId: 2, _meta: meta } });
    await waitFor(() => watching.size === 0);
  });
});

/** Waits for a condition, checking on each turn of the event loop. */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
