// `toolpact policy check` and `checkPolicy` / `compareReach` / `isCarveOut`: each rule's reach under
// the gate's precedence. Rules that can never decide, carve-outs with what they carve out of, every
// rule refused at load (not only the first), exit codes and the JSON shape; then a table of carve-out
// cases, each with the input that would get around it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execute } from '../../src/cli/main.js';
import {
  checkPolicy,
  compareReach,
  definePolicy,
  evaluatePolicy,
  isCarveOut,
  type PolicyRule,
  type PolicySubject,
} from '../../src/policy/index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-policy-check-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await execute(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd: dir,
    env: {},
    interactive: false,
  });
  return { code, stdout, stderr };
}

let files = 0;
function policyFile(value: unknown): string {
  files++;
  const name = `policy-${files}.json`;
  writeFileSync(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value));
  return name;
}

const reachOf = (report: ReturnType<typeof checkPolicy>, id: string) =>
  report.rules.find((rule) => rule.id === id);

describe('checkPolicy: rules that can never decide', () => {
  test('an ask with the same criteria as a deny never decides, whichever is listed first', () => {
    for (const rules of [
      [
        { id: 'no-writes', action: 'deny', category: 'write' },
        { id: 'ask-writes', action: 'ask', category: 'write' },
      ],
      [
        { id: 'ask-writes', action: 'ask', category: 'write' },
        { id: 'no-writes', action: 'deny', category: 'write' },
      ],
    ]) {
      const report = checkPolicy({ rules }, 'policy.json');
      expect(report.refused).toEqual([]);
      expect(reachOf(report, 'ask-writes')).toMatchObject({
        action: 'ask',
        neverDecides: { by: 'no-writes' },
        carvesOutOf: [],
      });
      expect(reachOf(report, 'ask-writes')?.neverDecides?.why).toContain('the deny "no-writes"');
      expect(reachOf(report, 'no-writes')?.neverDecides).toBeUndefined();
    }
  });

  test('an allow broader than a deny is not reported: it decides outside the deny', () => {
    const report = checkPolicy({
      rules: [
        { id: 'no-docs-writes', action: 'deny', category: 'write', arguments: { path: { under: 'docs' } } },
        { id: 'writes', action: 'allow', category: 'write' },
      ],
    });
    expect(report.rules.every((rule) => rule.neverDecides === undefined)).toBe(true);
  });

  test('an allow shadowed by a broader allow that outranks it never decides, with the reason', () => {
    const report = checkPolicy({
      rules: [
        { id: 'mcp-reads', action: 'allow', source: 'mcp:*', category: ['read', 'search'] },
        { id: 'fs-reads', action: 'allow', source: 'mcp:fs', category: 'read' },
      ],
    });
    expect(reachOf(report, 'fs-reads')?.neverDecides).toEqual({
      by: 'mcp-reads',
      why: 'every call it matches, "mcp-reads" matches too and takes precedence (broader criteria, listed earlier)',
    });
    expect(reachOf(report, 'mcp-reads')?.neverDecides).toBeUndefined();
    // Listed the other way round, the narrower rule comes first and decides where it matches.
    const reversed = checkPolicy({ rules: [...(report.policy?.rules ?? [])].reverse() });
    expect(reversed.rules.every((rule) => rule.neverDecides === undefined)).toBe(true);
  });

  test('an allow shadowed by a broader ask of equal specificity: ask before allow', () => {
    const report = checkPolicy({
      rules: [
        { id: 'fs-read-file', action: 'allow', tool: 'read_file', source: 'mcp:fs' },
        { id: 'ask-read-file', action: 'ask', tool: 'read_file', source: 'mcp:*' },
      ],
    });
    expect(reachOf(report, 'fs-read-file')?.neverDecides).toMatchObject({ by: 'ask-read-file' });
    expect(reachOf(report, 'fs-read-file')?.neverDecides?.why).toContain('ask before allow');
  });

  test('a narrower allow that outranks the broader one (an exact name inside a glob) decides', () => {
    const report = checkPolicy({
      rules: [
        { id: 'reads', action: 'allow', tool: 'read_*' },
        { id: 'read-file', action: 'allow', tool: 'read_file' },
      ],
    });
    expect(report.rules.every((rule) => rule.neverDecides === undefined)).toBe(true);
  });

  test('a deny repeated never decides; the first one listed does', () => {
    const report = checkPolicy({
      rules: [
        { id: 'no-rm', action: 'deny', tool: 'remove' },
        { id: 'no-rm-again', action: 'deny', tool: 'remove' },
      ],
    });
    expect(reachOf(report, 'no-rm')?.neverDecides).toBeUndefined();
    expect(reachOf(report, 'no-rm-again')?.neverDecides).toEqual({
      by: 'no-rm',
      why: 'every call it matches, "no-rm" matches too and takes precedence (the same criteria, listed earlier)',
    });
  });

  test('a rule with a `when` is never reported because of it: the predicate is opaque', () => {
    const when = (subject: PolicySubject) => subject.tool.length > 3;
    const report = checkPolicy(
      definePolicy({
        rules: [
          { id: 'no-writes', action: 'deny', category: 'write', when },
          { id: 'ask-writes', action: 'ask', category: 'write' },
        ],
      }),
    );
    expect(reachOf(report, 'ask-writes')?.neverDecides).toBeUndefined();
  });
});

describe('checkPolicy: carve-outs', () => {
  test('the documented carve-out lists the deny it carves out of', () => {
    const report = checkPolicy({
      rules: [
        { id: 'no-writes', action: 'deny', category: 'write' },
        { id: 'docs', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } },
      ],
    });
    expect(report.rules).toEqual([
      { id: 'no-writes', action: 'deny', carvesOutOf: [] },
      { id: 'docs', action: 'allow', carvesOutOf: ['no-writes'] },
    ]);
  });

  test('a carve-out of several denies names each', () => {
    const report = checkPolicy({
      rules: [
        { id: 'no-writes', action: 'deny', category: 'write' },
        { id: 'no-write-file', action: 'deny', tool: 'write_*' },
        { id: 'docs', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } },
      ],
    });
    expect(reachOf(report, 'docs')).toEqual({
      id: 'docs',
      action: 'allow',
      carvesOutOf: ['no-writes', 'no-write-file'],
    });
  });

  test('a broad allow of mcp reads beside a deny of ~/.ssh paths: no carve-out, both decide', () => {
    const report = checkPolicy({
      rules: [
        { id: 'mcp-reads', action: 'allow', source: 'mcp:*', category: ['read', 'search'] },
        { id: 'no-ssh', action: 'deny', arguments: { path: { under: '.ssh' } } },
      ],
    });
    expect(report).toMatchObject({
      refused: [],
      rules: [
        { id: 'mcp-reads', action: 'allow', carvesOutOf: [] },
        { id: 'no-ssh', action: 'deny', carvesOutOf: [] },
      ],
    });
    expect(report.rules.every((rule) => rule.neverDecides === undefined)).toBe(true);
  });
});

describe('checkPolicy: rules refused at load', () => {
  const rules = [
    { id: 'fine', action: 'deny', tool: 'remove' },
    { id: 'bad-action', action: 'permit', tool: 'x' },
    { id: 'dotdot', action: 'deny', arguments: { path: { glob: 'docs/../secret' } } },
    { id: 'slashes', action: 'deny', arguments: { path: { glob: 'docs//secret' } } },
    { id: 'unknown-key', action: 'deny', tool: 'x', colour: 'red' },
    { id: 'fine', action: 'allow', tool: 'y' },
    { action: 'deny', tool: 'z' },
  ];

  test('every refused rule is reported with its index and reason; the others still load', () => {
    const report = checkPolicy({ rules }, 'policy.json');
    expect(report.rules).toEqual([{ id: 'fine', action: 'deny', carvesOutOf: [] }]);
    expect(report.policy?.rules.map((rule) => rule.id)).toEqual(['fine']);
    expect(report.refused.map((refused) => refused.rule)).toEqual([
      'bad-action',
      'dotdot',
      'slashes',
      'unknown-key',
      'fine',
      '#6',
    ]);
    const [action, dotdot, slashes, unknown, duplicate, noId] = report.refused.map(
      (refused) => refused.message,
    );
    expect(action).toContain('policy.json: rule #1 ("bad-action")');
    expect(action).toContain('received "permit"');
    expect(dotdot).toContain('rule #2 ("dotdot")');
    expect(dotdot).toContain('"docs/../secret"');
    expect(dotdot).toContain('".."');
    expect(slashes).toContain('rule #3 ("slashes")');
    expect(slashes).toContain('"docs//secret"');
    expect(slashes).toContain('("//")');
    expect(unknown).toContain('rule #4 ("unknown-key")');
    expect(unknown).toContain('unknown key "colour"');
    expect(duplicate).toContain('rule #5 has the id "fine", which an earlier rule already uses');
    expect(noId).toContain('rule #6 needs an "id"');
  });

  test('a policy that is not an object of rules is refused as a whole', () => {
    for (const value of [[], 'rules', null, { rules: 'none' }]) {
      const report = checkPolicy(value, 'policy.json');
      expect(report.policy).toBeUndefined();
      expect(report.rules).toEqual([]);
      expect(report.refused).toHaveLength(1);
      expect(report.refused[0]?.message).toContain('policy.json');
    }
  });
});

describe('toolpact policy check', () => {
  test('a clean policy exits 0 and lists each rule with its reach', async () => {
    const file = policyFile({
      rules: [
        { id: 'no-writes', action: 'deny', category: 'write' },
        { id: 'docs', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } },
        { id: 'mcp-reads', action: 'allow', source: 'mcp:*', category: ['read', 'search'] },
      ],
    });
    const result = await run(['policy', 'check', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${file}: 3 rules loaded, 0 that can never decide, 0 refused`);
    expect(result.stdout).toMatch(/docs\s+allow\s+carve-out of "no-writes"/);
    expect(result.stdout).toMatch(/mcp-reads\s+allow\s+decides where it matches/);
    expect(result.stdout).not.toContain('Refused at load');
  });

  test('a rule that can never decide exits 1 and says why', async () => {
    const file = policyFile({
      rules: [
        { id: 'no-writes', action: 'deny', category: 'write' },
        { id: 'ask-writes', action: 'ask', category: 'write' },
      ],
    });
    const result = await run(['policy', 'check', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('2 rules loaded, 1 that can never decide, 0 refused');
    expect(result.stdout).toMatch(
      /ask-writes\s+ask\s+never decides: every call it matches, the deny "no-writes"/,
    );
  });

  test('refused rules exit 1, each listed', async () => {
    const file = policyFile({
      rules: [
        { id: 'ok', action: 'deny', tool: 'remove' },
        { id: 'bad-action', action: 'permit' },
        { id: 'dotdot', action: 'deny', arguments: { path: { glob: 'a/../b' } } },
      ],
    });
    const result = await run(['policy', 'check', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('1 rule loaded, 0 that can never decide, 2 refused');
    expect(result.stdout).toContain('Refused at load:');
    expect(result.stdout).toContain(`bad-action: ${file}: rule #1 ("bad-action")`);
    expect(result.stdout).toContain(`dotdot: ${file}: rule #2 ("dotdot")`);
  });

  test('--format json gives the report as data, without the compiled policy', async () => {
    const file = policyFile({
      rules: [
        { id: 'no-writes', action: 'deny', category: 'write' },
        { id: 'docs', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } },
        { id: 'ask-writes', action: 'ask', category: 'write' },
        { id: 'bad', action: 'deny', arguments: { path: { glob: 'docs//x' } } },
      ],
    });
    const result = await run(['policy', 'check', file, '--format', 'json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(Object.keys(report).sort()).toEqual(['refused', 'rules']);
    expect(report.rules).toEqual([
      { id: 'no-writes', action: 'deny', carvesOutOf: [] },
      { id: 'docs', action: 'allow', carvesOutOf: ['no-writes'] },
      {
        id: 'ask-writes',
        action: 'ask',
        neverDecides: { by: 'no-writes', why: expect.stringContaining('the deny "no-writes"') },
        carvesOutOf: [],
      },
    ]);
    expect(report.refused).toEqual([
      { rule: 'bad', message: expect.stringContaining(`${file}: rule #3 ("bad")`) },
    ]);
    const clean = await run(['policy', 'check', policyFile({ rules: [] }), '--format', 'json']);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toEqual({ rules: [], refused: [] });
  });

  test('a missing file, bad JSON and usage errors exit 2 with what was wrong on stderr', async () => {
    const missing = await run(['policy', 'check', 'nowhere.json']);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toContain(`${join(dir, 'nowhere.json')} does not exist`);

    const broken = await run(['policy', 'check', policyFile('{ "rules": [ ')]);
    expect(broken).toMatchObject({ code: 2, stdout: '' });
    expect(broken.stderr).toContain('is not valid JSON');

    const folder = await run(['policy', 'check', '.']);
    expect(folder).toMatchObject({ code: 2, stdout: '' });
    expect(folder.stderr).toContain('cannot be read (EISDIR)');

    const usages: [string[], string][] = [
      [['policy'], 'Give a subcommand: check.'],
      [['policy', 'lint', 'x.json'], 'Unknown subcommand "lint"'],
      [['policy', 'check'], 'Give the policy file to check.'],
      [['policy', 'check', 'a.json', 'b.json'], 'Unexpected argument "b.json"'],
      [['policy', 'check', 'a.json', '--format', 'yaml'], '--format must be table or json, received "yaml"'],
    ];
    for (const [argv, words] of usages) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toContain(words);
      expect(result.stderr).toContain('Usage: toolpact policy check <policy.json>');
      expect(result.stdout).toBe('');
    }
  });
});

describe('isCarveOut and compareReach', () => {
  const when = (subject: PolicySubject) => subject.tool !== 'x';
  const otherWhen = (subject: PolicySubject) => subject.tool !== 'y';
  const allow = (fields: Omit<PolicyRule, 'id' | 'action'>): PolicyRule => ({
    id: 'a',
    action: 'allow',
    ...fields,
  });
  const deny = (fields: Omit<PolicyRule, 'id' | 'action'>): PolicyRule => ({
    id: 'd',
    action: 'deny',
    ...fields,
  });

  const cases: [string, PolicyRule, PolicyRule, boolean][] = [
    // tool
    [
      'an exact tool the deny names exactly',
      allow({ tool: 'write_file', category: 'write' }),
      deny({ tool: ['write_file', 'remove'] }),
      true,
    ],
    ['an exact tool the deny glob matches', allow({ tool: 'write_file' }), deny({ tool: 'write_*' }), true],
    [
      'a glob inside the deny glob (narrowness cannot be shown)',
      allow({ tool: 'write_f*' }),
      deny({ tool: 'write_*' }),
      false,
    ],
    [
      'an exact tool the deny glob does not match',
      allow({ tool: 'read_file' }),
      deny({ tool: 'write_*' }),
      false,
    ],
    ['no tool at all under a tool deny', allow({ category: 'write' }), deny({ tool: 'write_file' }), false],
    [
      'a bare * tool is no tool',
      allow({ tool: '*', category: 'write' }),
      deny({ tool: 'write_file' }),
      false,
    ],
    // category
    ['a category subset', allow({ category: 'write' }), deny({ category: ['write', 'execute'] }), true],
    [
      'a category outside the deny',
      allow({ category: ['write', 'read'] }),
      deny({ category: 'write' }),
      false,
    ],
    [
      'the same category only (the same rule over again)',
      allow({ category: 'write' }),
      deny({ category: 'write' }),
      false,
    ],
    [
      'exact tool names under a category deny',
      allow({ tool: 'write_file' }),
      deny({ category: 'write' }),
      true,
    ],
    ['a tool glob under a category deny', allow({ tool: 'write_*' }), deny({ category: 'write' }), false],
    // source
    [
      'mcp:fs inside mcp:*',
      allow({ source: 'mcp:fs', category: 'read' }),
      deny({ source: 'mcp:*', category: 'read' }),
      true,
    ],
    [
      'mcp:* over mcp:fs',
      allow({ source: 'mcp:*', category: 'read' }),
      deny({ source: 'mcp:fs', category: 'read' }),
      false,
    ],
    ['a source outside the deny', allow({ source: 'mcp:github' }), deny({ source: 'mcp:fs' }), false],
    ['no source under a source deny', allow({ category: 'read' }), deny({ source: 'mcp:*' }), false],
    // arguments
    [
      'under a folder inside the deny folder',
      allow({ arguments: { path: { under: '.ssh/public' } } }),
      deny({ arguments: { path: { under: '.ssh' } } }),
      true,
    ],
    [
      'under the deny folder plus a tool',
      allow({ tool: 'read_file', arguments: { path: { under: '.ssh' } } }),
      deny({ arguments: { path: { under: '.ssh' } } }),
      true,
    ],
    [
      'under a folder that only starts with the deny folder name',
      allow({ arguments: { path: { under: '.sshx' } } }),
      deny({ arguments: { path: { under: '.ssh' } } }),
      false,
    ],
    [
      'under a parent of the deny folder',
      allow({ arguments: { path: { under: 'home' } } }),
      deny({ arguments: { path: { under: 'home/.ssh' } } }),
      false,
    ],
    [
      'under ~/.ssh against a relative .ssh (written differently)',
      allow({ arguments: { path: { under: '~/.ssh' } } }),
      deny({ arguments: { path: { under: '.ssh' } } }),
      false,
    ],
    [
      'a glob under the deny folder',
      allow({ arguments: { path: { glob: 'docs/**/*.md' } } }),
      deny({ arguments: { path: { under: 'docs' } } }),
      true,
    ],
    [
      'a glob that starts with a wildcard under a folder deny',
      allow({ arguments: { path: { glob: '*/docs/*.md' } } }),
      deny({ arguments: { path: { under: 'docs' } } }),
      false,
    ],
    [
      'a folder under a deny on folder/**',
      allow({ arguments: { path: { under: 'docs/drafts' } } }),
      deny({ arguments: { path: { glob: 'docs/**' } } }),
      true,
    ],
    [
      'a folder against a deny on *.md',
      allow({ arguments: { path: { under: 'docs' } } }),
      deny({ arguments: { path: { glob: '*.md' } } }),
      false,
    ],
    [
      'an argument the deny does not test',
      allow({ arguments: { mode: { equals: 'dry-run' } } }),
      deny({ arguments: { path: { under: '.ssh' } } }),
      false,
    ],
    [
      'equals inside oneOf',
      allow({ arguments: { mode: { equals: 'dry-run' } } }),
      deny({ arguments: { mode: { oneOf: ['dry-run', 'plan'] } } }),
      true,
    ],
    [
      'equals outside oneOf',
      allow({ arguments: { mode: { equals: 'apply' } } }),
      deny({ arguments: { mode: { oneOf: ['dry-run', 'plan'] } } }),
      false,
    ],
    [
      'a oneOf subset',
      allow({ arguments: { mode: { oneOf: ['plan'] } } }),
      deny({ arguments: { mode: { oneOf: ['dry-run', 'plan'] } } }),
      true,
    ],
    [
      'a oneOf superset',
      allow({ arguments: { mode: { oneOf: ['plan', 'apply'] } } }),
      deny({ arguments: { mode: { oneOf: ['plan'] } } }),
      false,
    ],
    [
      'the same equals plus a tool',
      allow({ tool: 'deploy', arguments: { env: { equals: 'staging' } } }),
      deny({ arguments: { env: { equals: 'staging' } } }),
      true,
    ],
    // when
    ['the same when plus a tool', allow({ tool: 'deploy', when }), deny({ when }), true],
    ['another when', allow({ tool: 'deploy', when: otherWhen }), deny({ when }), false],
    ['no when under a when deny', allow({ tool: 'deploy' }), deny({ when }), false],
    // identical
    [
      'the identical rule over again',
      allow({ tool: 'write_file', source: 'mcp:fs' }),
      deny({ tool: 'write_file', source: 'mcp:fs' }),
      false,
    ],
    [
      'an ask, same as an allow',
      { ...allow({ tool: 'write_file' }), action: 'ask' },
      deny({ category: 'write' }),
      true,
    ],
    [
      'a deny is never a carve-out',
      { ...allow({ tool: 'write_file' }), action: 'deny' },
      deny({ category: 'write' }),
      false,
    ],
    [
      'nothing is a carve-out of an allow',
      allow({ tool: 'write_file' }),
      allow({ category: 'write' }),
      false,
    ],
  ];

  test.each(cases)('%s', (_, rule, denyRule, expected) => {
    expect(isCarveOut(rule, denyRule)).toBe(expected);
  });

  test('compareReach: narrower, same and wider', () => {
    expect(compareReach(allow({ tool: 'write_file' }), deny({ category: 'write' }))).toBe('narrower');
    expect(compareReach(allow({ category: 'write' }), deny({ category: 'write' }))).toBe('same');
    expect(compareReach(allow({ category: 'write' }), deny({ tool: 'write_file' }))).toBe('wider');
    expect(compareReach(allow({ tool: ['b', 'a'] }), deny({ tool: ['a', 'b'] }))).toBe('same');
    expect(
      compareReach(
        allow({ arguments: { p: { under: ['y', 'x'] } } }),
        deny({ arguments: { p: { under: ['x', 'y'] } } }),
      ),
    ).toBe('same');
    expect(compareReach(allow({ source: 'mcp:fs' }), deny({ source: 'mcp:*' }))).toBe('narrower');
    expect(compareReach(allow({ tool: '*' }), deny({}))).toBe('same');
  });
});

// An allow whose test selects the same values as the deny's, only written another way, is the same
// rule over again: it must not become a carve-out that takes every call from the deny.
describe('the same test in another spelling is no carve-out', () => {
  const call = (args: unknown): PolicySubject => ({
    tool: 'write_file',
    category: 'write',
    source: 'local',
    arguments: args,
    meta: {},
    state: undefined,
  });
  const spellings: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['a trailing slash', { under: 'docs/' }, { under: 'docs' }],
    ['a leading ./', { under: './docs' }, { under: 'docs' }],
    ['a folder listed again inside itself', { under: ['docs', 'docs/a'] }, { under: 'docs' }],
    ['under a folder against the glob folder/**', { under: 'docs' }, { glob: 'docs/**' }],
    ['equals against a oneOf of that one value', { equals: 'docs/a.md' }, { oneOf: ['docs/a.md'] }],
    ['a oneOf of one value against equals', { oneOf: ['docs/a.md'] }, { equals: 'docs/a.md' }],
  ];

  test.each(spellings)('%s: the deny still decides', (_, allowTest, denyTest) => {
    const policy = definePolicy({
      rules: [
        { id: 'no-docs', action: 'deny', arguments: { path: denyTest as never } },
        { id: 'docs-again', action: 'allow', arguments: { path: allowTest as never } },
      ],
    });
    const [deny, allow] = policy.rules as [PolicyRule, PolicyRule];
    // Both select exactly the same paths on their own ...
    for (const path of ['docs/a.md', 'other.md']) {
      const alone = (rule: PolicyRule) =>
        evaluatePolicy(definePolicy({ rules: [rule] }), call({ path })).rule;
      expect(alone(allow) === 'docs-again', path).toBe(alone(deny) === 'no-docs');
    }
    // ... so together the allow is no carve-out, and the deny decides.
    expect(isCarveOut(allow, deny)).toBe(false);
    expect(compareReach(allow, deny)).toBe('same');
    expect(evaluatePolicy(policy, call({ path: 'docs/a.md' })).rule).toBe('no-docs');
  });

  test('oneOf values keep their types: [1, 2] is not among ["1", 2]', () => {
    const policy = definePolicy({
      rules: [
        { id: 'no-prod', action: 'deny', arguments: { env: { oneOf: ['1', 2] } } },
        { id: 'deploy-any', action: 'allow', tool: 'write_file', arguments: { env: { oneOf: [1, 2] } } },
      ],
    });
    const [deny, allow] = policy.rules as [PolicyRule, PolicyRule];
    expect(isCarveOut(allow, deny)).toBe(false);
    // The same allow with 3 in place of 1 is rightly no carve-out: 2 falls to the deny.
    expect(evaluatePolicy(policy, call({ env: 2 })).rule).toBe('no-prod');
  });

  test('an ask on oneOf [1] beside a deny on oneOf ["1"] decides the number 1, and is not reported as never deciding', () => {
    const raw = {
      rules: [
        { id: 'no-one', action: 'deny', arguments: { n: { oneOf: ['1'] } } },
        { id: 'ask-one', action: 'ask', arguments: { n: { oneOf: [1] } } },
      ],
    };
    expect(evaluatePolicy(definePolicy(raw as never), call({ n: 1 })).rule).toBe('ask-one');
    expect(reachOf(checkPolicy(raw), 'ask-one')?.neverDecides).toBeUndefined();
  });
});

describe('what the check reports, the gate does', () => {
  test('a rule reported as never deciding decides no call; every other rule decides one', () => {
    const raw = {
      rules: [
        { id: 'mcp-reads', action: 'allow', source: 'mcp:*', category: ['read', 'search'] },
        { id: 'fs-reads', action: 'allow', source: 'mcp:fs', category: 'read' },
        { id: 'no-ssh', action: 'deny', arguments: { path: { under: '.ssh' } } },
        { id: 'no-writes', action: 'deny', category: 'write' },
        { id: 'docs', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } },
        { id: 'ask-writes', action: 'ask', category: 'write' },
        { id: 'no-writes-again', action: 'deny', category: 'write' },
      ],
    };
    const report = checkPolicy(raw);
    expect(report.rules.filter((rule) => rule.neverDecides).map((rule) => rule.id)).toEqual([
      'fs-reads',
      'ask-writes',
      'no-writes-again',
    ]);
    const policy = definePolicy(raw as never);
    const subjects: PolicySubject[] = [];
    for (const source of ['local', 'mcp:fs', 'mcp:github'])
      for (const [tool, category] of [
        ['read_file', 'read'],
        ['search_files', 'search'],
        ['write_file', 'write'],
        ['edit_file', 'write'],
      ] as const)
        for (const path of ['docs/a.md', 'src/a.ts', '.ssh/id_rsa'])
          subjects.push({ tool, category, source, arguments: { path }, meta: {}, state: undefined });
    const decided = new Set(subjects.map((subject) => evaluatePolicy(policy, subject).rule));
    for (const rule of report.rules)
      expect(decided.has(rule.id), rule.id).toBe(rule.neverDecides === undefined);
  });
});
