import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openAuditLog } from '../../src/audit/audit-log.js';
import {
  type CallRecord,
  createTool,
  definePrompt,
  defineResource,
  Registry,
  RegistryRequestError,
} from '../../src/index.js';
import { createMcpServer, elicitationApprover } from '../../src/mcp/index.js';
import { createPolicyGate, definePolicy, type PolicyRule } from '../../src/policy/index.js';

// A resource read and a prompt get go through the registry's gate as calls do: the policy decides
// them by their target (a read is a `read` of its URI), an ask goes to the approver, and the audit
// records each with its target.

const files = defineResource({
  name: 'files',
  template: 'file:///{+path}',
  description: 'A file of the workspace.',
  mimeType: 'text/plain',
  read: (_uri, { path }) => `contents of ${path}`,
});

const summary = definePrompt({
  name: 'summary',
  description: 'Summarize a topic.',
  arguments: { topic: { required: true } },
  get: ({ topic }) => `Summarize ${topic}.`,
});

const rules: PolicyRule[] = [
  { id: 'no-secret', action: 'deny', uri: 'file:///secret/**' },
  { id: 'ask-drafts', action: 'ask', uri: 'file:///drafts/**' },
  {
    id: 'no-prompts-on-payroll',
    action: 'deny',
    target: 'prompt',
    arguments: { topic: { glob: 'payroll*' } },
  },
];

function gated(approve: boolean | undefined, observe?: (record: CallRecord) => unknown) {
  const gate = createPolicyGate(definePolicy({ rules }), {
    ...(approve === undefined ? {} : { approver: () => ({ action: approve ? 'allow' : 'deny' }) as const }),
  });
  return new Registry({ ...gate.registryOptions, ...(observe ? { observe } : {}) })
    .registerResource(files)
    .registerPrompt(summary);
}

async function refusal(promise: Promise<unknown>): Promise<RegistryRequestError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RegistryRequestError);
  return error as RegistryRequestError;
}

describe('a resource read is a read of its URI', () => {
  const registry = gated(undefined);

  test('a URI the policy denies is refused, saying what and why; others are read', async () => {
    expect((await registry.readResource('file:///notes/a.txt')).contents).toEqual([
      { uri: 'file:///notes/a.txt', mimeType: 'text/plain', text: 'contents of notes/a.txt' },
    ]);
    const error = await refusal(registry.readResource('file:///secret/key.pem'));
    expect(error.code).toBe('denied');
    expect(error.failure?.error).toMatchObject({ type: 'permission_denied', rule: 'no-secret' });
    expect(error.message).toMatch(
      /^Reading the resource "file:\/\/\/secret\/key\.pem" was not permitted: .+ ask the user/,
    );
  });

  test.each([
    'file:///public/../secret/key.pem',
    'file:///%73ecret/key.pem',
    'file:///SECRET/key.pem',
    'file:///./secret/key.pem',
    'file:////secret/key.pem',
  ])('another spelling of a denied URI is denied too: %s', async (uri) => {
    const error = await refusal(registry.readResource(uri));
    expect(error.code).toBe('denied');
  });

  test('a prompt get is decided with its arguments', async () => {
    expect((await registry.getPrompt('summary', { topic: 'roadmap' })).messages).toHaveLength(1);
    const error = await refusal(registry.getPrompt('summary', { topic: 'payroll 2026' }));
    expect(error.failure?.error).toMatchObject({ rule: 'no-prompts-on-payroll' });
    expect(error.message).toContain('Getting the prompt "summary" was not permitted');
  });
});

describe('an ask goes to the approver', () => {
  test('approved, the read goes on; refused or with no approver, it is denied', async () => {
    expect((await gated(true).readResource('file:///drafts/plan.md')).contents).toHaveLength(1);
    expect((await refusal(gated(false).readResource('file:///drafts/plan.md'))).code).toBe('denied');
    const unanswered = await refusal(gated(undefined).readResource('file:///drafts/plan.md'));
    expect(unanswered.failure?.error.type).toBe('permission_denied');
  });
});

describe('the audit', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'toolpact-offerings-audit-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test('records each read and get with its target, allowed or denied', async () => {
    const log = openAuditLog(join(folder, 'audit.jsonl'));
    const registry = gated(undefined, log.observe);
    await registry.readResource('file:///notes/a.txt');
    await refusal(registry.readResource('file:///secret/key.pem'));
    await registry.getPrompt('summary', { topic: 'roadmap' });
    await registry.call('nothing');
    log.close();
    const entries = (await readFile(join(folder, 'audit.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(
      entries.map((entry) => [entry.target, entry.tool, entry.outcome, entry.decision?.rule ?? null]),
    ).toEqual([
      ['resource', 'files', 'ok', expect.any(String)],
      ['resource', 'files', 'permission_denied', 'no-secret'],
      ['prompt', 'summary', 'ok', expect.any(String)],
      [undefined, 'nothing', 'unknown_tool', null],
    ]);
    expect(entries[1].arguments).toEqual({ uri: 'file:///secret/key.pem' });
  });

  test('an observer that cannot record refuses the read (store_unavailable)', async () => {
    const registry = gated(undefined, () => Promise.reject(new Error('disk full')));
    const error = await refusal(registry.readResource('file:///notes/a.txt'));
    expect(error.failure?.error.type).toBe('store_unavailable');
  });

  test('registry.gate decides a sampling request by its target: ask by default', async () => {
    const records: CallRecord[] = [];
    const registry = gated(undefined, (record) => records.push(record));
    const sampling = createTool(
      {
        name: 'sampling',
        description: 'A sampling request.',
        category: 'read',
        parameters: { type: 'object' },
      },
      { execute: () => null },
    );
    const refused = await registry.gate({
      target: 'sampling',
      tool: sampling.contract,
      meta: { source: 'mcp:files' },
      arguments: { server: 'files', maxTokens: 100, messages: 1 },
      callId: undefined,
      state: undefined,
    });
    expect(refused?.error.type).toBe('permission_denied');
    expect(records[0]).toMatchObject({ target: 'sampling', tool: 'sampling', outcome: 'permission_denied' });
  });
});

test('over MCP, a refused read is a protocol error with the refusal in data', async () => {
  const server = createMcpServer(gated(undefined));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'gate-test', version: '1.0.0' });
  await client.connect(clientSide);
  const error = await client.readResource({ uri: 'file:///secret/key.pem' }).then(
    () => undefined,
    (thrown: unknown) => thrown as ProtocolError,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  expect(error?.code).toBe(-32600);
  expect(error?.message).toContain('was not permitted');
  expect(error?.data).toMatchObject({ type: 'permission_denied', rule: 'no-secret' });
  expect((await client.readResource({ uri: 'file:///notes/a.txt' })).contents).toHaveLength(1);
  await client.close();
});

test('over MCP, an asked read is put to the person through elicitation, as an asked call is', async () => {
  const gate = createPolicyGate(definePolicy({ rules }));
  const registry = new Registry({
    ...gate.registryOptions,
    approver: elicitationApprover(),
  }).registerResource(files);
  const server = createMcpServer(registry);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const asked: string[] = [];
  const client = new Client(
    { name: 'gate-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    const message = (request.params as { message: string }).message;
    asked.push(message);
    return message.includes('plan.md')
      ? { action: 'accept', content: { decision: 'once' } }
      : { action: 'decline' };
  });
  await client.connect(clientSide);
  expect((await client.readResource({ uri: 'file:///drafts/plan.md' })).contents).toHaveLength(1);
  const declined = await client.readResource({ uri: 'file:///drafts/other.md' }).then(
    () => undefined,
    (thrown: unknown) => thrown as ProtocolError,
  );
  expect(declined?.code).toBe(-32600);
  expect(asked).toHaveLength(2);
  expect(asked[0]).toContain('files');
  await client.close();
});

describe('a subscription is gated as a read of its URI', () => {
  const watched = defineResource({
    name: 'watched',
    template: 'file:///{+path}',
    description: 'A file of the workspace, watched for changes.',
    read: (_uri, { path }) => `contents of ${path}`,
    subscribe: (uri) => {
      if (uri.endsWith('broken')) throw new Error(`EACCES: permission denied, watch '/home/ada/${uri}'`);
      return () => {};
    },
  });
  const registry = () =>
    new Registry(createPolicyGate(definePolicy({ rules })).registryOptions).registerResource(watched);

  test('a denied URI cannot be subscribed to, in any spelling', async () => {
    for (const uri of [
      'file:///secret/key.pem',
      'file:///public/../secret/key.pem',
      'file:///secret%2Fkey.pem',
    ]) {
      const refused = await refusal(registry().subscribeResource(uri, () => {}));
      expect(refused.code, uri).toBe('denied');
      expect(refused.failure?.error).toMatchObject({ type: 'permission_denied', rule: 'no-secret' });
    }
    const stop = await registry().subscribeResource('file:///public/readme.md', () => {});
    expect(typeof stop).toBe('function');
  });

  test('a subscribe that fails is a request error that says so, without its stack', async () => {
    const refused = await refusal(registry().subscribeResource('file:///public/broken', () => {}));
    expect(refused.code).toBe('failed');
    expect(refused.message).toContain('Subscribing to the resource "file:///public/broken" failed');
    expect(refused.message).not.toMatch(/\n\s+at /);
  });
});
