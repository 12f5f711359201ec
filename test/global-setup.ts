import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  INSTALL_BUBBLEWRAP,
  probeBubblewrap,
  REQUIRE_SANDBOX_VARIABLE,
  sandboxRequired,
} from './support/bubblewrap.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The test files that import the bubblewrap status: these are the ones skipped without it. */
function filesNeedingBubblewrap(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (
        entry.name.endsWith('.test.ts') &&
        /support\/bubblewrap\.js['"]/.test(readFileSync(path, 'utf8'))
      ) {
        found.push(relative(projectRoot, path));
      }
    }
  };
  walk(join(projectRoot, 'test'));
  return found.sort();
}

/** Says once, for the whole run, which tests a missing system package skips, or fails the run in CI. */
export default async function setup(): Promise<void> {
  const status = await probeBubblewrap();
  if (status.ok) return;
  const files = filesNeedingBubblewrap().join(', ');
  if (sandboxRequired()) {
    stop(
      `${REQUIRE_SANDBOX_VARIABLE} is set, so the sandbox tests (${files}) must run, but ${status.reason}. Install it with: ${INSTALL_BUBBLEWRAP}`,
    );
  }
  process.stdout.write(
    `toolpact: skipped the sandbox tests in ${files} (${status.reason}); to run them: ${INSTALL_BUBBLEWRAP}\n`,
  );
}

/**
 * Ends the run before any test with one line saying why. (A thrown error would be printed after
 * vitest's "No test files found" and with a stack trace, which both send a reader the wrong way.)
 */
function stop(message: string): never {
  process.stderr.write(`toolpact: ${message}\n`);
  process.exit(1);
}
