// `gateway check`: a server that can reach one of the gateway's own files is a finding like the others:
// counted in the exit status, and listed in --format json with a stable code and a severity.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { execute } from '../../src/cli/main.js';

const HINTED = resolve('test/fixtures/gateway/hinted-server.mjs');
let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-check-exposed-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function folder(name: string): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  return path;
}

async function checkJson(args: readonly string[]) {
  let stdout = '';
  let stderr = '';
  const code = await execute(['gateway', 'check', ...args, '--format', 'json'], {
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
  return { code, report: JSON.parse(stdout) as { exposed: unknown[] }, stderr };
}

test('a server whose arguments name the config’s folder is a finding in the JSON, and exits 1', async () => {
  const conf = folder('conf');
  const config = join(conf, 'gateway.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [HINTED, conf] } } }),
  );
  const { code, report, stderr } = await checkJson(['--config', config]);
  expect(code).toBe(1);
  expect(report.exposed).toEqual([
    expect.objectContaining({
      code: 'gateway_file_exposed',
      severity: 'error',
      server: 'files',
      file: { role: 'config', path: config },
      via: 'arguments',
      folder: conf,
    }),
    // The default lock sits beside the config: reachable too.
    expect.objectContaining({
      code: 'gateway_file_exposed',
      file: expect.objectContaining({ role: 'lock' }),
    }),
  ]);
  // Said to the operator as well.
  expect(stderr).toContain(`files can reach the gateway's config ${config} (through arguments ${conf})`);
}, 60_000);

test('the lock moved into a folder a server reaches (--lock) is found, though the config is outside', async () => {
  const conf = folder('conf');
  const data = folder('data');
  const config = join(conf, 'gateway.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [HINTED, data] } } }),
  );
  const moved = await checkJson(['--config', config, '--lock', join(data, 'gateway.lock.json')]);
  expect(moved.report.exposed).toEqual([
    expect.objectContaining({
      server: 'files',
      file: { role: 'lock', path: join(data, 'gateway.lock.json') },
    }),
  ]);
  // With every file outside the folder, nothing is found.
  const clean = await checkJson(['--config', config]);
  expect(clean.report.exposed).toEqual([]);
}, 60_000);
