import { LOCAL_PRINCIPAL, McpSignInError } from '../../mcp/oauth/oauth-provider.js';
import { parseArgs } from '../args.js';
import { type GatewaySubcommand, readConfig } from '../gateway-options.js';
import { type SigningServer, signingServer } from '../gateway-sign-in.js';
import { type CliIo, type ExitCode, InputError, UsageError } from '../io.js';
import { openBrowser } from '../open-browser.js';

const PREFIX = 'toolpact gateway login';

/**
 * `toolpact gateway login <server>`: signs the person running the gateway in to a remote server with
 * OAuth. The system browser opens at the authorization server (or, with `--no-browser`, the URL is
 * printed), the redirect comes back to a loopback listener, and the tokens are kept, encrypted, in the
 * gateway's token file, where a running gateway picks them up. Exit 0 once they are stored.
 * With `--gateway <url>`, it signs the caller in through a team gateway instead (see
 * `loginThroughGateway`).
 *
 * @example
 * // toolpact gateway login github --config mcp.json --no-browser
 * await execute(['gateway', 'login', 'github', '--config', 'mcp.json', '--no-browser'], io);
 */
export const login: GatewaySubcommand = async (args, io) => {
  const { positionals, flags } = parseArgs(args, {
    config: 'string',
    store: 'string',
    'no-browser': 'boolean',
    timeout: 'string',
    gateway: 'string',
    'token-env': 'string',
  });
  if (positionals.length > 1)
    throw new UsageError(`Unexpected arguments: ${positionals.slice(1).join(' ')}.`);
  if (typeof flags.gateway === 'string') {
    if (flags.config !== undefined || flags.timeout !== undefined) {
      throw new UsageError(
        '--gateway signs you in through a team gateway, which keeps the sign-in: --config and --timeout are for a sign-in on the gateway machine. Give one or the other.',
      );
    }
    const { loginThroughGateway } = await import('../gateway-login-remote.js');
    return loginThroughGateway(
      {
        server: positionals[0],
        gateway: flags.gateway,
        tokenEnv: typeof flags['token-env'] === 'string' ? flags['token-env'] : undefined,
        noBrowser: flags['no-browser'] === true,
      },
      io,
    );
  }
  if (flags['token-env'] !== undefined) {
    throw new UsageError('--token-env names the credential for --gateway <url>; give --gateway too.');
  }
  const timeoutMs = timeoutOf(flags.timeout);
  const config = await readConfig(flags.config, io);
  const { spec, store, file, close } = await signingServer(config, positionals[0], 'login', io, flags.store);
  try {
    return await signInHere(
      { spec, store, file, configFile: config.file, timeoutMs, noBrowser: flags['no-browser'] === true },
      io,
    );
  } finally {
    await close();
  }
};

/** Signs the person at this machine in through a loopback listener, and keeps the tokens in `store`. */
async function signInHere(
  {
    spec,
    store,
    file,
    configFile,
    timeoutMs,
    noBrowser,
  }: Pick<SigningServer, 'spec' | 'store' | 'file'> & {
    readonly configFile: string;
    readonly timeoutMs: number;
    readonly noBrowser: boolean;
  },
  io: CliIo,
): Promise<ExitCode> {
  if (spec.target.kind === 'sse') {
    io.stderr(
      `${PREFIX}: "${spec.name}" is an "sse" server, which toolpact does not speak. Give its Streamable HTTP URL with "type": "http", then sign in.\n`,
    );
    return 1;
  }
  const [{ upstreamAuth }, { loopbackSignIn }, { connectMcpServer }] = await Promise.all([
    import('../../gateway/upstream-target.js'),
    import('../../mcp/oauth/loopback.js'),
    import('../../mcp/connect.js'),
  ]);
  const auth = upstreamAuth(spec, { configFile, tokens: store });
  if (!auth) throw new Error(`${spec.name} has no sign-in settings.`);
  let visited = false;
  const signIn = await loopbackSignIn({
    ...(spec.target.oauth?.callbackPort !== undefined ? { port: spec.target.oauth.callbackPort } : {}),
    timeoutMs,
    open: (url) => {
      visited = true;
      if (noBrowser) {
        io.stderr(`Open this URL in a browser to sign in to ${spec.name}:\n\n  ${url.href}\n\n`);
      } else {
        io.stderr(
          `Opening the browser to sign in to ${spec.name}. If it does not open, go to:\n\n  ${url.href}\n\n`,
        );
        openBrowser(url.href, io.stderr, PREFIX);
      }
      io.stderr(`Waiting for the sign-in to come back to ${signIn.redirectUrl} …\n`);
    },
  }).catch((error: NodeJS.ErrnoException) => {
    throw new InputError(
      `Could not listen for the sign-in's redirect on 127.0.0.1${spec.target.oauth?.callbackPort ? ` port ${spec.target.oauth.callbackPort}` : ''}: ${error.code ?? error.message}. Free the port, or change "callbackPort" in the entry.`,
    );
  });
  try {
    const connection = await connectMcpServer(
      { url: spec.target.url, headers: { ...spec.target.headers } },
      { auth: { ...auth, signIn } },
    );
    await connection.close().catch(() => {});
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    io.stderr(
      `${PREFIX}: the sign-in to ${spec.name} did not complete: ${reason}${error instanceof McpSignInError ? '' : ' Run the command again to retry.'}\n`,
    );
    return 1;
  } finally {
    await signIn.close();
  }
  const kept = await store.read(spec.name, LOCAL_PRINCIPAL);
  if (!visited) {
    io.stdout(
      kept?.tokens
        ? `${spec.name} is signed in already: the sign-in kept in ${file} still works. To sign in as someone else, run toolpact gateway logout ${spec.name} first.\n`
        : `${spec.name} let toolpact in without a sign-in, so nothing was stored.\n`,
    );
    return 0;
  }
  if (!kept?.tokens) {
    io.stderr(
      `${PREFIX}: the sign-in to ${spec.name} came back, but no token was stored. Run the command again.\n`,
    );
    return 1;
  }
  io.stdout(
    `Signed in to ${spec.name}. The sign-in is kept, encrypted, in ${file}; a running gateway uses it from its next call.\n`,
  );
  return 0;
}

/** `--timeout <seconds>`: how long to wait for the browser (default 300). */
function timeoutOf(value: string | boolean | undefined): number {
  if (value === undefined) return 300_000;
  const seconds = typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3_600) {
    throw new UsageError(
      `--timeout takes a whole number of seconds from 1 to 3600, received "${String(value)}".`,
    );
  }
  return seconds * 1_000;
}
