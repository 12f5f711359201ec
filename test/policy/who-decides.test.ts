// Queued approvals and who may decide them, on a real PostgreSQL (a private cluster started for the
// file): an authenticated caller's ask goes to the queue, the approval binds to its subject, and a
// rule's decidedBy refuses (and records) a decision by anyone it does not allow.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import { elicitationApprover } from '../../src/mcp/index.js';
import { createPolicyGate, definePolicy, type Policy } from '../../src/policy/index.js';
import { openPostgresStore, type PostgresStore, StoreError } from '../../src/store/index.js';
import { connectAs, type TestCaller } from '../support/mcp-caller.js';
import { hasPostgres, type PostgresServer, startPostgres } from '../support/postgres.js';
import { echoTool } from './support.js';

const alice = { subject: 'alice', groups: ['writers', 'leads'] } satisfies TestCaller;
const bob = { subject: 'bob', groups: ['writers'] } satisfies TestCaller;
const carol = { subject: 'carol', groups: ['leads'], issuer: 'https://id.test' } satisfies TestCaller;

const policy = definePolicy({
  rules: [
    {
      id: 'prod-deploys',
      action: 'ask',
      tool: 'deploy',
      reason: 'a production deploy',
      decidedBy: { group: 'leads', notCaller: true },
    },
  ],
});

interface Envelope {
  readonly ok: boolean;
  readonly error?: { readonly type: string; readonly approval?: string; readonly message: string };
}

function envelopeOf(result: unknown): Envelope {
  const content = (result as { content: { text: string }[] }).content;
  return JSON.parse(content[0]!.text) as Envelope;
}

function replica(store: PostgresStore, rules: Policy, ran: string[]) {
  const gate = createPolicyGate(rules, { observe: store.audit.observe });
  return new Registry({
    ...gate.registryOptions,
    approvalQueue: store.approvalQueue(rules),
    approver: elicitationApprover(),
  }).register(echoTool('deploy', 'write', ran));
}

describe.runIf(hasPostgres)('who may decide a queued approval', () => {
  let postgres: PostgresServer;
  let store: PostgresStore;
  beforeAll(async () => {
    postgres = await startPostgres();
    store = await openPostgresStore(await postgres.createDatabase('decide'));
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await postgres?.stop();
  });

  test("an authenticated caller's ask is queued even where it could elicit; only a lead other than the caller decides it", async () => {
    const ran: string[] = [];
    const elicited: string[] = [];
    const call = async (caller: TestCaller) => {
      const client = await connectAs(replica(store, policy, ran), 'agent', caller, {
        onElicit: (message) => {
          elicited.push(message);
          return { action: 'accept', content: { decision: 'once' } };
        },
      });
      const envelope = envelopeOf(await client.callTool({ name: 'deploy', arguments: { path: 'api' } }));
      await client.close();
      return envelope;
    };
    const asked = await call(alice);
    expect(asked.error).toMatchObject({ type: 'approval_pending' });
    expect(elicited).toEqual([]);
    const id = asked.error!.approval!;

    const refusedBy = async (decider: (TestCaller & object) | undefined) => {
      try {
        await store.approvals.approve(id, decider === undefined ? {} : { decider: fullPrincipal(decider) });
      } catch (error) {
        expect(error).toBeInstanceOf(StoreError);
        expect((error as StoreError).code).toBe('not_allowed');
        return (error as Error).message;
      }
      throw new Error('the decision was accepted');
    };
    expect(await refusedBy(bob)).toContain('only a member of "leads" may decide it, and "bob" is not one');
    expect(await refusedBy(alice)).toContain('someone other than the caller who asked');
    // The CLI on this machine is the local process: in no group.
    expect(await refusedBy(undefined)).toContain('the local process, which is in no group');
    const pending = await store.approvals.get(id);
    expect(pending).toMatchObject({ status: 'pending', deciders: { group: ['leads'], notCaller: true } });
    expect(pending?.refusals?.map((refusal) => [refusal.by, refusal.principal, refusal.action])).toEqual([
      ['bob', 'auth:bob@https://id.test', 'approve'],
      ['alice', 'auth:alice@https://id.test', 'approve'],
      [expect.any(String), 'local', 'approve'],
    ]);

    // Bob's same call does not use alice's approval: it is queued on its own.
    const decided = await store.approvals.approve(id, {
      decider: fullPrincipal(carol),
      reason: 'release day',
    });
    expect(decided).toMatchObject({
      status: 'approved',
      decidedBy: 'carol',
      deciderPrincipal: 'auth:carol@https://id.test',
    });
    const bobs = await call(bob);
    expect(bobs.error).toMatchObject({ type: 'approval_pending' });
    expect(bobs.error?.approval).not.toBe(id);
    expect(ran).toEqual([]);
    // Alice's retry runs, once.
    expect((await call(alice)).ok).toBe(true);
    expect(ran).toEqual(['deploy']);
    expect(elicited).toEqual([]);
  });

  test('a rule that says approver: caller lets the authenticated caller approve in band', async () => {
    const ran: string[] = [];
    const rules = definePolicy({
      rules: [{ id: 'own-deploys', action: 'ask', tool: 'deploy', approver: 'caller' }],
    });
    const client = await connectAs(replica(store, rules, ran), 'agent', bob, {
      onElicit: () => ({ action: 'accept', content: { decision: 'once' } }),
    });
    expect(envelopeOf(await client.callTool({ name: 'deploy', arguments: { path: 'web' } })).ok).toBe(true);
    await client.close();
    expect(ran).toEqual(['deploy']);
  });
});

function fullPrincipal(caller: TestCaller & object) {
  return { issuer: 'https://id.test', clientId: undefined, groups: [], roles: [], scopes: [], ...caller };
}
