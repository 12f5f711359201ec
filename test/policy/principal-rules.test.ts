import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { renderPolicyCheck } from '../../src/cli/commands/policy.js';
import { Registry } from '../../src/index.js';
import { elicitationApprover } from '../../src/mcp/index.js';
import { RequestStateSealer } from '../../src/mcp/request-state.js';
import {
  checkPolicy,
  createPolicyGate,
  definePolicy,
  type Policy,
  PolicyError,
  parsePolicy,
} from '../../src/policy/index.js';
import { withToolSearch } from '../../src/search/index.js';
import { connectAs, type ModernAnswer, modernCaller, type TestCaller } from '../support/mcp-caller.js';
import { echoTool } from './support.js';

interface Envelope {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: { readonly type: string; readonly rule?: string; readonly message: string };
}

function envelopeOf(result: unknown): Envelope {
  const content = (result as { content: { type: string; text: string }[] }).content;
  return JSON.parse(content[0]!.text) as Envelope;
}

const alice: TestCaller = { subject: 'alice', groups: ['writers'] };
const bob: TestCaller = { subject: 'bob', groups: ['readers'] };
const carol: TestCaller = { subject: 'carol', groups: ['leads'], clientId: 'ops-console' };

// Served over MCP with the gate; no approver, so an `ask` is refused saying approval was required.
async function served(policy: Policy, caller: TestCaller | undefined, calls: string[] = []) {
  const gate = createPolicyGate(definePolicy(policy));
  const registry = new Registry({ ...gate.registryOptions }).register(
    echoTool('read_notes', 'read', calls),
    echoTool('write_note', 'write', calls),
    echoTool('deploy', 'write', calls),
  );
  return connectAs(registry, 'agent', caller);
}

const writersWrite: Policy = {
  rules: [
    { id: 'everyone-asks', action: 'ask', category: 'write' },
    { id: 'writers-write', action: 'allow', category: 'write', principal: { group: 'writers' } },
  ],
};

describe('policy rules that test who is calling', () => {
  test('group writers run write tools without asking; everyone else asks', async () => {
    const calls: string[] = [];
    for (const [caller, expected] of [
      [alice, { ok: true }],
      [bob, { ok: false, rule: 'everyone-asks' }],
      [undefined, { ok: false, rule: 'everyone-asks' }],
    ] as const) {
      const client = await served(writersWrite, caller, calls);
      const answer = envelopeOf(await client.callTool({ name: 'write_note', arguments: { path: 'a.md' } }));
      expect(answer.ok).toBe(expected.ok);
      if (!expected.ok) {
        expect(answer.error).toMatchObject({ type: 'permission_denied', rule: expected.rule });
        expect(answer.error?.message).toMatch(/needs approval/);
      }
      await client.close();
    }
    expect(calls).toEqual(['write_note']);
  });

  test('an unauthenticated caller never passes for a group member; only `local: true` lets such a call match', async () => {
    const policy: Policy = {
      rules: [
        { id: 'leads-deploy', action: 'allow', tool: 'deploy', principal: { group: 'leads' } },
        { id: 'no-deploy', action: 'deny', tool: 'deploy' },
        { id: 'local-writes', action: 'allow', tool: 'write_note', principal: { local: true } },
      ],
    };
    const evaluate = (tool: string, category: 'write' | 'execute', caller: unknown) =>
      import('../../src/policy/index.js').then(({ evaluatePolicy }) =>
        evaluatePolicy(definePolicy(policy), {
          tool,
          category,
          source: 'local',
          arguments: {},
          meta: {},
          state: caller,
        }),
      );
    const branded = (principal: unknown) => ({ [Symbol.for('toolpact.mcp.context')]: true, principal });
    // A state that merely claims a group, without the context brand a transport sets, is nobody.
    expect(
      (await evaluate('deploy', 'execute', { principal: { subject: 'x', groups: ['leads'] } })).rule,
    ).toBe('no-deploy');
    expect((await evaluate('deploy', 'execute', branded(undefined))).rule).toBe('no-deploy');
    expect((await evaluate('deploy', 'execute', branded({ subject: 'c', groups: ['leads'] }))).rule).toBe(
      'leads-deploy',
    );
    // An allow compares exactly: "Leads" is not "leads".
    expect((await evaluate('deploy', 'execute', branded({ subject: 'c', groups: ['Leads'] }))).rule).toBe(
      'no-deploy',
    );
    expect((await evaluate('write_note', 'write', branded(undefined))).action).toBe('allow');
    // `{ local: true }` alone holds for unauthenticated calls only.
    expect((await evaluate('write_note', 'write', branded({ subject: 'c' }))).rule).toBe('default:write');
  });

  test('a deny on a principal reads its globs broadly; client and issuer never match a caller without one', () => {
    const policy = definePolicy({
      rules: [
        { id: 'no-interns', action: 'deny', principal: { group: 'interns' } },
        { id: 'console-only', action: 'allow', principal: { client: 'ops-*' } },
        { id: 'our-issuer', action: 'allow', tool: 'read_notes', principal: { issuer: 'https://id.test' } },
      ],
    });
    const check = (tool: string, principal: unknown) =>
      import('../../src/policy/index.js').then(
        ({ evaluatePolicy }) =>
          evaluatePolicy(policy, {
            tool,
            category: 'write',
            source: 'local',
            arguments: {},
            meta: {},
            state: { [Symbol.for('toolpact.mcp.context')]: true, principal },
          }).rule,
      );
    return Promise.all([
      expect(check('write_note', { subject: 'i', groups: ['INTERNS'] })).resolves.toBe('no-interns'),
      expect(check('write_note', { subject: 'c', clientId: 'ops-console' })).resolves.toBe('console-only'),
      expect(check('write_note', { subject: 'c' })).resolves.toBe('default:write'),
      expect(check('read_notes', { subject: 'c' })).resolves.not.toBe('our-issuer'),
      expect(check('read_notes', { subject: 'c', issuer: 'https://id.test' })).resolves.toBe('our-issuer'),
    ]);
  });

  test('a policy file with a wrong principal test is refused with what was wrong and what to write', () => {
    const refused = (principal: unknown) => {
      try {
        parsePolicy({ rules: [{ id: 'r', action: 'allow', principal }] }, 'policy.json');
      } catch (error) {
        expect(error).toBeInstanceOf(PolicyError);
        return (error as Error).message;
      }
      throw new Error('the policy was accepted');
    };
    expect(refused({ groups: 'writers' })).toBe(
      'policy.json: rule #0 ("r"): "principal" has an unknown key "groups". Did you mean "group"? It has: subject, group, role, client, issuer, scope, local.',
    );
    expect(refused({ group: 3 })).toMatch(
      /"principal": "group" must be a glob or a non-empty array of globs .*received 3/,
    );
    expect(refused({ local: 'yes' })).toMatch(/"local" must be true .*received "yes"/);
    expect(refused('writers')).toMatch(
      /"principal" must be an object such as \{ "group": "writers" \}, received "writers"/,
    );
    expect(() =>
      parsePolicy({ rules: [{ id: 'r', action: 'allow', decidedBy: { group: 'leads' } }] }, 'policy.json'),
    ).toThrow(/"decidedBy" applies only to a rule whose action is "ask"/);
    expect(() =>
      parsePolicy({ rules: [{ id: 'r', action: 'ask', decidedBy: { notCaller: 1 } }] }, 'policy.json'),
    ).toThrow(/"notCaller" must be true or false, received number 1/);
  });

  test('policy check shows who each rule holds for, and a group carve-out of a deny decides', () => {
    const report = checkPolicy(
      {
        rules: [
          { id: 'no-writes', action: 'deny', category: 'write' },
          { id: 'writers', action: 'allow', category: 'write', principal: { group: ['writers', 'leads'] } },
          { id: 'local-reads', action: 'allow', category: 'read', principal: { local: true } },
        ],
      },
      'policy.json',
    );
    expect(report.rules.find((rule) => rule.id === 'writers')).toMatchObject({
      carvesOutOf: ['no-writes'],
      principal: 'group writers|leads',
    });
    const text = renderPolicyCheck(report, 'policy.json');
    expect(text).toMatch(/writers\s+allow\s+group writers\|leads\s+carve-out of "no-writes"/);
    expect(text).toMatch(/no-writes\s+deny\s+every caller/);
    expect(text).toMatch(/local-reads\s+allow\s+local only/);
  });
});

describe('tools/list per caller', () => {
  const policy: Policy = {
    rules: [
      { id: 'leads-deploy', action: 'allow', tool: 'deploy', principal: { group: 'leads' } },
      { id: 'no-deploy', action: 'deny', tool: 'deploy' },
      { id: 'readers-read-only', action: 'deny', category: 'write', principal: { group: 'readers' } },
      ...writersWrite.rules,
    ],
  };
  const names = async (caller: TestCaller | undefined) => {
    const client = await served(policy, caller);
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    await client.close();
    return listed;
  };

  test('two principals in two groups are listed different tools; what every path denies is left out', async () => {
    expect(await names(alice)).toEqual(['read_notes', 'write_note']);
    expect(await names(bob)).toEqual(['read_notes']);
    expect(await names(carol)).toEqual(['read_notes', 'write_note', 'deploy']);
    expect(await names(undefined)).toEqual(['read_notes', 'write_note']);
  });

  test('a hidden tool called directly is answered as an unknown tool, naming only what the caller sees', async () => {
    const calls: string[] = [];
    const client = await served(policy, bob, calls);
    const refused = await client.callTool({ name: 'write_note', arguments: {} }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/write_note/);
    expect(refused).toMatch(/-32602/);
    expect(refused?.replace(/write_note/g, 'X')).toBe(unknown?.replace(/no_such_tool/g, 'X'));
    expect(refused).not.toMatch(/permission|denied|readers/i);
    expect(calls).toEqual([]);
    await client.close();
  });

  test('tool search finds only what the caller may call, and call_tool refuses a hidden tool as unknown', async () => {
    const gate = createPolicyGate(definePolicy(policy));
    const registry = new Registry({ ...gate.registryOptions }).register(
      echoTool('read_notes', 'read'),
      echoTool('write_note', 'write'),
      echoTool('deploy', 'write'),
    );
    const search = withToolSearch(registry, { stateless: true });
    const found = async (caller: TestCaller) => {
      const client = await connectAs(search.registry, 'agent', caller, { listing: search.stateless });
      const result = envelopeOf(
        await client.callTool({
          name: 'search_tools',
          arguments: { query: 'echo the arguments back', k: 5 },
        }),
      ).result as { tools: { name: string }[] };
      const routed = envelopeOf(
        await client.callTool({ name: 'call_tool', arguments: { name: 'deploy', arguments: {} } }),
      );
      await client.close();
      return { names: result.tools.map((tool) => tool.name).sort(), routed };
    };
    const forBob = await found(bob);
    expect(forBob.names).toEqual(['read_notes']);
    expect(forBob.routed.error).toMatchObject({ type: 'unknown_tool' });
    const forCarol = await found(carol);
    expect(forCarol.names).toEqual(['deploy', 'read_notes', 'write_note']);
    expect(forCarol.routed.ok).toBe(true);
  });

  test('without principal tests the listing is every tool, the same for every caller', async () => {
    const client = await served({ rules: [{ id: 'no-deploy', action: 'deny', tool: 'deploy' }] }, bob);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'read_notes',
      'write_note',
      'deploy',
    ]);
    await client.close();
  });
});

describe('tools/list per caller on revision 2026-07-28', () => {
  test('the listing differs per caller, so its cache scope is private; without principal tests it is public', async () => {
    const policy: Policy = {
      rules: [
        { id: 'leads-deploy', action: 'allow', tool: 'deploy', principal: { group: 'leads' } },
        { id: 'no-deploy', action: 'deny', tool: 'deploy' },
      ],
    };
    const build = (rules: Policy) =>
      new Registry({ ...createPolicyGate(definePolicy(rules)).registryOptions }).register(
        echoTool('read_notes', 'read'),
        echoTool('deploy', 'write'),
      );
    const post = modernCaller(build(policy));
    const names = (answer: ModernAnswer) =>
      ((answer.result?.tools ?? []) as { name: string }[]).map((tool) => tool.name);
    const forCarol = await post(carol, 'tools/list');
    const forBob = await post(bob, 'tools/list');
    expect(forCarol.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    expect(names(forCarol)).toEqual(['read_notes', 'deploy']);
    expect(names(forBob)).toEqual(['read_notes']);
    expect(forBob.result).toMatchObject({ cacheScope: 'private' });
    const hidden = await post(bob, 'tools/call', { name: 'deploy', arguments: {} });
    expect(hidden.error).toMatchObject({ code: -32602 });
    expect(hidden.error?.message).not.toMatch(/denied|leads/);
    const everyone = await modernCaller(
      build({ rules: [{ id: 'no-deploy', action: 'deny', tool: 'deploy' }] }),
    )(bob, 'tools/list');
    expect(everyone.result).toMatchObject({ cacheScope: 'public' });
    expect(names(everyone)).toEqual(['read_notes', 'deploy']);
  });
});

describe('who may approve in band', () => {
  const policy = (approver?: 'caller') =>
    definePolicy({
      rules: [
        {
          id: 'writes-ask',
          action: 'ask',
          category: 'write',
          reason: 'it changes notes',
          ...(approver ? { approver } : {}),
        },
      ],
    });
  const registryFor = (rules: Policy, calls: string[]) =>
    new Registry({ ...createPolicyGate(rules).registryOptions, approver: elicitationApprover() }).register(
      echoTool('write_note', 'write', calls),
    );

  test("an authenticated caller's own elicited yes does not count unless the rule says approver: caller", async () => {
    const calls: string[] = [];
    const asked: string[] = [];
    const yes = (message: string): ElicitResult => {
      asked.push(message);
      return { action: 'accept', content: { decision: 'once' } };
    };
    const alone = await connectAs(registryFor(policy(), calls), 'agent', alice, { onElicit: yes });
    const refused = envelopeOf(await alone.callTool({ name: 'write_note', arguments: { path: 'a.md' } }));
    await alone.close();
    expect(refused.error).toMatchObject({ type: 'permission_denied', rule: 'writes-ask' });
    expect(refused.error?.message).toContain(
      'an authenticated caller cannot approve its own call under rule "writes-ask"',
    );
    expect(refused.error?.message).toContain('"approver": "caller"');
    expect(asked).toEqual([]);

    // The local process (nothing authenticated) approves in band, as before.
    const local = await connectAs(registryFor(policy(), calls), 'agent', undefined, { onElicit: yes });
    expect(envelopeOf(await local.callTool({ name: 'write_note', arguments: { path: 'b.md' } })).ok).toBe(
      true,
    );
    await local.close();

    // Under approver: "caller", the authenticated caller's yes counts.
    const allowed = await connectAs(registryFor(policy('caller'), calls), 'agent', alice, { onElicit: yes });
    expect(envelopeOf(await allowed.callTool({ name: 'write_note', arguments: { path: 'c.md' } })).ok).toBe(
      true,
    );
    await allowed.close();
    expect(asked).toHaveLength(2);
    expect(calls).toEqual(['write_note', 'write_note']);
  });

  test('revision 2026-07-28: a request state is bound to its subject; another caller cannot resume it', async () => {
    const calls: string[] = [];
    const post = modernCaller(registryFor(policy('caller'), calls), {
      requestState: new RequestStateSealer({ key: 'c'.repeat(64) }),
    });
    const call = { name: 'write_note', arguments: { path: 'a.md' } };
    const first = await post(alice, 'tools/call', call);
    expect(first.result).toMatchObject({ resultType: 'input_required' });
    const retry = {
      ...call,
      requestState: first.result?.requestState,
      inputResponses: { approval: { action: 'accept', content: { decision: 'once' } } },
    };
    const byBob = await post(bob, 'tools/call', retry);
    const byNobody = await post(undefined, 'tools/call', retry);
    const refusedText = (answer: ModernAnswer) =>
      JSON.parse(((answer.result?.content ?? []) as { text: string }[])[0]!.text) as Envelope;
    expect(refusedText(byBob).error).toMatchObject({ type: 'permission_denied' });
    expect(refusedText(byNobody).error).toMatchObject({ type: 'permission_denied' });
    expect(calls).toEqual([]);
    const byAlice = await post(alice, 'tools/call', retry);
    expect(refusedText(byAlice).ok).toBe(true);
    expect(calls).toEqual(['write_note']);
    // Without approver: "caller", alice is not even asked: the refusal says what to configure.
    const strict = modernCaller(registryFor(policy(), calls), {
      requestState: new RequestStateSealer({ key: 'c'.repeat(64) }),
    });
    const notAsked = await strict(alice, 'tools/call', call);
    expect(refusedText(notAsked).error?.message).toContain('cannot approve its own call');
  });
});
