import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { definePrompt, defineResource, Registry } from '../../src/index.js';
import { type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';

// Resources, templates, prompts and completions of a registry, served by serveHttp on one endpoint
// and read by the real v2 Client on both eras: the legacy one (a session) and 2026-07-28 (stateless).

const watchers = new Map<string, Set<() => void>>();

function changed(uri: string): void {
  for (const updated of watchers.get(uri) ?? []) updated();
}

function watched(name: string) {
  return defineResource({
    name,
    uri: `test://${name}`,
    description: `A resource that changes, ${name}.`,
    mimeType: 'text/plain',
    read: () => `${name} now`,
    subscribe: (uri, updated) => {
      const set = watchers.get(uri) ?? new Set();
      set.add(updated);
      watchers.set(uri, set);
      return () => set.delete(updated);
    },
  });
}

const registry = new Registry()
  .registerResource(
    defineResource({
      name: 'readme',
      uri: 'test://readme',
      title: 'README',
      description: 'The README.',
      mimeType: 'text/markdown',
      size: 7,
      read: () => '# Notes',
    }),
    defineResource({
      name: 'logo',
      uri: 'test://logo',
      description: 'The logo, as PNG bytes.',
      mimeType: 'image/png',
      read: () => new Uint8Array([137, 80, 78, 71]),
    }),
    watched('clock'),
    watched('weather'),
    defineResource({
      name: 'hidden',
      uri: 'test://hidden',
      description: 'Read by name only.',
      meta: { unlisted: true },
      read: () => 'found by name',
    }),
    defineResource({
      name: 'note',
      template: 'test://notes/{name}',
      description: 'One note, by name.',
      mimeType: 'text/plain',
      complete: { name: (typed) => ['todo', 'tomorrow', 'ideas'].filter((name) => name.startsWith(typed)) },
      read: (_uri, { name }) => `note ${name}`,
    }),
  )
  .registerPrompt(
    definePrompt({
      name: 'greet',
      title: 'Greet',
      description: 'Greet someone by name.',
      arguments: {
        name: { description: 'Who to greet.', required: true, complete: (typed) => [`${typed}ice`] },
        tone: { description: 'How.' },
      },
      get: ({ name, tone }) => `Say hello to ${name}${tone ? `, ${tone}` : ''}.`,
    }),
    definePrompt({
      name: 'quiet',
      description: 'Got by name only.',
      meta: { unlisted: true },
      get: () => 'Say nothing.',
    }),
  );

let running: RunningHttpServer;
const clients: Client[] = [];

beforeAll(async () => {
  running = await serveHttp(registry, { pageSize: 2 });
});

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await running?.close();
});

async function connect(era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client(
    { name: 'offerings-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
  clients.push(client);
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

async function protocolError(promise: Promise<unknown>): Promise<ProtocolError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  return error as ProtocolError;
}

/** Resolves with the next notification of `method` the client receives. */
function next(client: Client, method: string, uri?: string): Promise<unknown> {
  return new Promise((resolve) => {
    client.setNotificationHandler(method as 'notifications/resources/updated', (notification) => {
      if (uri === undefined || (notification.params as { uri?: string }).uri === uri) resolve(notification);
    });
  });
}

describe.each(['legacy', 'modern'] as const)('the %s era', (era) => {
  let client: Client;

  beforeAll(async () => {
    client = await connect(era);
  });

  test('declares resources, prompts and completions', () => {
    expect(client.getServerCapabilities()).toMatchObject({
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
  });

  test('lists static resources and templates apart, over pages, in registration order', async () => {
    // Two per page: the client follows the cursors.
    const first = await client.listResources();
    expect(first.resources.map((resource) => resource.uri)).toEqual([
      'test://readme',
      'test://logo',
      'test://clock',
      'test://weather',
    ]);
    expect(first.resources[0]).toEqual({
      uri: 'test://readme',
      name: 'readme',
      title: 'README',
      description: 'The README.',
      mimeType: 'text/markdown',
      size: 7,
    });
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates).toEqual([
      {
        uriTemplate: 'test://notes/{name}',
        name: 'note',
        description: 'One note, by name.',
        mimeType: 'text/plain',
      },
    ]);
    const refused = await protocolError(client.listResources({ cursor: 'forged' }));
    expect(refused.code).toBe(-32602);
  });

  test('reads text, bytes and a template', async () => {
    expect((await client.readResource({ uri: 'test://readme' })).contents).toEqual([
      { uri: 'test://readme', mimeType: 'text/markdown', text: '# Notes' },
    ]);
    expect((await client.readResource({ uri: 'test://logo' })).contents).toEqual([
      { uri: 'test://logo', mimeType: 'image/png', blob: Buffer.from([137, 80, 78, 71]).toString('base64') },
    ]);
    expect((await client.readResource({ uri: 'test://notes/todo' })).contents).toEqual([
      { uri: 'test://notes/todo', mimeType: 'text/plain', text: 'note todo' },
    ]);
  });

  test('an unlisted resource or prompt (meta.unlisted) is left out of the lists and still answered by name', async () => {
    expect((await client.listResources()).resources.map((resource) => resource.uri)).not.toContain(
      'test://hidden',
    );
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['greet']);
    expect((await client.readResource({ uri: 'test://hidden' })).contents).toEqual([
      { uri: 'test://hidden', text: 'found by name' },
    ]);
    expect((await client.getPrompt({ name: 'quiet' })).messages).toHaveLength(1);
  });

  test('an unknown URI is resource-not-found with the URI in data, and no stack or path', async () => {
    const error = await protocolError(client.readResource({ uri: 'test://nothing' }));
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({ uri: 'test://nothing' });
    expect(error.message).toContain('resources/list');
    expect(error.message).not.toMatch(/\n\s+at |\/work\/|node_modules/);
  });

  test('lists and gets prompts; bad arguments are invalid params that name the arguments', async () => {
    expect((await client.listPrompts()).prompts).toEqual([
      {
        name: 'greet',
        title: 'Greet',
        description: 'Greet someone by name.',
        arguments: [
          { name: 'name', description: 'Who to greet.', required: true },
          { name: 'tone', description: 'How.' },
        ],
      },
    ]);
    expect(await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({
      description: 'Greet someone by name.',
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to Ada.' } }],
    });
    const missing = await protocolError(client.getPrompt({ name: 'greet', arguments: { tone: 'warmly' } }));
    expect(missing.code).toBe(-32602);
    expect(missing.message).toContain('"name" is required and missing');
    const unknown = await protocolError(client.getPrompt({ name: 'gret' }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toContain('The prompts are: greet.');
  });

  test('completes a prompt argument and a template variable', async () => {
    const prompt = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'Al' },
    });
    expect(prompt.completion.values).toEqual(['Alice']);
    const template = await client.complete({
      ref: { type: 'ref/resource', uri: 'test://notes/{name}' },
      argument: { name: 'name', value: 't' },
    });
    expect(template.completion.values).toEqual(['todo', 'tomorrow']);
  });
});

describe('subscriptions', () => {
  test('legacy: an update reaches the session that subscribed, and stops after unsubscribe', async () => {
    const subscriber = await connect('legacy');
    const bystander = await connect('legacy');
    const bystanderUpdates: unknown[] = [];
    bystander.setNotificationHandler('notifications/resources/updated', (notification) => {
      bystanderUpdates.push(notification.params);
    });
    await subscriber.subscribeResource({ uri: 'test://clock' });
    await subscriber.subscribeResource({ uri: 'test://weather' });
    const clock = next(subscriber, 'notifications/resources/updated', 'test://clock');
    changed('test://clock');
    expect(await clock).toMatchObject({ params: { uri: 'test://clock' } });

    await subscriber.unsubscribeResource({ uri: 'test://clock' });
    const seen: string[] = [];
    const weather = new Promise<void>((resolve) => {
      subscriber.setNotificationHandler('notifications/resources/updated', (notification) => {
        seen.push(notification.params.uri);
        if (notification.params.uri === 'test://weather') resolve();
      });
    });
    changed('test://clock');
    changed('test://weather');
    await weather;
    // Both changes went out in order on one stream: the clock's would have arrived first.
    expect(seen).toEqual(['test://weather']);
    expect(bystanderUpdates).toEqual([]);
    const unknown = await protocolError(subscriber.subscribeResource({ uri: 'test://nothing' }));
    expect(unknown.code).toBe(-32602);
  });

  test('2026-07-28: a listen stream that names a URI receives its updates while it is open', async () => {
    const client = await connect('modern');
    const update = next(client, 'notifications/resources/updated', 'test://weather');
    const watching = () => watchers.get('test://weather')?.size ?? 0;
    const before = watching();
    const subscription = await client.listen({ resourceSubscriptions: ['test://weather'] });
    expect(subscription.honoredFilter.resourceSubscriptions).toEqual(['test://weather']);
    // The registry is watched once the stream is open: wait for the watch, then change it.
    await waitFor(() => watching() > before);
    changed('test://weather');
    expect(await update).toMatchObject({ params: { uri: 'test://weather' } });
    await subscription.close();
    await waitFor(() => watching() === before);
  });
});

test('a change to prompts or resources announces that list alone, on both eras', async () => {
  const legacy = await connect('legacy');
  const modern = await connect('modern');
  const heard: string[] = [];
  for (const method of [
    'notifications/tools/list_changed',
    'notifications/prompts/list_changed',
    'notifications/resources/list_changed',
  ] as const) {
    legacy.setNotificationHandler(method, () => {
      heard.push(`legacy ${method}`);
    });
    modern.setNotificationHandler(method, () => {
      heard.push(`modern ${method}`);
    });
  }
  const subscription = await modern.listen({
    promptsListChanged: true,
    resourcesListChanged: true,
    toolsListChanged: true,
  });
  registry.registerPrompt(definePrompt({ name: 'later', description: 'Added later.', get: () => 'x' }));
  await waitFor(() => heard.length === 2);
  registry.unregisterResource('test://logo');
  await waitFor(() => heard.length === 4);
  expect(heard.sort()).toEqual([
    'legacy notifications/prompts/list_changed',
    'legacy notifications/resources/list_changed',
    'modern notifications/prompts/list_changed',
    'modern notifications/resources/list_changed',
  ]);
  await subscription.close();
});

/** Waits for a condition, checking on each turn of the event loop. */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
