import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';
import { conformanceRegistry } from '../fixtures/mcp/conformance-tools.js';
import { ROOT } from './support/wire.js';

// The official MCP conformance suite, server mode, against the fixture served by serveHttp.
// The CLI imports fs.globSync (Node 22+) at load time; on Node 20 a resolve hook gives it a shim
// (test/fixtures/mcp/conformance/), which changes nothing the server scenarios use.

const CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const SHIM = join(ROOT, 'test', 'fixtures', 'mcp', 'conformance', 'register.mjs');
const baseline = JSON.parse(readFileSync(join(ROOT, 'test', 'mcp', 'conformance-baseline.json'), 'utf8')) as {
  notClaimed: Record<string, string>;
};

interface ScenarioResult {
  readonly passed: number;
  readonly failed: number;
}

let running: RunningHttpServer;
let workDir: string;
let results: Map<string, ScenarioResult>;
let output: string;

beforeAll(async () => {
  // json-schema-2020-12 looks for the `$schema` its fixture tool declares; contracts keep none of their own.
  running = await serveHttp(conformanceRegistry(), { name: 'toolpact-conformance', dialect: true });
  workDir = mkdtempSync(join(tmpdir(), 'toolpact-conformance-'));
  output = await new Promise<string>((resolve) => {
    execFile(
      process.execPath,
      ['--import', SHIM, CLI, 'server', '--url', running.url, '--suite', 'all'],
      { cwd: workDir, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
      // The CLI exits 1 when any scenario fails; the summary is what we judge.
      (_error, stdout, stderr) => resolve(`${stdout}\n${stderr}`),
    );
  });
  results = new Map();
  for (const match of output.matchAll(/^[✓✗] ([a-z0-9-]+): (\d+) passed, (\d+) failed$/gm)) {
    results.set(match[1]!, { passed: Number(match[2]), failed: Number(match[3]) });
  }
}, 300_000);

afterAll(async () => {
  await running?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

const claimed = (result: ScenarioResult | undefined) =>
  result !== undefined && result.passed > 0 && result.failed === 0;

test('the suite ran and reported every scenario', () => {
  expect(results.size, output.slice(-2_000)).toBeGreaterThanOrEqual(30);
});

test('every scenario outside the baseline passes', () => {
  const failing = [...results]
    .filter(([name, result]) => !Object.hasOwn(baseline.notClaimed, name) && !claimed(result))
    .map(([name, result]) => `${name}: ${result.passed} passed, ${result.failed} failed`);
  expect(failing).toEqual([]);
});

test('the baseline is not stale: every scenario in it still fails to pass', () => {
  const stale = Object.keys(baseline.notClaimed).filter((name) => claimed(results.get(name)));
  expect(stale).toEqual([]);
  for (const name of Object.keys(baseline.notClaimed)) expect(results.has(name), name).toBe(true);
});

test('the claimed scenarios include tools-list, the tools-call scenarios we serve, JSON Schema 2020-12 and DNS rebinding', () => {
  for (const name of [
    'server-initialize',
    'tools-list',
    'tools-call-simple-text',
    'tools-call-error',
    'tools-call-with-logging',
    'tools-call-with-progress',
    'tools-call-sampling',
    'tools-call-elicitation',
    'json-schema-2020-12',
    'dns-rebinding-protection',
  ]) {
    expect(claimed(results.get(name)), name).toBe(true);
  }
});
