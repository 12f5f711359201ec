import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { execute } from '../../src/cli/main.js';
import { readAuditLog } from '../../src/policy/index.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sourceEntry = join(projectRoot, 'src', 'index.ts');
let dir: string;
let moduleFile: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-cli-policy-'));
  moduleFile = join(dir, 'tools.ts');
  writeFileSync(
    moduleFile,
    [
      `import { defineTool } from ${JSON.stringify(sourceEntry)};`,
      'import { writeFileSync } from "node:fs";',
      'import { join } from "node:path";',
      `const here = ${JSON.stringify(dir)};`,
      "export const save = defineTool({ name: 'save', category: 'write', description: 'Save a note in the test folder.',",
      "  input: { type: 'object', properties: { text: { type: 'string', description: 'The note.' } }, required: ['text'] },",
      "  execute: (args: { text: string }) => { writeFileSync(join(here, 'saved.txt'), args.text); return 'saved'; } });",
      "export const look = defineTool({ name: 'look', category: 'read', description: 'Say what is there.', execute: () => 'nothing' });",
    ].join('\n'),
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[], options: { interactive?: boolean; answers?: string[] } = {}) {
  let stdout = '';
  let stderr = '';
  const questions: string[] = [];
  const answers = [...(options.answers ?? [])];
  const code = await execute(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd: dir,
    env: {},
    interactive: options.interactive ?? false,
    ...(options.interactive
      ? {
          prompt: async (text: string) => {
            questions.push(text);
            return answers.shift();
          },
        }
      : {}),
  });
  return { code, stdout, stderr, questions, envelope: stdout ? JSON.parse(stdout) : undefined };
}

const saved = () => {
  try {
    return readFileSync(join(dir, 'saved.txt'), 'utf8');
  } catch {
    return undefined;
  }
};

describe('toolpact call and the gate', () => {
  test('a read runs without asking', async () => {
    const result = await run(['call', moduleFile, 'look'], { interactive: true });
    expect(result).toMatchObject({ code: 0, questions: [] });
  });

  test('on a terminal a write asks y/N; "y" runs it', async () => {
    const result = await run(['call', moduleFile, 'save', '{"text":"hi"}'], {
      interactive: true,
      answers: ['y'],
    });
    expect(result.code).toBe(0);
    expect(result.questions).toHaveLength(1);
    expect(result.questions[0]).toMatch(
      /^Allow save \(write, medium risk; .*\) with \{"text":"hi"\}\? \[y\/N\] $/,
    );
    expect(saved()).toBe('hi');
  });

  test.each([[''], ['n'], ['no'], [undefined]])(
    'answer %j refuses and the tool does not run',
    async (answer) => {
      const result = await run(['call', moduleFile, 'save', '{"text":"hi"}'], {
        interactive: true,
        answers: answer === undefined ? [] : [answer],
      });
      expect(result.code).toBe(1);
      expect(result.envelope.error).toMatchObject({ type: 'permission_denied', rule: 'default:write' });
      expect(saved()).toBeUndefined();
    },
  );

  test('on a non-terminal a write is refused unless --yes', async () => {
    const refused = await run(['call', moduleFile, 'save', '{"text":"hi"}']);
    expect(refused.code).toBe(1);
    expect(refused.envelope.error.message).toMatch(/no terminal to ask; run it on a terminal or pass --yes/);
    expect(saved()).toBeUndefined();
    const approved = await run(['call', moduleFile, 'save', '{"text":"yes"}', '--yes']);
    expect(approved.code).toBe(0);
    expect(approved.stderr).toContain('approved by --yes: save');
    expect(saved()).toBe('yes');
  });

  test('--policy and the config policy section decide; --audit logs the decision', async () => {
    writeFileSync(
      join(dir, 'policy.json'),
      JSON.stringify({ rules: [{ id: 'notes-ok', action: 'allow', tool: 'save' }] }),
    );
    const allowed = await run([
      'call',
      moduleFile,
      'save',
      '{"text":"a"}',
      '--policy',
      'policy.json',
      '--audit',
      'audit.jsonl',
    ]);
    expect(allowed.code).toBe(0);
    writeFileSync(
      join(dir, 'toolpact.config.json'),
      JSON.stringify({ policy: { rules: [{ id: 'no-look', action: 'deny', tool: 'look' }] } }),
    );
    const denied = await run(['call', moduleFile, 'look', '--yes', '--audit', 'audit.jsonl']);
    expect(denied.envelope.error).toMatchObject({ type: 'permission_denied', rule: 'no-look' });
    const { entries } = readAuditLog(join(dir, 'audit.jsonl'));
    expect(entries.map((entry) => [entry.tool, entry.decision?.rule, entry.outcome])).toEqual([
      ['save', 'notes-ok', 'ok'],
      ['look', 'no-look', 'permission_denied'],
    ]);
  });

  test('an invalid policy file is a usage error naming the rule', async () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ rules: [{ id: 'oops', action: 'maybe' }] }));
    const result = await run(['call', moduleFile, 'look', '--policy', 'bad.json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('bad.json: rule #0 ("oops"): "action" must be "allow", "ask" or "deny"');
  });
});
