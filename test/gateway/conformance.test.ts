import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readGatewayConfig } from '../../src/gateway/config/index.js';
import { type Gateway, startGateway } from '../../src/gateway/gateway.js';
import { type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';
import {
  type ConformanceRun,
  runConformance,
  staleBaselineEntries,
  unexpectedFailures,
} from '../fixtures/mcp/conformance/run.js';
import { ROOT } from '../mcp/support/wire.js';
import { fixtureArgs } from '../support/cli-build.js';

// The official MCP conformance suite, server mode, once per revision, against the gateway standing in
// front of the conformance fixture registry (served on stdio by its own process): what passes
// through the gateway is what its client sees. The policy allows the fixture server's tools,
// resources, prompts and sampling, so what is measured is the relay, not a refusal.

type Revision = '2025-11-25' | '2026-07-28';
const baseline = JSON.parse(readFileSync(join(ROOT, 'test', 'mcp', 'conformance-baseline.json'), 'utf8')) as {
  gateway: Record<Revision, Record<string, string>>;
};
const UPSTREAM = join(ROOT, 'test', 'fixtures', 'mcp', 'conformance', 'serve-stdio.ts');

let dir: string;
let gateway: Gateway;
let running: RunningHttpServer;
const runs = new Map<Revision, ConformanceRun>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-gateway-conformance-'));
  const file = join(dir, 'mcp.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { conformance: { command: process.execPath, args: fixtureArgs(UPSTREAM) } },
      // The suite's client declares roots and expects its own back from the server's questions.
      toolpact: { servers: { conformance: { roots: 'client' } } },
    }),
  );
  const gate = createPolicyGate(
    definePolicy({
      rules: [
        {
          id: 'conformance',
          action: 'allow',
          source: 'mcp:conformance',
          target: ['tool', 'resource', 'prompt', 'sampling'],
        },
      ],
    }),
  );
  gateway = await startGateway({
    config: readGatewayConfig(file),
    watch: false,
    registry: gate.registryOptions,
  });
  running = await serveHttp(gateway.registry, { listing: gateway.listing, dialect: true });
  for (const revision of ['2025-11-25', '2026-07-28'] as const) {
    runs.set(
      revision,
      await runConformance(['server', '--url', running.url, '--requirements', revision], 110_000),
    );
  }
}, 240_000);

afterAll(async () => {
  await running?.close();
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['2025-11-25', 30],
  ['2026-07-28', 45],
] as const)('the gateway in front of the fixture server, --requirements %s', (revision, minimum) => {
  test('the suite ran and reported its scenarios', () => {
    const run = runs.get(revision)!;
    expect(run.results.size, run.output.slice(-2_000)).toBeGreaterThanOrEqual(minimum);
  });

  test('every scenario outside the baseline passes', () => {
    expect(unexpectedFailures(runs.get(revision)!.results, baseline.gateway[revision])).toEqual([]);
  });

  test('the baseline is not stale: every scenario in it was run and still does not pass', () => {
    expect(staleBaselineEntries(runs.get(revision)!.results, baseline.gateway[revision])).toEqual([]);
  });
});
