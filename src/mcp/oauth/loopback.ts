import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpSignInDriver } from './oauth-provider.js';

/** Options of {@link loopbackSignIn}. */
export interface LoopbackSignInOptions {
  /**
   * Sends the person to the authorization URL: opens the system browser, or prints the URL. Called
   * once per sign-in.
   */
  readonly open: (authorizationUrl: URL) => void | Promise<void>;
  /** The port to listen on. Default: a free one. */
  readonly port?: number;
  /** The callback path. Default `/callback`. */
  readonly path?: string;
  /** Longest wait for the browser to come back, in milliseconds. Default 300,000 (five minutes). */
  readonly timeoutMs?: number;
}

/** A {@link McpSignInDriver} that listens on loopback for the redirect; close it when done. */
export interface LoopbackSignIn extends McpSignInDriver {
  close(): Promise<void>;
}

/**
 * Listens on `127.0.0.1` for the authorization server's redirect (RFC 8252 §7.3, the loopback
 * redirect of a native client), sends the person to sign in with `open`, and resolves with the URL
 * the browser came back to. Only the callback path is answered; the page shown says whether the
 * sign-in came back, never the code.
 *
 * @example
 * const signIn = await loopbackSignIn({ open: (url) => console.log(`Open ${url}`) });
 * try {
 *   await importMcpTools(registry, { url }, { auth: { store, signIn } });
 * } finally {
 *   await signIn.close();
 * }
 */
export async function loopbackSignIn(options: LoopbackSignInOptions): Promise<LoopbackSignIn> {
  const path = options.path ?? '/callback';
  let waiting: { resolve: (url: URL) => void; reject: (error: Error) => void } | undefined;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
    if (request.method !== 'GET' || url.pathname !== path) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found.\n');
      return;
    }
    const failed = url.searchParams.get('error');
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(
        `<!doctype html><meta charset="utf-8"><title>toolpact</title><p>${
          failed
            ? 'The sign-in did not finish. Go back to the terminal.'
            : 'Signed in. You can close this tab.'
        }</p>\n`,
      );
    waiting?.resolve(url);
    waiting = undefined;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const redirectUrl = `http://127.0.0.1:${port}${path}`;
  return {
    redirectUrl,
    async visit(authorizationUrl) {
      const back = new Promise<URL>((resolve, reject) => {
        waiting = { resolve, reject };
      });
      const timeoutMs = options.timeoutMs ?? 300_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `No sign-in came back to ${redirectUrl} within ${Math.round(timeoutMs / 1_000)} s. Run the command again, and finish the sign-in in the browser.`,
              ),
            ),
          timeoutMs,
        );
        timer.unref();
      });
      try {
        await options.open(authorizationUrl);
        return await Promise.race([back, timedOut]);
      } finally {
        clearTimeout(timer);
        waiting = undefined;
      }
    },
    async close() {
      waiting?.reject(new Error('The sign-in was given up.'));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
