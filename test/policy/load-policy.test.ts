import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  createPolicyGate,
  definePolicy,
  loadPolicyFile,
  loadPolicyFromConfig,
  PolicyError,
} from '../../src/policy/index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-policy-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function refusal(run: () => unknown): PolicyError {
  try {
    run();
  } catch (error) {
    if (error instanceof PolicyError) return error;
    throw error;
  }
  throw new Error('expected a PolicyError');
}

describe('loading a policy', () => {
  test('a JSON file loads, frozen', () => {
    const file = join(dir, 'policy.json');
    writeFileSync(
      file,
      JSON.stringify({
        rules: [{ id: 'docs', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } }],
        defaults: { execute: 'deny' },
        importedDefault: 'deny',
      }),
    );
    const policy = loadPolicyFile(file);
    expect(policy.rules[0]).toMatchObject({ id: 'docs', action: 'allow', tool: ['write_file'] });
    expect(policy.defaults).toEqual({ execute: 'deny' });
    expect(Object.isFrozen(policy.rules[0])).toBe(true);
  });

  test.each([
    [
      { rules: [{ id: 'x', action: 'permit' }] },
      'invalid_rule',
      'x',
      /"action" must be "allow", "ask" or "deny", received "permit"/,
    ],
    [{ rules: [{ action: 'deny' }] }, 'invalid_rule', '#0', /needs an "id"/],
    [{ rules: [{ id: 'x', action: 'deny', tools: 'a' }] }, 'unknown_key', 'x', /unknown key "tools"/],
    [
      { rules: [{ id: 'x', action: 'deny', category: 'exec' }] },
      'invalid_rule',
      'x',
      /"category" must be one or more of/,
    ],
    [
      {
        rules: [
          { id: 'x', action: 'deny' },
          { id: 'x', action: 'allow' },
        ],
      },
      'duplicate_rule_id',
      'x',
      /rule #1/,
    ],
    [
      { rules: [{ id: 'x', action: 'allow', arguments: { path: { under: '../etc' } } }] },
      'invalid_rule',
      'x',
      /without "\.\."/,
    ],
    [
      { rules: [{ id: 'x', action: 'allow', arguments: { path: { under: 'a', glob: 'b' } } }] },
      'invalid_rule',
      'x',
      /exactly one test/,
    ],
    [{ rules: [{ id: 'x', action: 'deny', tool: '' }] }, 'invalid_rule', 'x', /"tool" must be a glob/],
    [
      { rules: [{ id: 'x', action: 'deny', when: 'always' }] },
      'invalid_rule',
      'x',
      /"when" must be a function/,
    ],
    [{ rules: [], defaults: { shell: 'allow' } }, 'invalid_defaults', undefined, /not a category/],
    [{ rules: {} }, 'invalid_rule', undefined, /"rules" must be an array/],
  ])('%j is refused at load, naming the rule', (input, code, rule, message) => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(input));
    const error = refusal(() => loadPolicyFile(file));
    expect(error.code).toBe(code);
    expect(error.rule).toBe(rule);
    expect(error.message).toMatch(message);
    expect(error.message).toContain('bad.json');
  });

  test('a missing file and bad JSON are refused with the file named', () => {
    expect(refusal(() => loadPolicyFile(join(dir, 'none.json'))).message).toMatch(
      /none\.json does not exist/,
    );
    writeFileSync(join(dir, 'broken.json'), '{"rules": [');
    expect(refusal(() => loadPolicyFile(join(dir, 'broken.json'))).message).toMatch(
      /broken\.json is not valid JSON/,
    );
  });

  test('the policy section of toolpact.config.json, inline or as a file path', async () => {
    writeFileSync(
      join(dir, 'toolpact.config.json'),
      JSON.stringify({ policy: { rules: [{ id: 'no-exec', action: 'deny', category: 'execute' }] } }),
    );
    expect((await loadPolicyFromConfig(dir))?.rules.map((rule) => rule.id)).toEqual(['no-exec']);
    writeFileSync(join(dir, 'rules.json'), JSON.stringify({ rules: [{ id: 'from-file', action: 'ask' }] }));
    writeFileSync(join(dir, 'toolpact.config.json'), JSON.stringify({ policy: 'rules.json' }));
    expect((await loadPolicyFromConfig(dir))?.rules.map((rule) => rule.id)).toEqual(['from-file']);
  });

  test('a TypeScript (.mts) config may use predicates in code; a bad section is refused naming the config', async () => {
    writeFileSync(
      join(dir, 'toolpact.config.mts'),
      "export default { policy: { rules: [{ id: 'small', action: 'allow', when: (s: { arguments: unknown }) => JSON.stringify(s.arguments).length < 50 }] } };",
    );
    const policy = await loadPolicyFromConfig(dir);
    expect(typeof policy?.rules[0]?.when).toBe('function');
    rmSync(join(dir, 'toolpact.config.mts'));
    writeFileSync(
      join(dir, 'toolpact.config.json'),
      JSON.stringify({ policy: { rules: [{ id: 'y', action: 1 }] } }),
    );
    await expect(loadPolicyFromConfig(dir)).rejects.toThrow(/toolpact\.config\.json#policy: rule #0 \("y"\)/);
  });

  test('no policy section gives undefined', async () => {
    expect(await loadPolicyFromConfig(dir)).toBeUndefined();
  });

  test('createPolicyGate checks a literal policy it is given', () => {
    const literal = { rules: [{ id: 'x', action: 'deny', tools: 'write_file' }] } as never;
    expect(refusal(() => createPolicyGate(literal))).toMatchObject({ code: 'unknown_key', rule: 'x' });
  });

  test('definePolicy accepts code rules', () => {
    const policy = definePolicy({ rules: [{ id: 'code', action: 'deny', when: () => true }] });
    expect(policy.rules).toHaveLength(1);
  });
});
