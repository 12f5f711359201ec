import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import { type RunningHttpServer, serveHttp, serveRegistry } from '../../src/mcp/index.js';
import { definePolicy } from '../../src/policy/index.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/index.js';
import { ROOT } from '../mcp/support/wire.js';
import { runCli } from '../support/cli.js';
import { toolpactArgs } from '../support/cli-build.js';
import { startProvider, type TestProvider, userToken } from '../support/oidc-provider.js';
import { freePort, hasPostgres, type PostgresServer, startPostgres } from '../support/postgres.js';
import { call, envelopeIn, spawnServe } from './support.js';

// The approvals API beside the MCP endpoint, and `toolpact approvals … --server` deciding as a
// signed-in person: one `toolpact serve --http --auth --store` process, one PostgreSQL, one OpenID
// provider (oidc-provider, in process) whose users alice [developers] and bob [leads, developers]
// sign in with the authorization code and PKCE, and an API key minted with `toolpact auth key`.

const TOOLS = join(ROOT, 'test', 'fixtures', 'approvals-http', 'tools.ts');

let folder: string;
let provider: TestProvider;
let postgres: PostgresServer;
let server: { url: string; stderr: () => string; stop: () => Promise<number | null> };
let resource: string;
let runs: string;
let alice: string;
let bob: string;

/** Spawns `toolpact serve` on the approvals fixture, its runs written to the runs file. */
const serve = (...args: string[]) => spawnServe(TOOLS, args, { ...process.env, APPROVALS_RUNS: runs });

/** Runs the CLI in this process with `env`, answering its exit code and output. */
const cli = (argv: readonly string[], env: Record<string, string> = {}) => runCli(argv, { cwd: folder, env });

/** Runs the built `toolpact` bin as its own process, the credential in its environment. */
async function bin(argv: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, toolpactArgs(...argv), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

/** The envelope a `tools/call` answered. */
async function envelopeOf(name: string, token: string, args: Record<string, unknown>) {
  const answer = await call(server.url, name, `Bearer ${token}`, args);
  expect(answer.status, answer.body).toBe(200);
  return envelopeIn(answer.body);
}

function ran(): string[] {
  return readFileSync(runs, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}

const api = (path = '') => `${server.url}/approvals${path}`;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-approvals-http-'));
  runs = join(folder, 'runs.jsonl');
  writeFileSync(runs, '');
  if (hasPostgres) [provider, postgres] = await Promise.all([startProvider(), startPostgres()]);
}, 60_000);

afterAll(async () => {
  await Promise.all([provider?.close(), postgres?.stop()]);
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe.runIf(hasPostgres)('the approvals API of toolpact serve --http --auth --store', () => {
  beforeAll(async () => {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    writeFileSync(
      join(folder, 'auth.json'),
      JSON.stringify({
        resource,
        issuers: [provider.issuer],
        scopes: { required: ['tools:read'] },
      }),
    );
    writeFileSync(
      join(folder, 'policy.json'),
      JSON.stringify({
        rules: [
          {
            id: 'releases',
            action: 'ask',
            tool: 'ship',
            approver: 'queue',
            decidedBy: { group: 'leads', notCaller: true },
            reason: 'a lead approves each release',
          },
          { id: 'tags', action: 'ask', tool: 'tag', approver: 'queue', reason: 'someone else approves tags' },
        ],
      }),
    );
    [server, alice, bob] = await Promise.all([
      serve(
        '--http',
        '--port',
        String(port),
        '--auth',
        join(folder, 'auth.json'),
        '--store',
        postgres.url,
        '--policy',
        join(folder, 'policy.json'),
      ),
      userToken(provider, 'alice', resource),
      userToken(provider, 'bob', resource),
    ]);
  }, 60_000);

  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
  });

  test('a self-approval is refused and recorded; a lead approves with the CLI, and the call runs once', async () => {
    expect(server.stderr()).toContain(`the store's approvals at ${server.url}/approvals`);
    const asked = await envelopeOf('ship', alice, { version: '1.4.0' });
    expect(asked).toMatchObject({ ok: false, error: { type: 'approval_pending' } });
    const id = asked.error!.approval!;
    expect(id).toMatch(/^apr_/);

    // alice, not a lead, cannot approve her own call: exit 1, naming why.
    const own = await cli(['approvals', 'approve', id, '--server', server.url], { TOOLPACT_TOKEN: alice });
    expect(own.code).toBe(1);
    expect(own.stderr).toContain(`The approval "${id}" cannot be approved by alice`);
    expect(own.stderr).toContain('only a member of "leads" may decide it');

    // The refusal is in the approval, which anyone signed in may read.
    const shown = await cli(['approvals', 'show', id, '--format', 'json', '--server', server.url], {
      TOOLPACT_TOKEN: bob,
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      id,
      status: 'pending',
      principal: `auth:alice@${provider.issuer}`,
      refusals: [{ by: 'alice', principal: `auth:alice@${provider.issuer}`, action: 'approve' }],
    });
    expect(ran()).toEqual([]);

    // bob, a lead, approves with the bin, his token in TOOLPACT_TOKEN.
    const approved = await bin(
      ['approvals', 'approve', id, '--reason', 'release window', '--server', server.url],
      { TOOLPACT_TOKEN: bob },
    );
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toBe(`Approved ${id} (ship) as bob. The same call, made again, runs once.\n`);

    expect(await envelopeOf('ship', alice, { version: '1.4.0' })).toMatchObject({
      ok: true,
      result: { tool: 'ship', target: '1.4.0' },
    });
    expect(ran()).toHaveLength(1);
    const decided = (await (
      await fetch(api(`/${id}`), { headers: { authorization: `Bearer ${bob}` } })
    ).json()) as {
      status: string;
      decidedBy: string;
      deciderPrincipal: string;
      decisionReason: string;
    };
    expect(decided).toMatchObject({
      status: 'used',
      decidedBy: 'bob',
      deciderPrincipal: `auth:bob@${provider.issuer}`,
      decisionReason: 'release window',
    });
    // Decisions are final.
    const again = await cli(['approvals', 'deny', id, '--server', server.url], { TOOLPACT_TOKEN: bob });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already used');
  });

  test('a denial, the credential read from the variable --token-env names', async () => {
    const asked = await envelopeOf('ship', alice, { version: '2.0.0' });
    const id = asked.error!.approval!;
    const listed = await cli(['approvals', 'list', '--format', 'json', '--server', server.url], {
      TOOLPACT_TOKEN: bob,
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id, tool: 'ship', status: 'pending' }]);

    const denied = await cli(
      [
        'approvals',
        'deny',
        id,
        '--reason',
        'not this week',
        '--token-env',
        'BOB_TOKEN',
        '--server',
        server.url,
      ],
      { BOB_TOKEN: bob },
    );
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout).toBe(`Denied ${id} (ship) as bob.\n`);
    const retry = await envelopeOf('ship', alice, { version: '2.0.0' });
    expect(retry).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
    expect(retry.error!.message).toContain('bob denied it');
    expect(ran()).toHaveLength(1);
  });

  test('a rule without decidedBy: anyone signed in but the caller decides, over HTTP', async () => {
    const asked = await envelopeOf('tag', alice, { commit: 'a1b2c3d' });
    const id = asked.error!.approval!;
    const own = await fetch(api(`/${id}/approve`), {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(own.status).toBe(403);
    expect(await own.json()).toMatchObject({
      error: { type: 'not_allowed', message: expect.stringContaining('someone other than the caller') },
    });
    // The store refused it, so the attempt is recorded like a decidedBy refusal.
    const recorded = await fetch(api(`/${id}`), { headers: { authorization: `Bearer ${bob}` } });
    expect(await recorded.json()).toMatchObject({
      status: 'pending',
      refusals: [expect.objectContaining({ by: 'alice', action: 'approve' })],
    });
    const other = await fetch(api(`/${id}/approve`), {
      method: 'POST',
      headers: { authorization: `Bearer ${bob}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'looks right' }),
    });
    expect(other.status).toBe(200);
    expect(await other.json()).toMatchObject({ id, status: 'approved', decidedBy: 'bob' });
  });

  test('no credential, a token for another resource, a missing scope: refused as the MCP endpoint refuses', async () => {
    const mcp = await call(server.url, 'ship');
    const none = await fetch(api());
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(mcp.challenge);
    expect(mcp.challenge).toMatch(/^Bearer scope="tools:read", resource_metadata="/);
    expect(await none.json()).toMatchObject({ error: { type: 'no_token' } });

    const elsewhere = await provider.clientCredentialsToken('http://127.0.0.1:1/other', 'tools:read');
    const foreign = await fetch(api(), { headers: { authorization: `Bearer ${elsewhere}` } });
    expect(foreign.status).toBe(401);
    expect(foreign.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);

    const writer = await provider.clientCredentialsToken(resource, 'tools:write');
    const scoped = await fetch(api(), { headers: { authorization: `Bearer ${writer}` } });
    expect(scoped.status).toBe(403);
    expect(scoped.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope", scope="tools:read/,
    );

    // The CLI says what was refused and what to do.
    const bad = await cli(['approvals', 'list', '--server', server.url], { TOOLPACT_TOKEN: elsewhere });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('refused the credential in TOOLPACT_TOKEN (401 invalid_token)');
  });

  test('bad requests: a foreign Origin, a decider in the body, not JSON, too large, an unknown approval', async () => {
    const asked = await envelopeOf('ship', alice, { version: '3.0.0' });
    const id = asked.error!.approval!;
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(api(`/${id}/approve`), {
        method: 'POST',
        headers: { authorization: `Bearer ${bob}`, 'content-type': 'application/json', ...headers },
        body,
      });
    const rebinding = await post('{}', { origin: 'http://evil.example' });
    expect(rebinding.status).toBe(403);
    expect(await rebinding.json()).toMatchObject({ error: { type: 'origin_not_allowed' } });
    const impersonating = await post(JSON.stringify({ by: 'carol' }));
    expect(impersonating.status).toBe(400);
    expect(await impersonating.json()).toMatchObject({
      error: {
        type: 'bad_request',
        message: expect.stringContaining('the decider is who the request authenticated as'),
      },
    });
    expect((await post('reason=x', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(
      400,
    );
    const large = await post(JSON.stringify({ reason: 'x'.repeat(20_000) }));
    expect(large.status).toBe(413);
    expect((await fetch(api(`/${id}/approve`), { headers: { authorization: `Bearer ${bob}` } })).status).toBe(
      405,
    );
    const missing = await fetch(api('/apr_nothing'), { headers: { authorization: `Bearer ${bob}` } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: 'unknown_approval' } });
    // None of these decided it.
    const still = await cli(['approvals', 'show', id, '--format', 'json', '--server', server.url], {
      TOOLPACT_TOKEN: bob,
    });
    expect(JSON.parse(still.stdout)).toMatchObject({ status: 'pending', decidedBy: null });
    const unknown = await cli(['approvals', 'show', 'apr_nothing', '--server', server.url], {
      TOOLPACT_TOKEN: bob,
    });
    expect(unknown.code).toBe(1);
  });
});

describe.runIf(hasPostgres)('where the approvals API is not served', () => {
  let store: PostgresStore;
  beforeAll(async () => {
    store = await openPostgresStore(await postgres.createDatabase('unauthenticated'), { poolSize: 2 });
  });
  afterAll(async () => {
    await store?.close();
  });

  const registry = () =>
    new Registry().register([
      defineTool({
        name: 'ship',
        description: 'Ship a release.',
        category: 'write',
        input: z.object({ version: z.string() }),
        execute: ({ version }) => version,
      }),
    ]);

  test('without auth, an anonymous caller cannot decide: 404 needs_auth, and the approval stays pending', async () => {
    const policy = definePolicy({
      rules: [{ id: 'releases', action: 'ask', tool: 'ship', approver: 'queue' }],
    });
    const served = await serveRegistry(registry(), { policy, store, http: { port: 0 } });
    try {
      const asked = await served.registry.call('ship', { version: '1' });
      expect(asked).toMatchObject({ ok: false, error: { type: 'approval_pending' } });
      const id = (asked as { error: { approval: string } }).error.approval;
      for (const [method, path] of [
        ['GET', ''],
        ['GET', `/${id}`],
        ['POST', `/${id}/approve`],
      ] as const) {
        const answer = await fetch(`${served.url}/approvals${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          ...(method === 'POST' ? { body: '{}' } : {}),
        });
        expect(answer.status).toBe(404);
        expect(await answer.json()).toMatchObject({
          error: { type: 'needs_auth', message: expect.stringContaining('--auth') },
        });
      }
      expect(await store.approvals.get(id)).toMatchObject({ status: 'pending', decidedBy: null });
    } finally {
      await served.close();
    }
  });

  test('with auth but no store: 404 no_store; the MCP endpoint path itself is never the API', async () => {
    let running: RunningHttpServer | undefined;
    try {
      running = await serveHttp(registry(), {
        port: 0,
        path: '/approvals',
        auth: { resource: 'http://127.0.0.1/approvals', issuers: ['https://id.example.com'] },
      });
      const api = await fetch(`${running.url}/approvals`);
      expect(api.status).toBe(404);
      expect(await api.json()).toMatchObject({ error: { type: 'no_store' } });
      // The endpoint at /approvals stays the MCP endpoint: its 401 is a JSON-RPC error.
      const endpoint = await fetch(running.url, { method: 'POST' });
      expect(endpoint.status).toBe(401);
      expect(await endpoint.json()).toMatchObject({
        jsonrpc: '2.0',
        error: { data: { reason: 'no_token' } },
      });
    } finally {
      await running?.close();
    }
  });

  test('the CLI: no credential, plain http off loopback, an unreachable server, both --server and --store', async () => {
    const cases: [string[], Record<string, string>, number, string][] = [
      [['approvals', 'list', '--server', 'http://127.0.0.1:9/mcp'], {}, 2, 'TOOLPACT_TOKEN is not set'],
      [
        ['approvals', 'list', '--server', 'http://tools.example.com/mcp'],
        { TOOLPACT_TOKEN: 't' },
        2,
        'plain http to a host that is not loopback',
      ],
      [
        ['approvals', 'list', '--server', `http://127.0.0.1:${await freePort()}/mcp`],
        { TOOLPACT_TOKEN: 't' },
        2,
        'Cannot reach',
      ],
      [
        ['approvals', 'list', '--server', 'https://x.example/mcp', '--store', 'postgres://x/y'],
        {},
        2,
        'not both',
      ],
      [
        ['approvals', 'approve', 'apr_1', '--server', 'https://x.example/mcp', '--by', 'me'],
        { TOOLPACT_TOKEN: 't' },
        2,
        '--by applies only with --store',
      ],
    ];
    for (const [argv, env, code, message] of cases) {
      const answer = await cli(argv, env);
      expect(answer.code, answer.stderr).toBe(code);
      expect(answer.stderr).toContain(message);
    }
  });
});
