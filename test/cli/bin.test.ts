import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// `npx toolpact …` in a checkout runs package.json's bin, before any build: it must run the source.
test('the bin entry runs the CLI from the source in a checkout, with no build', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      join(projectRoot, 'bin', 'toolpact.js'),
      'call',
      'examples/workspace/index.ts',
      'read_file',
      '{"path":"docs/guide.md"}',
    ],
    { cwd: projectRoot },
  );
  expect(JSON.parse(stdout)).toMatchObject({ ok: true, result: { path: 'docs/guide.md', lines: 4 } });
});
