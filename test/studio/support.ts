import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** The repository's root, and the MCP server the tests import (started from node_modules, no network). */
export { EVERYTHING, ROOT } from '../mcp/support/wire.js';

/** Debian's Chromium, as `.ci/run` installs it; never a downloaded browser. */
export const CHROMIUM = process.env.TOOLPACT_CHROMIUM ?? '/usr/bin/chromium';

/** True when the browser tests can run; CI sets TOOLPACT_REQUIRE_BROWSER=1 so they never skip there. */
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const REQUIRE_BROWSER = process.env.TOOLPACT_REQUIRE_BROWSER === '1';

let announced = false;

/**
 * Whether to skip the browser tests of `file`: only without Chromium and outside CI, saying so once.
 * With TOOLPACT_REQUIRE_BROWSER=1 and no Chromium, it throws, so CI fails instead of passing blind.
 */
export function skipWithoutBrowser(file: string): boolean {
  if (HAS_CHROMIUM) return false;
  if (REQUIRE_BROWSER) {
    throw new Error(
      `${file}: TOOLPACT_REQUIRE_BROWSER=1 but ${CHROMIUM} does not exist. Install it: apt-get install chromium`,
    );
  }
  if (!announced) {
    announced = true;
    process.stderr.write(
      `Skipping the studio browser tests (${file}): no Chromium at ${CHROMIUM}. Install it with: apt-get install chromium\n`,
    );
  }
  return true;
}

/** Flags that keep Chromium off the network (a closed machine refuses its background connections). */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium with a fresh profile (its own user-data dir); `close` also removes the profile. */
export async function launchBrowser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'toolpact-studio-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ARGS,
    viewport: { width: 1440, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
