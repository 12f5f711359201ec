/** What `gateway login` and `gateway logout` share: the server named, checked, and the token store. */
import type { GatewayConfig, GatewayServer, RemoteTarget } from '../gateway/config/index.js';
import type { McpTokenStore } from '../mcp/oauth/token-store.js';
import { type CliIo, InputError, UsageError } from './io.js';

/** A remote server that signs in, with the store its sign-in is kept in. */
export interface SigningServer {
  readonly spec: GatewayServer & { readonly target: RemoteTarget };
  readonly store: McpTokenStore;
  /** The token file, absolute. */
  readonly file: string;
}

/**
 * The server `name` of the config, when it is one that signs in with OAuth; otherwise an error that says
 * why not (no name, an unknown server, one left out of the gateway, a stdio server, an `Authorization`
 * header in its entry).
 *
 * @example
 * const { spec, store } = await signingServer(config, positionals[0], 'login', io);
 */
export async function signingServer(
  config: GatewayConfig,
  name: string | undefined,
  command: 'login' | 'logout',
  io: CliIo,
): Promise<SigningServer> {
  if (name === undefined) {
    throw new UsageError(`Name the server: toolpact gateway ${command} <server> --config ${config.file}.`);
  }
  const spec = config.servers.find((server) => server.name === name);
  if (spec === undefined) {
    const skipped = config.skipped.find((entry) => entry.name === name);
    if (skipped) throw new InputError(`"${name}" is left out of the gateway: ${skipped.reason}`);
    const names = config.servers.map((server) => `"${server.name}"`).join(', ') || 'none';
    throw new InputError(`"${name}" is not a server of ${config.file}. Its servers: ${names}.`);
  }
  const target = spec.target;
  if (target.kind === 'stdio') {
    throw new InputError(
      `"${name}" is a stdio server, which the gateway starts itself: it has nothing to sign in to. Only remote (http) servers sign in.`,
    );
  }
  if (target.oauth === undefined || config.tokens === undefined) {
    throw new InputError(
      `"${name}" sends an Authorization header from its entry in ${config.file}, so it does not sign in. Remove the header to sign in with OAuth instead.`,
    );
  }
  const { fileTokenStore } = await import('../mcp/oauth/token-store.js');
  return {
    spec: { ...spec, target },
    store: fileTokenStore(config.tokens, { env: io.env }),
    file: config.tokens,
  };
}
