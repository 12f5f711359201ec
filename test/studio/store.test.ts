// The studio on a fleet's shared store, against a real PostgreSQL (a private cluster started for the
// file): the approvals page's API and event stream follow the queue that other registries (replicas,
// the CLI) write, decisions taken in the studio are recorded with who and when, and the approved call
// then runs once wherever it is retried.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import { createPolicyGate, definePolicy, type Policy } from '../../src/policy/index.js';
import { type Approval, openPostgresStore, type PostgresStore } from '../../src/store/index.js';
import { type RunningStudio, type StoreQueueView, startStudio } from '../../src/studio/index.js';
import { runCli } from '../support/cli.js';
import { toolpactArgs } from '../support/cli-build.js';
import { freePort, hasPostgres, type PostgresServer, startPostgres } from '../support/postgres.js';
import { ROOT } from './support.js';

const MODULE = join('test', 'fixtures', 'studio', 'notes-module.ts');

const policy = definePolicy({
  rules: [
    { id: 'prod-deploys', action: 'ask', tool: 'deploy', approver: 'queue', reason: 'production write' },
    { id: 'restarts-asked', action: 'ask', tool: 'restart', reason: 'restarts drop connections' },
  ],
});

/** The tools every registry of the test shares; `ran` says which deploys ran, and how often. */
function tools(ran: string[]) {
  return [
    defineTool({
      name: 'deploy',
      description: 'Deploy a service to production. Changes what users see; not read-only.',
      category: 'write',
      input: z.object({
        service: z.string().describe('The service to deploy, e.g. api.'),
        token: z.string().optional().describe('A deploy token, kept secret.'),
      }),
      execute: ({ service }) => {
        ran.push(service);
        return { deployed: service };
      },
    }),
    defineTool({
      name: 'restart',
      description: 'Restart a service. Drops its open connections; not read-only.',
      category: 'write',
      input: z.object({ service: z.string().describe('The service to restart, e.g. api.') }),
      execute: ({ service }) => {
        ran.push(`restart:${service}`);
        return { restarted: service };
      },
    }),
    defineTool({
      name: 'status',
      description: 'Read the status of a service. Read-only.',
      category: 'read',
      input: z.object({ service: z.string().describe('The service to read.') }),
      execute: () => ({ up: true }),
    }),
  ];
}

/** Another process on the same store (a replica, a script): its own registry, audit and queue. */
function replica(store: PostgresStore, rules: Policy, ran: string[]) {
  const gate = createPolicyGate(rules, { observe: store.audit.observe });
  return new Registry({ ...gate.registryOptions, approvalQueue: store.approvalQueue(rules) }).register(
    tools(ran),
  );
}

/** One HTTP request with exactly the headers given. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  send(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** The studio's event stream, read as the page reads it: each `next` waits for a matching event. */
async function followEvents(base: string) {
  const controller = new AbortController();
  const response = await fetch(`${base}api/events`, { signal: controller.signal });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const seen: string[] = [];
  return {
    /** Every event name read so far, in order. */
    seen,
    async next<T>(event: string, matches: (data: T) => boolean = () => true): Promise<T> {
      for (;;) {
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let name = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) name = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          seen.push(name);
          if (name !== event) continue;
          const parsed = JSON.parse(data.join('\n')) as T;
          if (matches(parsed)) return parsed;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error(`The event stream ended before a matching "${event}" event.`);
        buffer += value.replace(/\r\n/g, '\n');
      }
    },
    close: () => controller.abort(),
  };
}

/** The approval id of an `approval_pending` envelope. */
function approvalIdOf(envelope: unknown): string {
  const error = (envelope as { error?: { type?: unknown; approval?: unknown } }).error;
  expect(error?.type).toBe('approval_pending');
  return String(error?.approval);
}

const pendingIds = (view: StoreQueueView) => view.pending.map((approval) => approval.id);

describe.runIf(hasPostgres)('the studio on a shared store', () => {
  let postgres: PostgresServer;
  let url: string;
  // The studio's store, and another process's on the same database.
  let store: PostgresStore;
  let other: PostgresStore;
  let studio: RunningStudio;
  const studioRan: string[] = [];
  const replicaRan: string[] = [];
  let fleet: Registry;

  beforeAll(async () => {
    postgres = await startPostgres();
    url = postgres.url;
    store = await openPostgresStore(url);
    other = await openPostgresStore(url);
    fleet = replica(other, policy, replicaRan);
    studio = await startStudio({
      label: 'deploys',
      policy,
      store,
      decider: 'studio-user',
      load: (options) => ({ registry: new Registry(options).register(tools(studioRan)) }),
    });
  }, 120_000);
  afterAll(async () => {
    await studio?.close();
    await store?.close();
    await other?.close();
    await postgres?.stop();
  });

  test('the overview names the store, and the queue API answers what the store holds', async () => {
    const overview = JSON.parse((await send(`${studio.url}api/overview`)).text);
    expect(overview.store).toBe(store.where);
    expect(overview.store).not.toContain(postgres.password);
    const view = JSON.parse((await send(`${studio.url}api/queue`)).text) as StoreQueueView;
    expect(view).toMatchObject({ store: store.where, decider: 'studio-user', problem: null });
    expect(view.pending).toEqual(await store.approvals.list({ status: 'pending' }));
  });

  test('without the token, or from another origin, the queue is neither shown nor decided', async () => {
    const queued = await fleet.call('deploy', { service: 'guarded' });
    expect(queued).toMatchObject({ ok: false, error: { type: 'approval_pending' } });
    const id = approvalIdOf(queued);
    const root = new URL(studio.url).origin;
    for (const path of ['/api/queue', `/${'x'.repeat(24)}/api/queue`]) {
      const refused = await send(`${root}${path}`);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('Open the exact URL that "toolpact studio" printed');
    }
    const noToken = await post(`${root}/api/queue/${id}`, { action: 'approve' });
    expect(noToken.status).toBe(403);
    const foreign = await post(
      `${studio.url}api/queue/${id}`,
      { action: 'approve' },
      { Origin: 'http://evil.example' },
    );
    expect(foreign.status).toBe(403);
    expect(foreign.text).toContain('"http://evil.example"');
    expect(await store.approvals.get(id)).toMatchObject({
      status: 'pending',
      decidedBy: null,
      decidedAt: null,
    });
  });

  test("a call queued by another registry reaches the page's event stream, without asking for the list again", async () => {
    const events = await followEvents(studio.url);
    try {
      const first = await events.next<StoreQueueView>('queue');
      const queued = await fleet.call('deploy', { service: 'api', token: 'sk-secret-1' });
      expect(queued).toMatchObject({ ok: false, error: { type: 'approval_pending', rule: 'prod-deploys' } });
      const id = approvalIdOf(queued);
      expect(pendingIds(first)).not.toContain(id);
      const arrived = await events.next<StoreQueueView>('queue', (view) => pendingIds(view).includes(id));
      const shown = arrived.pending.find((approval) => approval.id === id)!;
      expect(shown).toMatchObject({
        tool: 'deploy',
        principal: 'local',
        rule: 'prod-deploys',
        reason: 'production write',
        status: 'pending',
      });
      expect(JSON.stringify(shown.arguments)).not.toContain('sk-secret-1');
      expect(shown.arguments).toMatchObject({ service: 'api' });
      expect(Date.parse(shown.expiresAt)).toBeGreaterThan(Date.parse(shown.createdAt));
      // The list the API answers holds it too.
      const listed = JSON.parse((await send(`${studio.url}api/queue`)).text) as StoreQueueView;
      expect(listed.pending.find((approval) => approval.id === id)).toEqual(shown);
    } finally {
      events.close();
    }
  });

  test('approving in the studio records who decided and when; the retried call then runs once', async () => {
    const events = await followEvents(studio.url);
    try {
      await events.next<StoreQueueView>('queue');
      const queued = await fleet.call('deploy', { service: 'billing' });
      const id = approvalIdOf(queued);
      expect(id).toMatch(/^apr_/);
      await events.next<StoreQueueView>('queue', (view) => pendingIds(view).includes(id));

      const answer = await post(`${studio.url}api/queue/${id}`, {
        action: 'approve',
        by: 'ops-lead',
        reason: 'release day',
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toMatchObject({ id, status: 'approved', decidedBy: 'ops-lead' });
      const recorded = (await store.approvals.get(id)) as Approval;
      expect(recorded).toMatchObject({
        status: 'approved',
        decidedBy: 'ops-lead',
        decisionReason: 'release day',
      });
      expect(Date.parse(recorded.decidedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(recorded.createdAt));

      // The stream says so: gone from pending, in the decided list with its decider.
      const decided = await events.next<StoreQueueView>(
        'queue',
        (view) => !pendingIds(view).includes(id) && view.decided.some((approval) => approval.id === id),
      );
      expect(decided.decided.find((approval) => approval.id === id)).toMatchObject({
        status: 'approved',
        decidedBy: 'ops-lead',
        decidedAt: recorded.decidedAt,
      });

      // The retry, on the other registry, runs the call once; a second retry is told it was used.
      const before = replicaRan.length;
      const retried = await fleet.call('deploy', { service: 'billing' });
      expect(retried).toEqual({ ok: true, result: { deployed: 'billing' } });
      const again = await fleet.call('deploy', { service: 'billing' });
      expect(again).toMatchObject({ ok: false, error: { type: 'approval_already_used' } });
      expect(replicaRan.slice(before)).toEqual(['billing']);
      expect(studioRan).not.toContain('billing');
      const used = await events.next<StoreQueueView>('queue', (view) =>
        view.decided.some((approval) => approval.id === id && approval.status === 'used'),
      );
      expect(used.decided.find((approval) => approval.id === id)?.usedAt).not.toBeNull();
    } finally {
      events.close();
    }
  });

  test("denying without a name records the studio's user and the reason, and the retry is refused with it", async () => {
    const queued = await fleet.call('deploy', { service: 'search' });
    const id = approvalIdOf(queued);
    const answer = await post(`${studio.url}api/queue/${id}`, {
      action: 'deny',
      reason: 'not during the freeze',
    });
    expect(answer.status).toBe(200);
    expect(await store.approvals.get(id)).toMatchObject({
      status: 'denied',
      decidedBy: 'studio-user',
      decisionReason: 'not during the freeze',
    });
    const retried = await fleet.call('deploy', { service: 'search' });
    expect(retried).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
    expect(JSON.stringify(retried)).toContain('not during the freeze');
    expect(replicaRan).not.toContain('search');
  });

  test('a decision already taken, an unknown id and a malformed body are refused with what was wrong', async () => {
    const queued = await fleet.call('deploy', { service: 'mail' });
    const id = approvalIdOf(queued);
    await other.approvals.approve(id, { by: 'someone-at-the-cli' });
    const late = await post(`${studio.url}api/queue/${id}`, { action: 'deny' });
    expect(late.status).toBe(409);
    expect(JSON.parse(late.text).error).toMatchObject({ type: 'not_pending' });
    expect(JSON.parse(late.text).error.message).toContain('already approved by someone-at-the-cli');

    const unknown = await post(`${studio.url}api/queue/apr_nothing`, { action: 'approve' });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).error).toMatchObject({ type: 'unknown_approval' });
    expect(JSON.parse(unknown.text).error.message).toContain('apr_nothing');

    for (const [body, message] of [
      [{ action: 'allow' }, '"action" is "approve" or "deny", received "allow"'],
      [{ action: 'approve', by: 7 }, '"by" is text, received 7'],
      [{ action: 'approve', by: 'x'.repeat(201) }, 'at most 200 characters, received 201'],
    ] as const) {
      const refused = await post(`${studio.url}api/queue/${id}`, body);
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.text).error.message).toContain(message);
    }
    expect(await store.approvals.get(id)).toMatchObject({
      status: 'approved',
      decidedBy: 'someone-at-the-cli',
    });
  });

  test("the page's own calls are committed to the store's audit log, and a queue rule queues them there", async () => {
    const status = JSON.parse(
      (await post(`${studio.url}api/call`, { tool: 'status', arguments: { service: 'api' } })).text,
    );
    expect(status.ok).toBe(true);
    // Committed before the studio answered.
    const rows = await other.queryAudit({ tool: 'status' });
    expect(rows.map((row) => row.arguments)).toContainEqual({ service: 'api' });

    const call = JSON.parse(
      (await post(`${studio.url}api/call`, { tool: 'deploy', arguments: { service: 'docs' } })).text,
    );
    const envelope = JSON.parse(call.text);
    expect(envelope).toMatchObject({ ok: false, error: { type: 'approval_pending' } });
    const id = envelope.error.approval as string;
    expect(await other.approvals.get(id)).toMatchObject({
      tool: 'deploy',
      status: 'pending',
      principal: 'local',
    });
    // Approved elsewhere, the same call made again from the page runs.
    await other.approvals.approve(id, { by: 'lead' });
    const again = JSON.parse(
      (await post(`${studio.url}api/call`, { tool: 'deploy', arguments: { service: 'docs' } })).text,
    );
    expect(JSON.parse(again.text)).toEqual({ ok: true, result: { deployed: 'docs' } });
    expect(studioRan.filter((service) => service === 'docs')).toEqual(['docs']);
  });

  test("an ask of a rule that does not name the queue is still answered in the page's dialog", async () => {
    const events = await followEvents(studio.url);
    try {
      await events.next('approvals');
      const called = post(`${studio.url}api/call`, { tool: 'restart', arguments: { service: 'api' } });
      const [asked] = await events.next<{ id: string; rule: string }[]>(
        'approvals',
        (list) => list.length > 0,
      );
      expect(asked).toMatchObject({ tool: 'restart', rule: 'restarts-asked' });
      const answer = await post(`${studio.url}api/approvals/${asked!.id}`, {
        action: 'allow',
        scope: 'once',
      });
      expect(answer.status).toBe(200);
      const call = JSON.parse((await called).text);
      expect(JSON.parse(call.text)).toEqual({ ok: true, result: { restarted: 'api' } });
      expect(studioRan).toContain('restart:api');
      // Nothing went to the store's queue for it.
      const all = await store.approvals.list({ status: 'all' });
      expect(all.filter((approval) => approval.tool === 'restart')).toEqual([]);
      // The audit record, committed to the store, says how the page answered.
      const [record] = await other.queryAudit({ tool: 'restart' });
      expect(record?.decision).toMatchObject({ action: 'allow', rule: 'restarts-asked', approval: 'once' });
    } finally {
      events.close();
    }
  });

  test('while the store is down the page says why and decides nothing; when it is back, the page follows again', async () => {
    const id = approvalIdOf(await fleet.call('deploy', { service: 'outage' }));
    const events = await followEvents(studio.url);
    try {
      await events.next<StoreQueueView>('queue', (view) => pendingIds(view).includes(id));
      await postgres.shutdown();
      const down = await events.next<StoreQueueView>('queue', (view) => view.problem !== null);
      expect(down.problem).toContain(`The store at ${store.where} could not be read`);
      // The last lists read are kept.
      expect(pendingIds(down)).toContain(id);
      const refused = await post(`${studio.url}api/queue/${id}`, { action: 'approve' });
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.text).error).toMatchObject({ type: 'store_unavailable' });
      expect(JSON.parse(refused.text).error.message).toContain('nothing was decided');
      await postgres.start();
      const back = await events.next<StoreQueueView>('queue', (view) => view.problem === null);
      expect(pendingIds(back)).toContain(id);
      expect(await store.approvals.get(id)).toMatchObject({ status: 'pending', decidedBy: null });
    } finally {
      events.close();
    }
  });
});

describe('the studio without a store', () => {
  test('has no queue: the overview says so and the queue API answers what to do', async () => {
    const studio = await startStudio({
      label: 'plain',
      load: (options) => ({ registry: new Registry(options).register(tools([])) }),
    });
    try {
      expect(JSON.parse((await send(`${studio.url}api/overview`)).text).store).toBeNull();
      for (const response of [
        await send(`${studio.url}api/queue`),
        await post(`${studio.url}api/queue/apr_x`, { action: 'approve' }),
      ]) {
        expect(response.status).toBe(404);
        expect(JSON.parse(response.text).error).toMatchObject({ type: 'no_store' });
        expect(JSON.parse(response.text).error.message).toContain('--store postgres://');
      }
    } finally {
      await studio.close();
    }
  });
});

/** Starts `toolpact studio` as a process and resolves with the URL it prints. */
async function startCli(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, toolpactArgs(...args), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /open (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`toolpact studio exited with ${code}: ${stderr}`)));
  });
  return { child, url };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe.runIf(hasPostgres)('toolpact studio --store', () => {
  let postgres: PostgresServer;
  let dir: string;
  beforeAll(async () => {
    postgres = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), 'toolpact-studio-store-'));
  }, 120_000);
  afterAll(async () => {
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('an unreachable store is a usage error naming the host, never the password', async () => {
    const port = await freePort();
    const { code, stderr, stdout } = await runCli(
      ['studio', MODULE, '--store', `postgres://someone:s3cret@127.0.0.1:${port}/db`],
      { cwd: ROOT },
    );
    expect(code).toBe(2);
    expect(stderr).toContain(`Cannot reach the store at postgres://someone@127.0.0.1:${port}/db`);
    expect(stderr).not.toContain('s3cret');
    expect(stdout).toBe('');
  });

  test('TOOLPACT_STORE: the page queues, lists and approves from the store as $USER, and the call then runs', async () => {
    const policyFile = join(dir, 'policy.json');
    writeFileSync(
      policyFile,
      JSON.stringify({
        rules: [
          {
            id: 'reviewed-notes',
            action: 'ask',
            tool: 'write_note',
            approver: 'queue',
            reason: 'notes are reviewed',
          },
        ],
      }),
    );
    const store = await openPostgresStore(postgres.url);
    const { child, url } = await startCli(['studio', MODULE, '--policy', policyFile], {
      TOOLPACT_STORE: postgres.url,
      USER: 'cli-user',
    });
    try {
      const overview = JSON.parse((await send(`${url}api/overview`)).text);
      expect(overview.store).toBe(store.where);
      const call = () =>
        post(`${url}api/call`, { tool: 'write_note', arguments: { file_path: 'a.md', text: 'hi' } });
      const first = JSON.parse(JSON.parse((await call()).text).text);
      expect(first).toMatchObject({ ok: false, error: { type: 'approval_pending', rule: 'reviewed-notes' } });
      const id = first.error.approval as string;
      const view = JSON.parse((await send(`${url}api/queue`)).text) as StoreQueueView;
      expect(view.decider).toBe('cli-user');
      expect(pendingIds(view)).toEqual([id]);
      expect((await post(`${url}api/queue/${id}`, { action: 'approve' })).status).toBe(200);
      expect(await store.approvals.get(id)).toMatchObject({ status: 'approved', decidedBy: 'cli-user' });
      const second = JSON.parse(JSON.parse((await call()).text).text);
      expect(second).toMatchObject({ ok: true });
      expect(await store.approvals.get(id)).toMatchObject({ status: 'used' });
      // Both calls are in the shared audit log.
      const rows = await store.queryAudit({ tool: 'write_note' });
      expect(rows.map((row) => row.outcome)).toEqual(['approval_pending', 'ok']);
    } finally {
      expect(await stop(child)).toBe(0);
      await store.close();
    }
  });
});
