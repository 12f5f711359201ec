/**
 * `npm start`, the main job on the example tools, as the README runs it: the demo imports the example
 * registry itself and has the CLI load the same module, so the CLI's copy (closed once `inspect` has
 * printed) must not be the demo's own.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from '../mcp/support/wire.js';

test('npm start prints the contract table, then each kind of outcome from tools that are still open', () => {
  const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const run = spawnSync(process.execPath, [tsx, join('examples', 'workspace', 'demo.ts')], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout).toContain('read_file      read      low     allow');
  expect(run.stdout).not.toContain('registry_closed');
  expect(run.stdout).toContain('"ok":true,"result":{"path":"docs/guide.md"');
  for (const type of ['invalid_arguments', 'unknown_tool', 'path_outside_workspace']) {
    expect(run.stdout).toContain(`"type":"${type}"`);
  }
});
