import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBubblewrapSandbox } from '../../src/sandbox/index.js';

/** The environment variable that makes the sandbox tests mandatory (`.ci/run` sets it). */
export const REQUIRE_SANDBOX_VARIABLE = 'TOOLPACT_REQUIRE_SANDBOX';

/** The command that installs what the sandbox tests need, on Debian and Ubuntu. */
export const INSTALL_BUBBLEWRAP = 'apt-get install bubblewrap';

/** Whether a real bubblewrap sandbox starts on this machine, and if not, why. */
export type BubblewrapStatus = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Starts one empty sandbox, as the workspace tools do before their first command. */
export async function probeBubblewrap(): Promise<BubblewrapStatus> {
  const workspace = mkdtempSync(join(tmpdir(), 'toolpact-bwrap-probe-'));
  try {
    const check = await createBubblewrapSandbox({ workspace, limits: { wallClockMs: 5_000 } }).check();
    return check.ok ? { ok: true } : { ok: false, reason: check.reason };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** True when the sandbox tests must run: a missing bubblewrap then fails the run instead of skipping. */
export function sandboxRequired(): boolean {
  const value = process.env[REQUIRE_SANDBOX_VARIABLE];
  return value !== undefined && value !== '' && value !== '0';
}

/**
 * For a test file that needs a real sandbox: `describe.runIf(bubblewrap.ok)`. The one line that says
 * which files were skipped, and how to install bubblewrap, is printed by the global set-up.
 */
export const bubblewrap: BubblewrapStatus = await probeBubblewrap();
