import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type ConformanceRun,
  passes,
  runConformance,
  staleBaselineEntries,
  unexpectedFailures,
} from '../fixtures/mcp/conformance/run.js';
import { ROOT } from './support/wire.js';

// The official MCP conformance suite (0.2.0-alpha.12), client mode, once per protocol revision: the client
// under test is toolpact's importer (importMcpTools into a Registry, calls through registry.call,
// elicitation through onElicitation), driven by test/fixtures/mcp/conformance-client.ts. The runner
// starts one client process per scenario, all at once; the wrapper is bundled once (esbuild, with the
// packages it imports) so that each start costs one file for plain `node`: no tsx transform, no module
// resolution across node_modules (measured: 0.3 s of CPU a start, against 0.5 s with the packages
// left external), on a 2-core machine.

type Revision = '2025-11-25' | '2026-07-28';
const baseline = JSON.parse(readFileSync(join(ROOT, 'test', 'mcp', 'conformance-baseline.json'), 'utf8')) as {
  client: Record<Revision, Record<string, string>>;
};
const runs = new Map<Revision, ConformanceRun>();
let outDir: string | undefined;

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

beforeAll(async () => {
  // A folder of this run's own (another run in the same checkout bundles its own sources), under
  // node_modules so that the external packages resolve.
  const cache = join(ROOT, 'node_modules', '.cache', 'toolpact-conformance');
  mkdirSync(cache, { recursive: true });
  outDir = mkdtempSync(join(cache, 'run-'));
  const client = join(outDir, 'client.mjs');
  buildSync({
    entryPoints: [join(ROOT, 'test', 'fixtures', 'mcp', 'conformance-client.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: client,
    // The packages' CommonJS modules require Node's own modules: an ES module bundle needs a require.
    banner: {
      js: "import { createRequire as toolpactCreateRequire } from 'node:module';\nconst require = toolpactCreateRequire(import.meta.url);",
    },
    logLevel: 'silent',
  });
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(client)}`;
  for (const revision of ['2025-11-25', '2026-07-28'] as const) {
    // All clients start at once on 2 cores: each is given 60 s, not the runner's 30 s, before its
    // checks are read, so that a slow machine makes the run slower, not a client's verdict false.
    const run = await runConformance(
      ['client', '--command', command, '--requirements', revision, '--timeout', '60000'],
      150_000,
    );
    // The parallel run can time a client out on a loaded machine: a scenario outside the baseline that
    // did not pass is run again, alone, and that verdict stands (--force: an extension scenario, such
    // as the client-credentials ones, is otherwise skipped when named with a revision).
    const results = new Map(run.results);
    for (const [name, result] of run.results) {
      if (passes(result) || Object.hasOwn(baseline.client[revision], name)) continue;
      const alone = await runConformance(
        ['client', '--command', command, '--scenario', name, '--spec-version', revision, '--force'],
        60_000,
      );
      const total = alone.output.match(/Passed: (\d+)\/(\d+), (\d+) failed/);
      if (total) results.set(name, { passed: Number(total[1]), failed: Number(total[3]) });
    }
    runs.set(revision, { results, output: run.output });
  }
}, 420_000);

describe.each([
  ['2025-11-25', 20],
  ['2026-07-28', 35],
] as const)('client mode (the importer), --requirements %s', (revision, minimum) => {
  const notPassed = () => baseline.client[revision];

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
