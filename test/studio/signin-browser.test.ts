// The studio behind sign-in, in Debian's Chromium, against panva's oidc-provider and a real
// PostgreSQL: opening the studio leads to the provider's login page; bob (a lead) approves a call
// alice queued, and the store records him; alice, signed in, cannot approve her own.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/index.js';
import { type RunningStudio, startStudio } from '../../src/studio/index.js';
import { connectAs } from '../support/mcp-caller.js';
import { STUDIO_CLIENT, startProvider, type TestProvider, USERS } from '../support/oidc-provider.js';
import { hasPostgres, type PostgresServer, startPostgres } from '../support/postgres.js';
import { deploy } from './deploy-tool.js';
import { launchBrowser, skipWithoutBrowser } from './support.js';

const SHOTS = process.env.TOOLPACT_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'toolpact-studio-shots-'));

if (!hasPostgres) {
  process.stderr.write(
    'Skipping test/studio/signin-browser.test.ts: no PostgreSQL server binaries. Install them with: apt-get install postgresql\n',
  );
}
const skip = !hasPostgres || skipWithoutBrowser('test/studio/signin-browser.test.ts');

const policy = definePolicy({
  rules: [
    {
      id: 'prod-deploys',
      action: 'ask',
      tool: 'deploy',
      approver: 'queue',
      reason: 'a production deploy',
      decidedBy: { group: 'leads', notCaller: true },
    },
  ],
});

describe.skipIf(skip)('signing in to the studio in Chromium', () => {
  let provider: TestProvider;
  let postgres: PostgresServer;
  let store: PostgresStore;
  let fleetStore: PostgresStore;
  let studio: RunningStudio;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  /** A call made over MCP as the authenticated `user`, queued on a replica: its approval's id. */
  async function queuedBy(user: string, service: string): Promise<string> {
    const gate = createPolicyGate(policy, { observe: fleetStore.audit.observe });
    const replica = new Registry({
      ...gate.registryOptions,
      approvalQueue: fleetStore.approvalQueue(policy),
    }).register(deploy);
    const client = await connectAs(replica, 'agent', {
      subject: user,
      issuer: provider.issuer,
      groups: [...USERS[user]!],
    });
    const result = (await client.callTool({ name: 'deploy', arguments: { service } })) as {
      content: { text: string }[];
    };
    await client.close();
    const envelope = JSON.parse(result.content[0]!.text) as { error?: { type: string; approval?: string } };
    expect(envelope.error?.type).toBe('approval_pending');
    return envelope.error!.approval!;
  }

  /** Opens the studio, which sends the browser to the provider's login page; signs in as `user`. */
  async function signInAs(user: string): Promise<void> {
    await page.goto(studio.url);
    await page.locator('input[name="login"]').waitFor();
    expect(page.url().startsWith(provider.issuer)).toBe(true);
    await page.locator('input[name="login"]').fill(user);
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    // The consent page, then back to the studio.
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('.signed-in-name').waitFor();
    expect(await page.locator('.signed-in-name').textContent()).toBe(user);
  }

  const pendingRow = (id: string) => page.locator(`table.queue.pending tr[data-approval="${id}"]`);
  const decidedRow = (id: string) => page.locator(`table.queue.decided tr[data-approval="${id}"]`);

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    [provider, postgres] = await Promise.all([startProvider(), startPostgres()]);
    [store, fleetStore] = await Promise.all([
      openPostgresStore(postgres.url),
      openPostgresStore(postgres.url),
    ]);
    studio = await startStudio({
      label: 'deploys',
      policy,
      store,
      storePollMs: 200,
      auth: {
        resource: 'http://127.0.0.1/mcp',
        issuers: [provider.issuer],
        claims: { groups: 'groups' },
        studio: { clientId: STUDIO_CLIENT.id, scopes: ['openid', 'groups'] },
      },
      load: (options) => ({ registry: new Registry(options).register(deploy) }),
    });
    browser = await launchBrowser();
    page = await browser.context.newPage();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await studio?.close();
    await store?.close();
    await fleetStore?.close();
    await postgres?.stop();
    await provider?.close();
  });

  test("bob signs in at the provider's login page and approves alice's call; the store records bob", async () => {
    const id = await queuedBy('alice', 'api');
    await signInAs('bob');
    expect(await page.locator('.signed-in').textContent()).toContain('(leads, developers)');
    await page.goto(`${studio.url}#approvals`);
    await pendingRow(id).waitFor();
    expect(await page.locator('.decider-signed-in').textContent()).toBe('bob');
    expect(await page.locator('.decider-name').count()).toBe(0);
    const cells = await pendingRow(id).locator('td').allTextContents();
    expect(cells[2]).toBe(`auth:alice@${provider.issuer}`);
    await page.screenshot({ path: join(SHOTS, 'studio-signed-in-queue.png') });

    await pendingRow(id).getByRole('button', { name: 'Approve' }).click();
    await decidedRow(id).waitFor();
    expect(await decidedRow(id).locator('.decided-by').textContent()).toBe('bob');
    expect(await store.approvals.get(id)).toMatchObject({
      status: 'approved',
      decidedBy: 'bob',
      deciderPrincipal: `auth:bob@${provider.issuer}`,
    });

    // A lead's own call needs another lead.
    const own = await queuedBy('bob', 'billing');
    await pendingRow(own).waitFor();
    await pendingRow(own).getByRole('button', { name: 'Approve' }).click();
    await pendingRow(own).locator('.decision-problem').waitFor();
    expect(await pendingRow(own).locator('.decision-problem').textContent()).toContain(
      'it must be decided by someone other than the caller who asked',
    );
  });

  test('bob signs out; alice signs in, and approving her own call is refused with the reason on the page', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    // The provider's own sign-out page.
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));

    const id = await queuedBy('alice', 'search');
    await signInAs('alice');
    await page.goto(`${studio.url}#approvals`);
    await pendingRow(id).waitFor();
    await pendingRow(id).getByRole('button', { name: 'Approve' }).click();
    const problem = pendingRow(id).locator('.decision-problem');
    await problem.waitFor();
    const text = await problem.textContent();
    expect(text).toContain('only a member of "leads" may decide it, and "alice" is not one');
    expect(text).toContain('The attempt is recorded');
    await page.screenshot({ path: join(SHOTS, 'studio-signed-in-refusal.png') });
    const approval = await store.approvals.get(id);
    expect(approval?.status).toBe('pending');
    expect(approval?.refusals?.map((refusal) => [refusal.by, refusal.principal, refusal.action])).toEqual([
      ['alice', `auth:alice@${provider.issuer}`, 'approve'],
    ]);
  });
});
