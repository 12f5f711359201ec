import { describe, expect, test } from 'vitest';
import { createTool } from '../../src/index.js';
import {
  checkPolicy,
  createPolicyGate,
  definePolicy,
  evaluatePolicy,
  type PolicyRule,
  type PolicyTarget,
} from '../../src/policy/index.js';
import { uriSpellings } from '../../src/policy/uri-readings.js';

// A resource read, a prompt get and a sampling request are decided by the same policy as a call,
// each with its target; a rule's `uri` globs decide reads of the resources they name, on every
// spelling a server might read as the same resource.

function decide(
  rules: PolicyRule[],
  target: PolicyTarget,
  args: unknown,
  name = 'notes',
  source = 'mcp:files',
) {
  return evaluatePolicy(definePolicy({ rules }), {
    tool: name,
    target,
    category: 'read',
    source,
    arguments: args,
    meta: {},
    state: undefined,
  });
}

const read = (uri: string, rules: PolicyRule[]) => decide(rules, 'resource', { uri });

describe('targets', () => {
  test('a rule without a target decides tools, resources and prompts, never sampling', () => {
    const rules: PolicyRule[] = [{ id: 'no-files', action: 'deny', source: 'mcp:files' }];
    expect(decide(rules, 'tool', {})).toMatchObject({ action: 'deny', rule: 'no-files' });
    expect(read('file:///a', rules)).toMatchObject({ action: 'deny', rule: 'no-files' });
    expect(decide(rules, 'prompt', { topic: 'x' })).toMatchObject({ action: 'deny', rule: 'no-files' });
    expect(decide(rules, 'sampling', { server: 'files', messages: 1 }, 'sampling')).toMatchObject({
      action: 'ask',
      rule: 'default:sampling',
    });
  });

  test('a rule with a target decides only that target', () => {
    const rules: PolicyRule[] = [{ id: 'no-prompts', action: 'deny', target: 'prompt' }];
    expect(decide(rules, 'prompt', {})).toMatchObject({ action: 'deny', rule: 'no-prompts' });
    expect(decide(rules, 'tool', {}).rule).not.toBe('no-prompts');
    expect(read('file:///a', rules).rule).not.toBe('no-prompts');
    // A request with no target is a tool call.
    const call = evaluatePolicy(definePolicy({ rules }), {
      tool: 'notes',
      category: 'read',
      source: 'local',
      arguments: {},
      meta: {},
      state: undefined,
    });
    expect(call).toMatchObject({ action: 'allow', rule: 'default:read' });
  });

  test('sampling asks by default, and only a rule naming it allows it', () => {
    const sample = (rules: PolicyRule[]) =>
      decide(
        rules,
        'sampling',
        { server: 'everything', maxTokens: 100, messages: 1 },
        'sampling',
        'mcp:everything',
      );
    expect(sample([])).toMatchObject({ action: 'ask', rule: 'default:sampling' });
    // An allow of everything from the server does not reach sampling; a default of allow neither.
    expect(sample([{ id: 'all', action: 'allow', source: 'mcp:everything' }]).action).toBe('ask');
    expect(
      evaluatePolicy(definePolicy({ rules: [], defaults: { read: 'allow' }, importedDefault: 'allow' }), {
        tool: 'sampling',
        target: 'sampling',
        category: 'read',
        source: 'mcp:everything',
        arguments: {},
        meta: {},
        state: undefined,
      }).action,
    ).toBe('ask');
    expect(
      sample([{ id: 'sample', action: 'allow', target: 'sampling', source: 'mcp:everything' }]),
    ).toMatchObject({ action: 'allow', rule: 'sample' });
    expect(sample([{ id: 'never', action: 'deny', target: ['sampling', 'tool'] }])).toMatchObject({
      action: 'deny',
      rule: 'never',
    });
  });

  test('a resource or prompt without a rule gets the read default, and the imported one from elsewhere', () => {
    expect(decide([], 'resource', { uri: 'notes://a' }, 'notes', 'local')).toMatchObject({
      action: 'allow',
      rule: 'default:read',
    });
    expect(read('notes://a', [])).toMatchObject({ action: 'ask', rule: 'default:imported' });
  });
});

describe('uri rules', () => {
  const secret: PolicyRule[] = [
    { id: 'reads', action: 'allow', source: 'mcp:files' },
    { id: 'no-secret', action: 'deny', uri: 'file:///srv/secret/**' },
    { id: 'no-drafts', action: 'deny', uri: 'notes://drafts/*' },
  ];

  test('a deny on a URI glob refuses the reads it names and no other', () => {
    expect(read('file:///srv/secret/key.pem', secret)).toMatchObject({ action: 'deny', rule: 'no-secret' });
    expect(read('file:///srv/secret', secret)).toMatchObject({ action: 'deny', rule: 'no-secret' });
    expect(read('notes://drafts/plan', secret)).toMatchObject({ action: 'deny', rule: 'no-drafts' });
    expect(read('file:///srv/public/a.md', secret)).toMatchObject({ action: 'allow', rule: 'reads' });
    expect(read('notes://published/plan', secret)).toMatchObject({ action: 'allow', rule: 'reads' });
  });

  test.each([
    ['case', 'FILE:///SRV/SECRET/key.pem'],
    ['dot segments', 'file:///srv/public/../secret/key.pem'],
    ['encoded dot segments', 'file:///srv/public/%2e%2e/secret/key.pem'],
    ['an encoded slash', 'file:///srv/secret%2Fkey.pem'],
    ['double encoding', 'file:///srv/secret%252Fkey.pem'],
    ['repeated slashes', 'file:///srv//secret///key.pem'],
    ['a localhost host', 'file://localhost/srv/secret/key.pem'],
    ['a query', 'file:///srv/secret/key.pem?raw=1'],
    ['a fragment', 'file:///srv/secret/key.pem#top'],
    ['a look-alike slash', 'file:///srv/secret\u2215key.pem'],
    ['an invisible character', 'file:///srv/secret/key.pem\u200b'],
    ['a template spelled in capitals', 'NOTES://drafts/plan'],
    ['an encoded letter', 'notes://drafts/%70lan'],
  ])('the deny holds for a URI spelled with %s', (_how, uri) => {
    expect(read(uri, secret).action).toBe('deny');
  });

  test('an allow on a URI glob matches only a URI every spelling of which it names', () => {
    const rules: PolicyRule[] = [{ id: 'public', action: 'allow', uri: 'file:///srv/public/**' }];
    expect(read('file:///srv/public/a.md', rules)).toMatchObject({ action: 'allow', rule: 'public' });
    // `..` leaves the allowed folder: the allow does not hold, and the imported default asks.
    expect(read('file:///srv/public/%2e%2e/secret/key.pem', rules)).toMatchObject({
      action: 'ask',
      rule: 'default:imported',
    });
    expect(read('file:///srv/public/../secret/key.pem', rules).action).toBe('ask');
  });

  test('a URI rule decides resource reads only, even where a tool has a uri argument', () => {
    const rules: PolicyRule[] = [{ id: 'no-secret', action: 'deny', uri: 'file:///srv/secret/**' }];
    expect(decide(rules, 'tool', { uri: 'file:///srv/secret/a' }, 'fetch', 'local')).toMatchObject({
      action: 'allow',
      rule: 'default:read',
    });
    expect(decide(rules, 'prompt', { uri: 'file:///srv/secret/a' }).rule).not.toBe('no-secret');
  });

  test('a read carve-out inside a URI deny decides there, a broader allow never does', () => {
    const rules: PolicyRule[] = [
      { id: 'no-srv', action: 'deny', uri: 'file:///srv/**' },
      { id: 'all-reads', action: 'allow', source: 'mcp:files' },
      { id: 'public', action: 'allow', uri: 'file:///srv/public/readme.md', source: 'mcp:files' },
    ];
    expect(read('file:///srv/public/readme.md', rules)).toMatchObject({ action: 'allow', rule: 'public' });
    expect(read('file:///srv/public/other.md', rules)).toMatchObject({ action: 'deny', rule: 'no-srv' });
    const report = checkPolicy({ rules });
    expect(report.rules.find((rule) => rule.id === 'public')?.carvesOutOf).toEqual(['no-srv']);
    expect(report.rules.find((rule) => rule.id === 'all-reads')?.carvesOutOf).toEqual([]);
  });

  test('the spellings of a URI include the forms a server resolves', () => {
    const spellings = uriSpellings('file://localhost/srv/public/%2e%2e//secret/a?x#y');
    expect(spellings).toContain('file:///srv/secret/a');
    expect(spellings).toContain('file://localhost/srv/public/%2e%2e//secret/a?x#y');
  });
});

describe('rules that cannot work are refused when the policy loads', () => {
  test.each([
    [
      { id: 'r', action: 'deny', target: 'resources' },
      '"target" must be one or more of tool, resource, prompt, sampling, received "resources"',
    ],
    [{ id: 'r', action: 'deny', target: [] }, '"target" must be one or more of'],
    [{ id: 'r', action: 'deny', uri: 'secret/**' }, 'each starts with its scheme'],
    [{ id: 'r', action: 'deny', uri: '' }, '"uri" must be a glob'],
    [
      { id: 'r', action: 'deny', uri: 'file:///a/**', target: 'tool' },
      'add "resource" to "target" or drop "uri"',
    ],
  ])('%j', (rule, message) => {
    expect(() => definePolicy({ rules: [rule as PolicyRule] })).toThrow(message);
  });

  test('the same rules load from JSON', () => {
    const policy = definePolicy(
      JSON.parse(
        '{"rules":[{"id":"s","action":"allow","target":["sampling"],"source":"mcp:*"},{"id":"u","action":"deny","uri":["file:///x/**"]}]}',
      ),
    );
    expect(policy.rules.map((rule) => rule.id)).toEqual(['s', 'u']);
  });
});

test('the policy gate decides a gated resource read by its target', async () => {
  const gate = createPolicyGate(
    definePolicy({ rules: [{ id: 'no-secret', action: 'deny', uri: 'file:///srv/secret/**' }] }),
  );
  const stand = createTool(
    {
      name: 'files',
      description: 'Stands for a resource read in the gate.',
      category: 'read',
      parameters: { type: 'object' },
    },
    { execute: () => null },
  );
  const request = {
    tool: stand.contract,
    target: 'resource' as const,
    meta: { source: 'mcp:files' },
    arguments: { uri: 'file:///srv/secret/key.pem' },
    callId: undefined,
    state: undefined,
  };
  expect(await gate.decide(request)).toMatchObject({ action: 'deny', rule: 'no-secret' });
  // The same arguments on a tool call: the URI rule says nothing.
  expect((await gate.decide({ ...request, target: 'tool' })).rule).not.toBe('no-secret');
});
