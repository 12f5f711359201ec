// Authentication in a fleet: three `toolpact serve --http --auth … --store …` processes with the same auth
// file (resource = the balancer's public URL), behind Debian's HAProxy, sharing a private PostgreSQL, and
// a real OpenID provider (oidc-provider, in process) that rotates its signing key mid-run, with the auth
// file's default JWKS cooldown.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, envelopeIn, lastMessage } from '../auth/support.js';
import { runCli } from '../support/cli.js';
import { type HaproxyServer, hasHaproxy, startHaproxy } from '../support/haproxy.js';
import { startProvider, type TestProvider, userToken } from '../support/oidc-provider.js';
import {
  freePort,
  hasPostgres,
  type PostgresServer,
  type Running,
  registerLeftover,
  startPostgres,
  unregisterLeftover,
} from '../support/postgres.js';
import { FLEET_POLICY, startReplica, stopReplica } from './replica-process.js';

const KEY = 'a17e'.repeat(16);

interface Replica {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  running?: Running;
}

let postgres: PostgresServer;
let haproxy: HaproxyServer;
let provider: TestProvider;
let dir: string;
let resource: string;
let policyFile: string;
const replicas: Replica[] = [];

/** Starts a replica with the shared auth file and store, and waits until it says where it listens. */
async function start(replica: Replica, authFile: string): Promise<void> {
  replica.running = await startReplica({
    name: replica.name,
    port: replica.port,
    url: replica.url,
    store: postgres.url,
    policy: policyFile,
    log: join(dir, `${replica.name}.log`),
    extra: ['--auth', authFile],
    env: {
      ...process.env,
      TOOLPACT_STATE_KEY: KEY,
      FLEET_EXECUTIONS: join(dir, 'executions.jsonl'),
      FLEET_REPLICA: replica.name,
    },
  });
}

/** A `record_event` call with `authorization`: its HTTP status, and the replica that ran it when it did. */
async function recordEvent(url: string, id: string, authorization?: string) {
  const answer = await call(url, 'record_event', authorization, { id });
  const replica = /\\"replica\\":\\"(r\d)\\"/.exec(answer.body)?.[1];
  return { status: answer.status, replica, body: answer.body, challenge: answer.challenge };
}

function kidOf(token: string): unknown {
  return JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid;
}

describe.runIf(hasPostgres && hasHaproxy)('three replicas behind HAProxy verify the same tokens', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolpact-fleet-auth-'));
    registerLeftover(dir, () => undefined);
    [postgres, provider] = await Promise.all([startPostgres(), startProvider()]);
    for (const name of ['r1', 'r2', 'r3']) {
      const port = await freePort();
      replicas.push({ name, port, url: `http://127.0.0.1:${port}/mcp` });
    }
    // The balancer first: its URL is the resource every replica is, so the auth file names it.
    haproxy = await startHaproxy(replicas.map((replica) => ({ host: '127.0.0.1', port: replica.port })));
    resource = haproxy.url('/mcp');
    const authFile = join(dir, 'auth.json');
    // The default JWKS cooldown: no jwksCooldownSeconds.
    writeFileSync(
      authFile,
      JSON.stringify({ resource, issuers: [provider.issuer], scopes: { required: ['tools:read'] } }),
    );
    // The fleet's policy, with who may do what: only leads read the status, and a production deploy
    // asked by anyone is decided by a lead other than the one who asked.
    const fleet = JSON.parse(readFileSync(FLEET_POLICY, 'utf8')) as { rules: Record<string, unknown>[] };
    policyFile = join(dir, 'policy.json');
    writeFileSync(
      policyFile,
      JSON.stringify({
        ...fleet,
        rules: [
          ...fleet.rules.map((rule) =>
            rule.id === 'prod-deploys' ? { ...rule, decidedBy: { group: 'leads', notCaller: true } } : rule,
          ),
          { id: 'status-for-leads', action: 'allow', tool: 'status', principal: { group: 'leads' } },
          { id: 'no-status', action: 'deny', tool: 'status', reason: 'the status is for leads' },
        ],
      }),
    );
    mkdirSync(join(dir, 'logs'), { recursive: true });
    for (const replica of replicas) {
      registerLeftover(join(dir, 'logs'), () =>
        replica.running && !replica.running.done ? replica.running.pid : undefined,
      );
    }
    await Promise.all(replicas.map((replica) => start(replica, authFile)));
  }, 60_000);

  afterAll(async () => {
    await haproxy?.stop();
    await Promise.all(replicas.map((replica) => stopReplica(replica.running)));
    await postgres?.stop();
    await provider?.close();
    if (dir) {
      unregisterLeftover(join(dir, 'logs'));
      unregisterLeftover(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test("the provider's tokens are accepted by every replica, through the balancer and directly; none, and another resource's, are refused by each", async () => {
    const token = await provider.clientCredentialsToken(resource, 'tools:read tools:write');
    const balanced = [];
    for (let index = 0; index < 6; index++) {
      balanced.push(await recordEvent(resource, `lb-${index}`, `Bearer ${token}`));
    }
    expect(balanced.map((each) => each.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Round robin: each replica verified the token and ran two of the calls.
    const counts = new Map<string | undefined, number>();
    for (const each of balanced) counts.set(each.replica, (counts.get(each.replica) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({ r1: 2, r2: 2, r3: 2 });

    const elsewhere = await provider.clientCredentialsToken('http://127.0.0.1:9/other-mcp', 'tools:read');
    for (const replica of replicas) {
      const accepted = await recordEvent(replica.url, `direct-${replica.name}`, `Bearer ${token}`);
      expect({ replica: replica.name, status: accepted.status, ran: accepted.replica }).toEqual({
        replica: replica.name,
        status: 200,
        ran: replica.name,
      });
      const none = await recordEvent(replica.url, `none-${replica.name}`);
      expect(none.status).toBe(401);
      // The metadata every replica names is the public one, at the balancer.
      expect(none.challenge).toContain(
        `resource_metadata="${haproxy.url('/.well-known/oauth-protected-resource/mcp')}"`,
      );
      const other = await recordEvent(replica.url, `other-${replica.name}`, `Bearer ${elsewhere}`);
      expect(other.status).toBe(401);
      expect(JSON.parse(other.body).error.message).toMatch(/issued for/);
    }
    const ran = readFileSync(join(dir, 'executions.jsonl'), 'utf8');
    expect(ran).not.toMatch(/none-|other-/);
  });

  test('the provider rotates its signing key mid-run: new-key tokens succeed on every replica, old-key tokens while the old key is published', async () => {
    const old = await provider.clientCredentialsToken(resource, 'tools:read tools:write');
    // Each replica verifies an old-key token now: its JWKS cooldown starts (or is under way).
    for (const replica of replicas) {
      expect((await recordEvent(replica.url, `before-${replica.name}`, `Bearer ${old}`)).status).toBe(200);
    }
    const fetched = provider.jwksFetches();
    await provider.rotateKey();
    const kid = provider.signingKey().publicJwk.kid;
    const fresh = await Promise.all(
      replicas.map(() => provider.clientCredentialsToken(resource, 'tools:read tools:write')),
    );
    expect(fresh.map(kidOf)).toEqual([kid, kid, kid]);
    // At once, on every replica, inside its cooldown: each waits for its one fetch, then accepts.
    const answers = await Promise.all(
      replicas.flatMap((replica, index) => [
        recordEvent(replica.url, `after-${replica.name}-a`, `Bearer ${fresh[index]}`),
        recordEvent(replica.url, `after-${replica.name}-b`, `Bearer ${fresh[(index + 1) % 3]}`),
      ]),
    );
    expect(answers.map((each) => [each.status, each.replica])).toEqual(
      replicas.flatMap((replica) => [
        [200, replica.name],
        [200, replica.name],
      ]),
    );
    // One fetch per replica for the new key, however many of its tokens arrived.
    expect(provider.jwksFetches() - fetched).toBeLessThanOrEqual(replicas.length);
    // Through the balancer too, and the old key still verifies everywhere.
    for (let index = 0; index < 3; index++) {
      expect((await recordEvent(resource, `after-lb-${index}`, `Bearer ${fresh[0]}`)).status).toBe(200);
      expect((await recordEvent(resource, `old-lb-${index}`, `Bearer ${old}`)).status).toBe(200);
    }
  });
  test('per caller: alice and bob see the listings their groups give; alice asks on r1, bob decides on r2 with toolpact approvals, alice deciding her own is refused on r3, and her call runs once', async () => {
    const [alice, bob] = await Promise.all([
      userToken(provider, 'alice', resource),
      userToken(provider, 'bob', resource),
    ]);
    // Listings, through the balancer: every replica filters by the same policy.
    for (let index = 0; index < 3; index++) {
      expect(await listed(resource, alice)).toEqual(['deploy', 'record_event', 'rotate_key']);
      expect(await listed(resource, bob)).toEqual(['deploy', 'record_event', 'rotate_key', 'status']);
    }
    const [r1, r2, r3] = replicas as [Replica, Replica, Replica];
    const asked = await envelope(r1.url, 'deploy', alice, { service: 'api' });
    expect(asked.error?.type).toBe('approval_pending');
    const id = asked.error?.approval as string;
    expect(id).toMatch(/^apr_/);

    const own = await approvals(['approve', id, '--server', r3.url], alice);
    expect(own.code, own.stderr).toBe(1);
    expect(own.stderr).toMatch(/leads/);
    const decided = await approvals(['approve', id, '--reason', 'release window', '--server', r2.url], bob);
    expect(decided.code, decided.stderr).toBe(0);
    expect(decided.stdout).toContain('as bob');
    const shown = await approvals(['show', id, '--format', 'json', '--server', r3.url], bob);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      status: 'approved',
      decidedBy: 'bob',
      refusals: [expect.objectContaining({ by: 'alice' })],
    });

    // Alice's same call now runs, once, on whichever replica it reaches; bob's is his own to ask.
    const deploys = () =>
      readFileSync(join(dir, 'executions.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line.includes('"deploy"'));
    expect(deploys()).toHaveLength(0);
    expect((await envelope(r3.url, 'deploy', alice, { service: 'api' })).ok).toBe(true);
    expect(deploys()).toHaveLength(1);
    expect((await envelope(r2.url, 'deploy', bob, { service: 'api' })).error?.type).toBe('approval_pending');
    // Alice's approval is spent: the same call again is told so, and does not run.
    expect((await envelope(r1.url, 'deploy', alice, { service: 'api' })).error?.type).toBe(
      'approval_already_used',
    );
    expect(deploys()).toHaveLength(1);
  });
});

/** The envelope of a `tools/call` by the holder of `token`. */
async function envelope(url: string, name: string, token: string, args: Record<string, unknown>) {
  const answer = await call(url, name, `Bearer ${token}`, args);
  expect(answer.status, answer.body).toBe(200);
  return envelopeIn(answer.body);
}

/** The names `tools/list` answers the holder of `token`, sorted. */
async function listed(url: string, token: string): Promise<string[]> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        },
      },
    }),
  });
  const body = await response.text();
  expect(response.status, body).toBe(200);
  const tools = (lastMessage(body).result as { tools: { name: string }[] }).tools;
  return tools.map((tool) => tool.name).sort();
}

/** `toolpact approvals …` in this process, the holder of `token` signed in through TOOLPACT_TOKEN. */
function approvals(argv: readonly string[], token: string) {
  return runCli(['approvals', ...argv], { cwd: dir, env: { TOOLPACT_TOKEN: token } });
}
