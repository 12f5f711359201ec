import { defineConfig } from 'vitest/config';

/**
 * The test files that start a process (the CLI, an MCP server over stdio, bubblewrap, PostgreSQL,
 * HAProxy, Chromium) or need one started for them. They make the `system` project; every other
 * file is `unit`, whose setup file makes `node:child_process` throw, so a file missing from this
 * list fails at once with the way out instead of slowing the inner loop (`npm run test:unit`).
 */
const system = [
  'test/agent/example.test.ts',
  'test/agent/pause-resume.test.ts',
  'test/audit/sink-conformance.test.ts',
  'test/auth/approvals-http.test.ts',
  'test/auth/cli-auth.test.ts',
  'test/cli/bin.test.ts',
  'test/cli/first-hour.test.ts',
  'test/cli/lifecycle-signals.test.ts',
  'test/cli/lifecycle.test.ts',
  'test/cli/module-processes.test.ts',
  'test/cli/npm-start.test.ts',
  'test/core/lifecycle.test.ts',
  'test/extract/root-entry.test.ts',
  'test/fleet/auth-replicas.test.ts',
  'test/fleet/harness.test.ts',
  'test/fleet/replicas.test.ts',
  'test/fleet/store.test.ts',
  'test/fleet/token-store.test.ts',
  'test/gateway/back-to-client.test.ts',
  'test/gateway/back-to-stdio-client.test.ts',
  'test/gateway/check-notes.test.ts',
  'test/gateway/cli.test.ts',
  'test/gateway/conformance.test.ts',
  'test/gateway/discover-front.test.ts',
  'test/gateway/flood.test.ts',
  'test/gateway/init.test.ts',
  'test/gateway/input-rounds.test.ts',
  'test/gateway/name-ownership.test.ts',
  'test/gateway/otel.test.ts',
  'test/gateway/processes.test.ts',
  'test/gateway/real-servers.test.ts',
  'test/gateway/resources-prompts.test.ts',
  'test/gateway/sandbox-escape.test.ts',
  'test/gateway/sandbox-package.test.ts',
  'test/gateway/sandbox.test.ts',
  'test/gateway/sign-in.test.ts',
  'test/gateway/start-at-once.test.ts',
  'test/gateway/start-from-lock.test.ts',
  'test/gateway/supervision.test.ts',
  'test/gateway/team-gateway.test.ts',
  'test/gateway/team-signin.test.ts',
  'test/integrations/pause-resume.test.ts',
  'test/mcp/cli-inspect.test.ts',
  'test/mcp/cli-serve.test.ts',
  'test/mcp/conformance-client.test.ts',
  'test/mcp/conformance.test.ts',
  'test/mcp/import-eras.test.ts',
  'test/mcp/import.test.ts',
  'test/mcp/oauth-client-credentials.test.ts',
  'test/mcp/oauth-client.test.ts',
  'test/mcp/oauth-hostile.test.ts',
  'test/mcp/peers.test.ts',
  'test/mcp/serve-modern.test.ts',
  'test/mcp/serve-processes.test.ts',
  'test/mcp/serve-stdio.test.ts',
  'test/mcp/token-store-processes.test.ts',
  'test/otel/otlp.test.ts',
  'test/otel/sqlite-audit.test.ts',
  'test/policy/audit-decisions.test.ts',
  'test/policy/audit.test.ts',
  'test/policy/who-decides.test.ts',
  'test/sandbox/escape.test.ts',
  'test/sandbox/non-root.test.ts',
  'test/sandbox/refusal.test.ts',
  'test/search/serve-modern.test.ts',
  'test/search/serve.test.ts',
  'test/structure/entry-load.test.ts',
  'test/structure/published-package.test.ts',
  'test/studio/browser.test.ts',
  'test/studio/cli.test.ts',
  'test/studio/signin-browser.test.ts',
  'test/studio/store-browser.test.ts',
  'test/studio/store.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Three workers on two cores: a system test spends much of its time waiting for the processes it
    // started, and a third file runs meanwhile (measured here: npm test 5 min 59 s with two, 5 min 23 s
    // with three, the cores idle 8% and 1% of the run).
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: system,
          setupFiles: ['test/support/unit-guard.ts'],
          // Files share a worker's module cache instead of each loading src/ again: measured here on 2
          // cores, 96 files took 125 s instead of 180 s, and no unit file keeps state between files.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'system',
          include: system,
          // As in `unit`: a worker imports src/ once for all its files, not once per file (measured here:
          // 52 s of imports down to a few, the project 307 to 336 s before and 281 s after). Every file
          // passes whichever order the files run in (checked with --sequence.shuffle.files).
          isolate: false,
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
