import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  type FakeModelServer,
  startFakeModelServer,
  workspaceConversation,
} from '../../examples/agent/fake-model-server.js';
import { execute } from '../../src/cli/main.js';
import { readAuditLog } from '../../src/policy/index.js';
import { freePort } from '../support/free-port.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let server: FakeModelServer;
let dir: string;

beforeAll(async () => {
  server = await startFakeModelServer(workspaceConversation);
});
afterAll(() => server.close());

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-run-'));
  cpSync(join(projectRoot, 'examples', 'workspace', 'sample'), join(dir, 'workspace'), { recursive: true });
  writeFileSync(
    join(dir, 'tools.ts'),
    [
      `import { createWorkspaceTools } from ${JSON.stringify(join(projectRoot, 'examples', 'workspace', 'index.ts'))};`,
      `export default createWorkspaceTools(${JSON.stringify(join(dir, 'workspace'))});`,
    ].join('\n'),
  );
  return () => rmSync(dir, { recursive: true, force: true });
});

async function run(
  argv: string[],
  options: { env?: Record<string, string>; interactive?: boolean; answers?: string[] } = {},
) {
  let stdout = '';
  let stderr = '';
  const questions: string[] = [];
  const answers = [...(options.answers ?? [])];
  const code = await execute(['run', ...argv], {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd: dir,
    env: options.env ?? {},
    interactive: options.interactive ?? false,
    prompt: options.interactive
      ? async (question) => {
          questions.push(question);
          return answers.shift();
        }
      : undefined,
  });
  return { code, stdout, stderr, questions };
}

const local = () => ['--provider', 'openai-compatible', '--model', 'scripted', '--base-url', server.baseURL];

describe('toolpact run against a local OpenAI-compatible server', () => {
  test('prints each call with its gate decision and envelope, then the answer and the totals', async () => {
    const { code, stdout, stderr } = await run(['tools.ts', 'What is in the workspace?', ...local()]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      'The workspace holds README.md, docs. The guide says: Paths given to the tools are relative to the workspace root.\n',
    );
    expect(stderr).toContain(`4 tools, openai-compatible model "scripted" at ${server.baseURL}`);
    expect(stderr).toContain('step 1  I will look at the workspace first.');
    expect(stderr).toContain('step 1  → list_dir {}');
    expect(stderr).toContain('step 1  → read_file {"path":"docs/guide.md"}');
    expect(stderr).toMatch(/← list_dir \[allowed by [^\]]+\] ok \{"path":"\.","entries"/);
    expect(stderr).toMatch(
      /toolpact run: answered \(2 steps, 2 tool calls, \d+ tokens in, \d+ out, [\d.]+ s\)/,
    );
    // No spinner without a terminal.
    expect(stderr).not.toContain('\r');
  });

  test('a write the policy asks about is refused without a terminal, and the model reads why', async () => {
    const { code, stdout, stderr } = await run(['tools.ts', 'Write a note about the guide.', ...local()]);
    expect(code).toBe(0);
    expect(stdout).toBe('I could not save the note (permission_denied).\n');
    expect(stderr).toMatch(
      /← write_file \[declined by default:write\] permission_denied: .*no terminal to ask/,
    );
    expect(existsSync(join(dir, 'workspace', 'notes', 'guide-summary.md'))).toBe(false);
  });

  test('on a terminal it asks y/N for the write, shows a spinner while the model thinks, and runs the call when approved', async () => {
    const { code, stdout, stderr, questions } = await run(
      ['tools.ts', 'Write a note about the guide.', ...local()],
      {
        interactive: true,
        answers: ['y'],
      },
    );
    expect(code).toBe(0);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatch(
      /^Allow write_file \(write, medium risk; .*\) with \{"path":"notes\/guide-summary\.md"/,
    );
    expect(stdout).toBe('I saved the summary in notes/guide-summary.md.\n');
    expect(stderr).toContain('the model is thinking');
    expect(stderr).toContain('\r\x1b[K');
    expect(stderr).toMatch(/← write_file \[approved once by [^\]]+\] ok/);
    expect(readFileSync(join(dir, 'workspace', 'notes', 'guide-summary.md'), 'utf8')).toBe(
      'Paths given to the tools are relative to the workspace root.\n',
    );
  });

  test('--yes approves, --audit logs every call, --stream streams', async () => {
    const { code, stdout } = await run([
      'tools.ts',
      'Write a note about the guide.',
      ...local(),
      '--yes',
      '--stream',
      '--audit',
      'audit.jsonl',
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe('I saved the summary in notes/guide-summary.md.\n');
    const streamed = server.requests.at(-1)!;
    expect(streamed.stream).toBe(true);
    const { entries } = readAuditLog(join(dir, 'audit.jsonl'));
    expect(entries.map((entry) => [entry.tool, entry.outcome])).toEqual([
      ['list_dir', 'ok'],
      ['read_file', 'ok'],
      ['write_file', 'ok'],
    ]);
  });

  test('escape sequences a model writes reach the terminal as visible text, never as control characters', async () => {
    const hostile = await startFakeModelServer(() => ({
      text: 'Done.\u001b[2J\u001b]0;retitled\u0007',
      calls: [],
    }));
    try {
      const { code, stdout } = await run([
        'tools.ts',
        'x',
        '--provider',
        'openai-compatible',
        '--model',
        'm',
        '--base-url',
        hostile.baseURL,
      ]);
      expect(code).toBe(0);
      expect(stdout).toBe('Done.\\u001b[2J\\u001b]0;retitled\\u0007\n');
    } finally {
      await hostile.close();
    }
  });

  test('--max-steps stops the run before an answer with exit 1', async () => {
    const { code, stderr } = await run([
      'tools.ts',
      'What is in the workspace?',
      ...local(),
      '--max-steps',
      '1',
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain('stopped by max steps before an answer (1 step, 2 tool calls');
  });
});

describe('toolpact run set-up errors exit 2 and say what is missing', () => {
  test.each([
    ['openai', 'OPENAI_API_KEY'],
    ['anthropic', 'ANTHROPIC_API_KEY'],
    ['gemini', 'GEMINI_API_KEY'],
  ])('--provider %s without a key names %s', async (provider, variable) => {
    const { code, stderr } = await run(['tools.ts', 'task', '--provider', provider, '--model', 'm']);
    expect(code).toBe(2);
    expect(stderr).toContain(`needs an API key in ${variable}, which is not set`);
  });

  test('openai-compatible without a URL asks for --base-url or OPENAI_BASE_URL', async () => {
    const { code, stderr } = await run([
      'tools.ts',
      'task',
      '--provider',
      'openai-compatible',
      '--model',
      'm',
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain('pass --base-url');
    expect(stderr).toContain('OPENAI_BASE_URL');
  });

  test('a server that is not there: the message names the URL tried', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/v1`;
    const { code, stderr } = await run(
      ['tools.ts', 'task', '--provider', 'openai-compatible', '--model', 'm'],
      {
        env: { OPENAI_BASE_URL: url },
      },
    );
    expect(code).toBe(2);
    expect(stderr).toContain(`cannot reach the model at ${url}`);
    expect(stderr).toContain('ECONNREFUSED');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  test('an unknown provider and a missing model are usage errors', async () => {
    const unknown = await run(['tools.ts', 'task', '--provider', 'mistral', '--model', 'm']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      '--provider must be one of openai, openai-compatible, anthropic, gemini, received "mistral"',
    );
    const noModel = await run([
      'tools.ts',
      'task',
      '--provider',
      'openai-compatible',
      '--base-url',
      server.baseURL,
    ]);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain('--model');
  });
});
