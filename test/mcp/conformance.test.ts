import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';
import {
  type ConformanceRun,
  passes,
  runConformance,
  staleBaselineEntries,
  unexpectedFailures,
} from '../fixtures/mcp/conformance/run.js';
import { conformanceRegistry } from '../fixtures/mcp/conformance-tools.js';
import { ROOT } from './support/wire.js';

// The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12), server mode,
// once per protocol revision (`--requirements`), against the fixture registry served by serveHttp on one
// endpoint for both eras. The CLI imports fs.globSync (Node 22+) at load time; on Node 20 a resolve hook
// (test/fixtures/mcp/conformance/) gives it a shim, which changes nothing the scenarios use.

type Revision = '2025-11-25' | '2026-07-28';
const baseline = JSON.parse(readFileSync(join(ROOT, 'test', 'mcp', 'conformance-baseline.json'), 'utf8')) as {
  server: Record<Revision, Record<string, string>>;
};

let running: RunningHttpServer;
const runs = new Map<Revision, ConformanceRun>();

beforeAll(async () => {
  // json-schema-2020-12 looks for the `$schema` its fixture tool declares; contracts keep none of their own.
  running = await serveHttp(conformanceRegistry(), { name: 'toolpact-conformance', dialect: true });
  for (const revision of ['2025-11-25', '2026-07-28'] as const) {
    runs.set(
      revision,
      await runConformance(['server', '--url', running.url, '--requirements', revision], 110_000),
    );
  }
}, 240_000);

afterAll(async () => {
  await running?.close();
});

describe.each([
  ['2025-11-25', 30],
  ['2026-07-28', 45],
] as const)('server mode, --requirements %s', (revision, minimum) => {
  const notPassed = () => baseline.server[revision];

  test('the suite ran and reported its scenarios', () => {
    const run = runs.get(revision)!;
    expect(run.results.size, run.output.slice(-2_000)).toBeGreaterThanOrEqual(minimum);
  });

  test('every scenario outside the baseline passes', () => {
    expect(unexpectedFailures(runs.get(revision)!.results, notPassed())).toEqual([]);
  });

  test('the baseline is not stale: every scenario in it was run and still does not pass', () => {
    expect(staleBaselineEntries(runs.get(revision)!.results, notPassed())).toEqual([]);
  });
});

test('the claimed scenarios include the tool calls we serve on both eras', () => {
  const claimed = (revision: Revision, name: string) => passes(runs.get(revision)!.results.get(name));
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
    expect(claimed('2025-11-25', name), name).toBe(true);
  }
  for (const name of [
    'tools-list',
    'tools-call-simple-text',
    'tools-call-error',
    'tools-call-with-progress',
    'sep-2164-resource-not-found',
    'dns-rebinding-protection',
    'input-required-result-unsupported-methods',
    'input-required-result-validate-input',
    'json-schema-2020-12',
    'http-header-validation',
  ]) {
    expect(claimed('2026-07-28', name), name).toBe(true);
  }
});
