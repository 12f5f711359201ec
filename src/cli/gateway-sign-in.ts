/** What `gateway login` and `gateway logout` share: the server named, checked, and the token store. */
import type { GatewayConfig, GatewayServer, RemoteTarget } from '../gateway/config/index.js';
import type { McpTokenStore } from '../mcp/oauth/token-store.js';
import { type CliIo, InputError, UsageError } from './io.js';

/** A remote server that signs in, with the store its sign-in is kept in. */
export interface SigningServer {
  readonly spec: GatewayServer & { readonly target: RemoteTarget };
  readonly store: McpTokenStore;
  /** Where the sign-in is kept, for messages: the token file, or the shared store. */
  readonly file: string;
  /** Closes the shared store, when one was opened. */
  close(): Promise<void>;
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
  storeFlag?: string | boolean,
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
  // A fleet keeps sign-ins in the shared store (--store or TOOLPACT_STORE), where every replica reads them.
  const url = typeof storeFlag === 'string' ? storeFlag : io.env.TOOLPACT_STORE;
  if (url !== undefined && url !== '') {
    const [{ openPostgresStore, postgresTokenStore, StoreError }, { TokenStoreError }] = await Promise.all([
      import('../store/index.js'),
      import('../util/token-seal.js'),
    ]);
    const shared = await openPostgresStore(url).catch((error: unknown) => {
      throw error instanceof StoreError ? new UsageError(error.message) : error;
    });
    try {
      return {
        spec: { ...spec, target },
        store: postgresTokenStore(shared, { env: io.env }),
        file: 'the shared store',
        close: () => shared.close(),
      };
    } catch (error) {
      await shared.close();
      throw error instanceof TokenStoreError ? new InputError(error.message) : error;
    }
  }
  const { fileTokenStore } = await import('../mcp/oauth/token-store.js');
  return {
    spec: { ...spec, target },
    store: fileTokenStore(config.tokens, { env: io.env }),
    file: config.tokens,
    close: async () => {},
  };
}
