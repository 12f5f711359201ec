import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import {
  INSTALL_BUBBLEWRAP,
  probeBubblewrap,
  REQUIRE_SANDBOX_VARIABLE,
  sandboxRequired,
} from './support/bubblewrap.js';
import { buildSource } from './support/cli-build.js';
import { haproxyAvailable, INSTALL_HAPROXY } from './support/haproxy.js';
import {
  fleetRequired,
  INSTALL_POSTGRES,
  postgresAvailable,
  REQUIRE_FLEET_VARIABLE,
} from './support/postgres.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The test files that import `support/<name>.js`: these are the ones skipped without what it starts. */
function filesImporting(name: string): string[] {
  const pattern = new RegExp(`support/${name}\\.js['"]`);
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts') && pattern.test(readFileSync(path, 'utf8'))) {
        found.push(relative(projectRoot, path));
      }
    }
  };
  walk(join(projectRoot, 'test'));
  return found.sort();
}

/**
 * Says once, for the whole run, which tests a missing system package skips, or fails the run in CI;
 * then builds `src/` once, for the tests that start the CLI (see `support/cli-build.ts`), again before
 * each rerun in watch mode, and removes that build when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const status = await probeBubblewrap();
  if (!status.ok) {
    const files = filesImporting('bubblewrap').join(', ');
    if (sandboxRequired()) {
      stop(
        `${REQUIRE_SANDBOX_VARIABLE} is set, so the sandbox tests (${files}) must run, but ${status.reason}. Install it with: ${INSTALL_BUBBLEWRAP}`,
      );
    }
    process.stdout.write(
      `toolpact: skipped the sandbox tests in ${files} (${status.reason}); to run them: ${INSTALL_BUBBLEWRAP}\n`,
    );
  }
  const fleet = [
    { name: 'postgres', label: 'PostgreSQL', reason: postgresAvailable(), install: INSTALL_POSTGRES },
    { name: 'haproxy', label: 'HAProxy', reason: haproxyAvailable(), install: INSTALL_HAPROXY },
  ];
  const missing = fleet.flatMap(({ name, label, reason, install }) =>
    reason === undefined ? [] : [{ label, reason, install, files: filesImporting(name).join(', ') }],
  );
  if (missing.length > 0 && fleetRequired()) {
    const all = filesImporting('(postgres|haproxy)').join(', ');
    stop(
      `${REQUIRE_FLEET_VARIABLE} is set, so the fleet tests (${all}) must run, but ${missing.map((m) => m.reason).join(' and ')}. Install ${missing.length > 1 ? 'them' : 'it'} with: ${missing.map((m) => m.install).join(' && ')}`,
    );
  }
  for (const { label, reason, install, files } of missing) {
    if (files === '') continue;
    process.stdout.write(
      `toolpact: skipped the ${label} tests in ${files} (${reason}); to run them: ${install}\n`,
    );
  }
  let build = await buildSource();
  project.provide('toolpactBuild', build.folder);
  // In watch mode, a rerun follows a change: the CLI runs from a build of the sources as they are now.
  project.onTestsRerun(async () => {
    build.remove();
    build = await buildSource();
    project.provide('toolpactBuild', build.folder);
  });
  return () => build.remove();
}

/**
 * Ends the run before any test with one line saying why. (A thrown error would be printed after
 * vitest's "No test files found" and with a stack trace, which both send a reader the wrong way.)
 */
function stop(message: string): never {
  process.stderr.write(`toolpact: ${message}\n`);
  process.exit(1);
}
