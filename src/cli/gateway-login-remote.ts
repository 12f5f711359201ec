/** `gateway login <server> --gateway <url>`: a person's own sign-in, through a team gateway's link. */
import {
  credentialOf,
  endpointOf,
  otherRefusal,
  problemOf,
  reasonOf,
  TIMEOUT_MS,
  TOKEN_VARIABLE,
} from './approval-source.js';
import { type CliIo, type ExitCode, InputError, UsageError } from './io.js';
import { openBrowser } from './open-browser.js';

const PREFIX = 'toolpact gateway login';

/** What `--gateway` login reads from the command line. */
export interface RemoteLoginOptions {
  /** The server to sign in to, by the gateway's name for it. */
  readonly server: string | undefined;
  /** The team gateway's MCP endpoint URL (`--gateway`). */
  readonly gateway: string;
  /** The environment variable holding the caller's credential for the gateway (`--token-env`). */
  readonly tokenEnv: string | undefined;
  /** Print the link instead of opening the browser (`--no-browser`). */
  readonly noBrowser: boolean;
}

/**
 * Asks a team gateway for a sign-in link to `server` as the person the credential authenticates (the
 * gateway keeps the sign-in under that person), then opens the link in the browser or prints it. The
 * sign-in finishes in the browser, at the gateway; the command exits 0 once the link is given. The
 * credential is sent to the gateway's own URL only: https unless on loopback, no redirect followed.
 *
 * @example
 * // TOOLPACT_TOKEN=… toolpact gateway login linear --gateway https://tools.example.com/mcp --no-browser
 * await loginThroughGateway({ server: 'linear', gateway: 'https://tools.example.com/mcp', tokenEnv: undefined, noBrowser: true }, io);
 */
export async function loginThroughGateway(options: RemoteLoginOptions, io: CliIo): Promise<ExitCode> {
  const { server } = options;
  if (server === undefined) {
    throw new UsageError(`Name the server: toolpact gateway login <server> --gateway ${options.gateway}.`);
  }
  const endpoint = endpointOf(options.gateway, '--gateway');
  const variable = options.tokenEnv ?? TOKEN_VARIABLE;
  const credential = credentialOf(variable, io.env, '--gateway');
  const target = `${endpoint.href.replace(/\/+$/, '')}/signin/${encodeURIComponent(server)}`;
  let response: Response;
  try {
    response = await fetch(target, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { authorization: `Bearer ${credential}`, accept: 'application/json' },
    });
  } catch (error) {
    throw new InputError(
      `Cannot reach ${target}: ${reasonOf(error)}. Check that the gateway runs there and that --gateway is its MCP endpoint URL (e.g. https://tools.example.com/mcp).`,
    );
  }
  const text = await response.text();
  if (!response.ok) throw refusal(response, text, target, variable);
  const link = linkOf(text, target);
  const expires = link.expiresAt ? ` It expires at ${link.expiresAt}.` : '';
  if (options.noBrowser) {
    io.stderr(`Open this link in a browser to sign in to ${server} as yourself:\n\n  ${link.url}\n\n`);
  } else {
    io.stderr(
      `Opening the browser to sign in to ${server}. If it does not open, go to:\n\n  ${link.url}\n\n`,
    );
    openBrowser(link.url, io.stderr, PREFIX);
  }
  io.stdout(
    `The sign-in to ${server} finishes in the browser: once it says "Signed in", the gateway uses it for your calls only.${expires} The link is yours: whoever follows it signs in for you, so do not forward it.\n`,
  );
  return 0;
}

/** The link in the gateway's answer, checked to be a web address a browser may open. */
function linkOf(text: string, target: string): { url: string; expiresAt: string | undefined } {
  let body: { url?: unknown; expiresAt?: unknown } | undefined;
  try {
    body = JSON.parse(text) as { url?: unknown; expiresAt?: unknown };
  } catch {}
  const url = typeof body?.url === 'string' ? body.url : undefined;
  if (url === undefined || !/^https?:\/\//i.test(url)) {
    throw new InputError(
      `${target} answered without a sign-in link (${text.slice(0, 100) || 'an empty body'}): is --gateway a toolpact gateway's MCP endpoint URL, served with --auth?`,
    );
  }
  return { url, expiresAt: typeof body?.expiresAt === 'string' ? body.expiresAt : undefined };
}

/** What an error answer of the gateway means for the person at the terminal. */
function refusal(response: Response, text: string, target: string, variable: string): Error {
  const { type, said } = problemOf(text);
  const status = response.status;
  if (status === 401 || status === 403) {
    return new InputError(
      `${target} refused the credential in ${variable} (${status}${type ? ` ${type}` : ''}): ${said ?? 'no reason given'} Set ${variable} to your own access token for the gateway (its audience is the gateway's resource URI) or a toolpact API key.`,
    );
  }
  return otherRefusal(response, type, said, { target, flag: '--gateway', speaker: 'a toolpact gateway' });
}
