import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LoopbackSignIn, loopbackSignIn } from '../../../src/mcp/index.js';
import { call, spawnServe } from '../../auth/support.js';
import { freePort, signIn } from '../../support/oidc-provider.js';

/** The fixture tools (`echo`, `add`, …) as a module for `toolpact serve`. */
const MODULE = join('test', 'fixtures', 'mcp', 'registry-module.ts');

/** A real `toolpact serve --http --auth` that trusts `issuer`, at a URL known before it starts. */
export async function startUpstream(
  folder: string,
  issuer: string,
  scopes: { readonly required?: readonly string[]; readonly tools?: Record<string, readonly string[]> },
) {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const file = join(folder, `auth-${port}.json`);
  // No clock leeway, so that an expired access token is refused as soon as it expires.
  writeFileSync(file, JSON.stringify({ resource, issuers: [issuer], leewaySeconds: 0, scopes }));
  const served = await spawnServe(MODULE, ['--http', '--port', String(port), '--auth', file]);
  return {
    ...served,
    resource,
    /** The status the upstream answers a raw `tools/call` of `echo` with this access token. */
    statusFor: async (token: string) =>
      (await call(served.url, 'echo', `Bearer ${token}`, { text: 'x' })).status,
  };
}

/** A loopback sign-in whose browser step is the provider's login and consent pages, driven over HTTP. */
export interface DrivenSignIn {
  readonly driver: LoopbackSignIn;
  /** The authorization URLs the person was sent to, in order. */
  readonly visits: URL[];
}

/**
 * A real {@link loopbackSignIn} listener; the person is `user`, who logs in and consents on the
 * provider's pages, and whose browser then follows the redirect to the listener. `tamper` changes the
 * query the browser brings back (an attacker's hand in the redirect); `before` runs first (a forged
 * callback that reaches the listener ahead of the real one).
 */
export async function drivenSignIn(
  user: string,
  options: {
    readonly tamper?: (query: URLSearchParams) => void;
    readonly before?: (redirectUrl: string) => Promise<void>;
  } = {},
): Promise<DrivenSignIn> {
  const visits: URL[] = [];
  const driver: LoopbackSignIn = await loopbackSignIn({
    timeoutMs: 20_000,
    open: async (authorizationUrl) => {
      visits.push(authorizationUrl);
      if (options.before) {
        await options.before(driver.redirectUrl);
        return;
      }
      const query = await signIn(authorizationUrl, user, driver.redirectUrl);
      options.tamper?.(query);
      const back = await fetch(`${driver.redirectUrl}?${query}`);
      await back.text();
    },
  });
  return { driver, visits };
}
