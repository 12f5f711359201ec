import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

test('npm run example:agent plays a whole loop against the local server, without a key', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'examples/agent/demo.ts'],
    {
      cwd: root,
      env: { ...process.env, OPENAI_API_KEY: '' },
      timeout: 60_000,
    },
  );
  expect(stdout).toContain('step 1  → list_dir {}');
  expect(stdout).toContain('step 1  → read_file {"path":"docs/guide.md"}');
  expect(stdout).toContain(
    'The workspace holds README.md, docs. The guide says: Paths given to the tools are relative to the workspace root.',
  );
  expect(stdout).toMatch(/\(text: 2 steps, \d+ tokens in, \d+ out; 5 messages in the transcript\)/);
});
