// The resources, templates, prompts and completions of published servers, through one gateway in
// process, served over HTTP and read by the real v2 MCP client: server-everything (twice, to show
// who keeps a URI and how a prompt name is shared) and server-filesystem, which offers no resources
// (its files reach the model through its tools, as embedded resources).
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CallRecord } from '../../src/dispatch/call.js';
import { catalogCheckLines } from '../../src/gateway/check-catalog.js';
import { checkFindings, checkGateway } from '../../src/gateway/check-report.js';
import { readGatewayConfig } from '../../src/gateway/config/index.js';
import { type Gateway, startGateway } from '../../src/gateway/gateway.js';
import { type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';
import { createPolicyGate } from '../../src/policy/index.js';
import { until } from './support.js';

const require = createRequire(import.meta.url);

/** The installed package's bin script, as `npx -y <package>` would run it. */
function binOf(name: string): string {
  const manifestPath = require.resolve(`${name}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0]!;
  return realpathSync(join(dirname(manifestPath), bin));
}

const DOC = 'demo://resource/static/document/features.md';
const OTHER_DOC = 'demo://resource/static/document/startup.md';
const TEXT_TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';
const BLOB = 'demo://resource/dynamic/blob/1';
/** Changed since pinned: the lock holds another digest for it. */
const CHANGED_PROMPT = 'simple-prompt';

let dir: string;
let gateway: Gateway;
let http: RunningHttpServer;
const records: CallRecord[] = [];
const logs: string[] = [];
const clients: Client[] = [];

/** The URI of an audited resource read. */
const uriOf = (record: CallRecord) => (record.arguments as { uri?: string } | undefined)?.uri;

async function connect(era: 'legacy' | 'modern' = 'legacy'): Promise<Client> {
  const client = new Client(
    { name: 'resources-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  clients.push(client);
  return client;
}

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-gateway-resources-')));
  const files = join(dir, 'files');
  mkdirSync(files);
  const entry = (bin: string, args: string[] = []) => ({
    command: process.execPath,
    args: [bin, ...args],
    cwd: dir,
  });
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      mcpServers: {
        everything: entry(binOf('@modelcontextprotocol/server-everything')),
        twin: entry(binOf('@modelcontextprotocol/server-everything')),
        filesystem: entry(binOf('@modelcontextprotocol/server-filesystem'), [files]),
      },
    }),
  );
  // A lock from before: everything's simple-prompt was pinned with another text.
  writeFileSync(
    join(dir, 'config.lock.json'),
    JSON.stringify({
      version: 1,
      servers: {
        everything: {
          tools: {},
          prompts: {
            [CHANGED_PROMPT]: { digest: `sha256:${'0'.repeat(64)}`, description: 'A prompt, as it was.' },
          },
        },
      },
    }),
  );
  const gate = createPolicyGate({
    rules: [
      { id: 'no-blobs', action: 'deny', uri: 'demo://resource/dynamic/blob/**' },
      { id: 'allow-imported', action: 'allow', source: 'mcp:*' },
    ],
  });
  gateway = await startGateway({
    config: readGatewayConfig(join(dir, 'config.json')),
    registry: { ...gate.registryOptions, observe: (record) => void records.push(record) },
    log: (line) => logs.push(line),
    watch: false,
  });
  http = await serveHttp(gateway.registry, { listing: gateway.listing });
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await http?.close();
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('what the gateway lists', () => {
  test('every page of each server, URIs as they are; a URI the first server keeps is not served twice', async () => {
    const client = await connect();
    const { resources } = await client.listResources();
    const docs = resources.map((resource) => resource.uri).filter((uri) => uri.startsWith('demo://'));
    expect(docs).toContain(DOC);
    expect(new Set(docs).size).toBe(docs.length);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      TEXT_TEMPLATE,
      'demo://resource/dynamic/blob/{resourceId}',
    ]);
    const twin = gateway.status().find((server) => server.name === 'twin')!;
    expect(twin.catalog.shadowed.map((item) => item.key)).toEqual(
      expect.arrayContaining([DOC, TEXT_TEMPLATE]),
    );
    expect(twin.catalog.shadowed.every((item) => item.owner === 'everything')).toBe(true);
    expect(logs.some((line) => line.includes(`twin: its resource "${DOC}" is not served`))).toBe(true);
    // gateway check says so, and counts each one as a finding.
    expect(catalogCheckLines(twin)).toContain(
      `  resource "${DOC}" is not served: everything, earlier in the config, offers it`,
    );
    const report = checkGateway(gateway, gateway.config(), []);
    const unshadowed = report.servers.map((each) => ({
      ...each,
      catalog: { ...each.catalog, shadowed: [] },
    }));
    expect(checkFindings(report) - checkFindings({ ...report, servers: unshadowed })).toBe(
      twin.catalog.shadowed.length,
    );
    // server-filesystem declares no resources and no prompts: nothing of it is listed, nothing pinned.
    const filesystem = gateway.status().find((server) => server.name === 'filesystem')!;
    expect(filesystem.catalog).toMatchObject({ withheld: [], shadowed: [] });
    expect(filesystem.catalog.resources).toBeUndefined();
  });

  test("prompts with their arguments; the twin's are prefixed, and the lock records who owns each name", async () => {
    const client = await connect();
    const { prompts } = await client.listPrompts();
    const names = prompts.map((prompt) => prompt.name);
    expect(names).toEqual(expect.arrayContaining(['args-prompt', 'twin_args-prompt', 'completable-prompt']));
    expect(prompts.find((prompt) => prompt.name === 'args-prompt')?.arguments).toEqual([
      { name: 'city', description: 'Name of the city', required: true },
      // As server-everything lists it: its optional argument's description is lost on its side.
      { name: 'state' },
    ]);
    const lock = JSON.parse(readFileSync(join(dir, 'config.lock.json'), 'utf8'));
    expect(lock.servers.twin.prompts['args-prompt'].name).toBe('twin_args-prompt');
    expect(lock.servers.everything.prompts['args-prompt'].name).toBe('args-prompt');
  });
});

describe('reads, gets and completions, passed through', () => {
  test('on 2026-07-28 too: the lists, a read and a get', async () => {
    const client = await connect('modern');
    expect(client.getProtocolEra()).toBe('modern');
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain(DOC);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('twin_args-prompt');
    const doc = await client.readResource({ uri: DOC });
    expect(doc.contents[0]).toMatchObject({ uri: DOC, mimeType: 'text/markdown' });
    const got = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Porto' } });
    expect(got.messages[0]?.content).toEqual({ type: 'text', text: "What's weather in Porto?" });
  });

  test('a static resource, a template read as text and another as a blob pass through as the server sent them', async () => {
    const client = await connect();
    const doc = await client.readResource({ uri: DOC });
    expect(doc.contents).toEqual([
      { uri: DOC, mimeType: 'text/markdown', text: expect.stringContaining('#') },
    ]);
    const text = await client.readResource({ uri: 'demo://resource/dynamic/text/3' });
    expect(text.contents).toEqual([
      {
        uri: 'demo://resource/dynamic/text/3',
        mimeType: 'text/plain',
        text: expect.stringMatching(/^Resource 3: /),
      },
    ]);
    const read = records.find((record) => record.target === 'resource' && uriOf(record) === DOC);
    expect(read).toMatchObject({ outcome: 'ok', decision: { action: 'allow', rule: 'allow-imported' } });
  });

  test('a prompt with arguments, and the missing required one refused before the server is asked', async () => {
    const client = await connect();
    const got = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lyon', state: 'Rhône' } });
    expect(got.messages).toEqual([
      { role: 'user', content: { type: 'text', text: "What's weather in Lyon, Rhône?" } },
    ]);
    const twin = await client.getPrompt({ name: 'twin_args-prompt', arguments: { city: 'Oslo' } });
    expect(twin.messages[0]?.content).toEqual({ type: 'text', text: "What's weather in Oslo?" });
    await expect(client.getPrompt({ name: 'args-prompt', arguments: {} })).rejects.toThrow(
      /"city" is required/,
    );
  });

  test('completions of a prompt argument (with the other arguments as context) and of a template variable', async () => {
    const client = await connect();
    const department = await client.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'S' },
    });
    expect(department.completion.values).toEqual(['Sales', 'Support']);
    const person = await client.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'name', value: '' },
      context: { arguments: { department: 'Engineering' } },
    });
    expect(person.completion.values).toEqual(['Alice', 'Bob', 'Charlie']);
    const id = await client.complete({
      ref: { type: 'ref/resource', uri: TEXT_TEMPLATE },
      argument: { name: 'resourceId', value: '42' },
    });
    expect(id.completion.values).toEqual(['42']);
  });
});

describe('subscriptions', () => {
  test('each server update reaches only the clients subscribed to that URI', async () => {
    const first = await connect();
    const second = await connect();
    const seen = { first: [] as string[], second: [] as string[] };
    first.setNotificationHandler('notifications/resources/updated', (notification) => {
      seen.first.push(notification.params.uri);
    });
    second.setNotificationHandler('notifications/resources/updated', (notification) => {
      seen.second.push(notification.params.uri);
    });
    await first.subscribeResource({ uri: DOC });
    await second.subscribeResource({ uri: OTHER_DOC });
    // server-everything sends an update for every URI its session subscribed to, at once and every 5 s.
    const toggled = await first.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    expect(toggled.isError).not.toBe(true);
    await until(() => seen.first.length > 0 && seen.second.length > 0, 'both clients were told of an update');
    expect(new Set(seen.first)).toEqual(new Set([DOC]));
    expect(new Set(seen.second)).toEqual(new Set([OTHER_DOC]));
    await first.unsubscribeResource({ uri: DOC });
    await second.unsubscribeResource({ uri: OTHER_DOC });
    await first.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
  });
});

describe('under the gate', () => {
  test('a read the policy denies by URI glob is refused and audited, in every spelling the server could read as it', async () => {
    const client = await connect();
    const spellings = [
      BLOB,
      'DEMO://resource/dynamic/blob/1',
      'demo://resource/dynamic/text/../blob/1',
      'demo://resource/dynamic/text/..%2Fblob%2F1',
      'demo://resource/dynamic/%62lob/1',
      'demo://resource/dynamic//blob/1',
    ];
    for (const uri of spellings) {
      await expect(client.readResource({ uri }), uri).rejects.toThrow();
    }
    const denied = records.filter(
      (record) => record.target === 'resource' && record.decision?.action === 'deny',
    );
    expect(denied.map(uriOf)).toEqual(expect.arrayContaining([BLOB, spellings[3]]));
    expect(denied.every((record) => record.decision?.rule === 'no-blobs')).toBe(true);
    // The template next to it is still read.
    await expect(client.readResource({ uri: 'demo://resource/dynamic/text/1' })).resolves.toBeDefined();
  });

  test('a completion of the denied template is refused: its values would name what the read may not', async () => {
    const client = await connect();
    await expect(
      client.complete({
        ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/blob/{resourceId}' },
        argument: { name: 'resourceId', value: '4' },
      }),
    ).rejects.toThrow(/Completing "resourceId" of the resource template .* not permitted/);
    const allowed = await client.complete({
      ref: { type: 'ref/resource', uri: TEXT_TEMPLATE },
      argument: { name: 'resourceId', value: '4' },
    });
    expect(allowed.completion.values).toEqual(['4']);
  });
});

describe('pinned and linted', () => {
  test('a prompt whose pinned text changed is withheld: not listed, its get refused, until gateway pin', async () => {
    const client = await connect();
    const listed = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(listed).not.toContain(CHANGED_PROMPT);
    expect(listed.length).toBeGreaterThan(0);
    await expect(client.getPrompt({ name: CHANGED_PROMPT })).rejects.toThrow(/toolpact gateway pin/);
    const everything = gateway.status().find((server) => server.name === 'everything')!;
    expect(everything.catalog.withheld.map((item) => `${item.kind} ${item.key} ${item.reason}`)).toEqual([
      `prompts ${CHANGED_PROMPT} changed`,
    ]);
    expect(
      logs.some((line) => line.includes(`the prompt "${CHANGED_PROMPT}" changed since it was pinned`)),
    ).toBe(true);
    expect(
      records.some((record) => record.target === 'prompt' && record.decision?.rule === 'withheld-definition'),
    ).toBe(true);
    gateway.pin();
    const got = await client.getPrompt({ name: CHANGED_PROMPT });
    expect(got.messages[0]?.content).toMatchObject({ type: 'text' });
    // Accepted, it is listed again.
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain(CHANGED_PROMPT);
    const lock = JSON.parse(readFileSync(join(dir, 'config.lock.json'), 'utf8'));
    expect(lock.servers.everything.prompts[CHANGED_PROMPT].digest).not.toBe(`sha256:${'0'.repeat(64)}`);
  });
});
