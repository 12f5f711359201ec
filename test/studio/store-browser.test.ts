// The studio's Approvals view in Debian's Chromium, on a real PostgreSQL: a call queued by another
// registry appears without a reload, and Approve and Deny record the decision in the store.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/index.js';
import { type RunningStudio, startStudio } from '../../src/studio/index.js';
import { hasPostgres, type PostgresServer, startPostgres } from '../support/postgres.js';
import { launchBrowser, skipWithoutBrowser } from './support.js';

const SHOTS = process.env.TOOLPACT_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'toolpact-studio-shots-'));

const skip = !hasPostgres || skipWithoutBrowser('test/studio/store-browser.test.ts');

const policy = definePolicy({
  rules: [
    { id: 'prod-deploys', action: 'ask', tool: 'deploy', approver: 'queue', reason: 'production write' },
  ],
});

function deployTool(ran: string[]) {
  return defineTool({
    name: 'deploy',
    description: 'Deploy a service to production. Changes what users see; not read-only.',
    category: 'write',
    input: z.object({
      service: z.string().describe('The service to deploy, e.g. api.'),
      version: z.string().describe('The version to deploy, e.g. 1.4.2.'),
    }),
    execute: ({ service }) => {
      ran.push(service);
      return { deployed: service };
    },
  });
}

/** The approval id of an `approval_pending` envelope. */
function approvalIdOf(envelope: unknown): string {
  const error = (envelope as { error?: { type?: unknown; approval?: unknown } }).error;
  expect(error?.type).toBe('approval_pending');
  return String(error?.approval);
}

describe.skipIf(skip)('the Approvals view in Chromium', () => {
  let postgres: PostgresServer;
  let store: PostgresStore;
  let other: PostgresStore;
  let studio: RunningStudio;
  let fleet: Registry;
  const ran: string[] = [];
  let context: BrowserContext;
  let closeBrowser: () => Promise<void>;
  let page: Page;

  const pendingRow = (id: string) => page.locator(`table.queue.pending tr[data-approval="${id}"]`);
  const decidedRow = (id: string) => page.locator(`table.queue.decided tr[data-approval="${id}"]`);

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    postgres = await startPostgres();
    store = await openPostgresStore(postgres.url);
    other = await openPostgresStore(postgres.url);
    const gate = createPolicyGate(policy, { observe: other.audit.observe });
    fleet = new Registry({ ...gate.registryOptions, approvalQueue: other.approvalQueue(policy) }).register(
      deployTool(ran),
    );
    studio = await startStudio({
      label: 'deploys',
      policy,
      store,
      decider: 'studio-user',
      load: (options) => ({ registry: new Registry(options).register(deployTool([])) }),
    });
    ({ context, close: closeBrowser } = await launchBrowser());
    page = await context.newPage();
  }, 120_000);
  afterAll(async () => {
    await closeBrowser?.();
    await studio?.close();
    await store?.close();
    await other?.close();
    await postgres?.stop();
  });

  test('a queued call appears without a reload; Approve records the name given, and the retry runs once', async () => {
    await page.goto(`${studio.url}#approvals`);
    await page.locator('.queue-view .queue-empty').waitFor();
    expect(await page.locator('.queue-source code').textContent()).toBe(store.where);
    expect(await page.locator('.tabs .queue-tab').textContent()).toBe('Approvals (0)');

    const id = approvalIdOf(await fleet.call('deploy', { service: 'api', version: '1.4.2' }));
    await pendingRow(id).waitFor();
    expect(await page.locator('.tabs .queue-tab').textContent()).toBe('Approvals (1)');
    const cells = await pendingRow(id).locator('td').allTextContents();
    expect(cells[0]).toContain('deploy');
    expect(JSON.parse(cells[1]!)).toEqual({ service: 'api', version: '1.4.2' });
    expect(cells.slice(2, 5)).toEqual(['local', 'prod-deploys', 'production write']);
    await page.screenshot({ path: join(SHOTS, 'studio-queue.png') });

    await page.locator('.decider-name').fill('ops-lead');
    await pendingRow(id).locator('.deny-reason').fill('release day');
    await pendingRow(id).getByRole('button', { name: 'Approve' }).click();
    await decidedRow(id).waitFor();
    expect(await pendingRow(id).count()).toBe(0);
    expect(await decidedRow(id).getAttribute('data-status')).toBe('approved');
    expect(await decidedRow(id).locator('.decided-by').textContent()).toBe('ops-lead');
    expect(await store.approvals.get(id)).toMatchObject({
      status: 'approved',
      decidedBy: 'ops-lead',
      decisionReason: 'release day',
    });

    expect(await fleet.call('deploy', { service: 'api', version: '1.4.2' })).toEqual({
      ok: true,
      result: { deployed: 'api' },
    });
    expect(ran).toEqual(['api']);
    // The run is shown too, when the store is next read.
    await page.locator(`table.queue.decided tr[data-approval="${id}"][data-status="used"]`).waitFor();
    await page.screenshot({ path: join(SHOTS, 'studio-queue-decided.png') });
  });

  test('Deny with a reason refuses the retry; the name field left empty records the studio user', async () => {
    await page.goto('about:blank');
    await page.goto(`${studio.url}#approvals`);
    await page.locator('.queue-view').waitFor();
    await page.locator('.decider-name').fill('');
    const id = approvalIdOf(await fleet.call('deploy', { service: 'search', version: '2.0.0' }));
    await pendingRow(id).waitFor();
    await pendingRow(id).locator('.deny-reason').fill('not during the freeze');
    await pendingRow(id).getByRole('button', { name: 'Deny' }).click();
    await decidedRow(id).waitFor();
    expect(await decidedRow(id).getAttribute('data-status')).toBe('denied');
    expect(await decidedRow(id).locator('.decided-by').textContent()).toBe('studio-user');
    expect(await store.approvals.get(id)).toMatchObject({
      status: 'denied',
      decidedBy: 'studio-user',
      decisionReason: 'not during the freeze',
    });
    const retried = await fleet.call('deploy', { service: 'search', version: '2.0.0' });
    expect(retried).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
    expect(ran).not.toContain('search');
  });
});
