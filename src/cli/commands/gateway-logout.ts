import { LOCAL_PRINCIPAL } from '../../mcp/oauth/oauth-provider.js';
import { parseArgs } from '../args.js';
import { type GatewaySubcommand, readConfig } from '../gateway-options.js';
import { signingServer } from '../gateway-sign-in.js';
import { UsageError } from '../io.js';

/**
 * `toolpact gateway logout <server>`: forgets the sign-in kept for a remote server. A running gateway
 * answers `auth_required` for its tools from its next call.
 *
 * @example
 * // toolpact gateway logout github --config mcp.json
 * await execute(['gateway', 'logout', 'github', '--config', 'mcp.json'], io);
 */
export const logout: GatewaySubcommand = async (args, io) => {
  const { positionals, flags } = parseArgs(args, { config: 'string', store: 'string' });
  if (positionals.length > 1)
    throw new UsageError(`Unexpected arguments: ${positionals.slice(1).join(' ')}.`);
  const config = await readConfig(flags.config, io);
  const { spec, store, file, close } = await signingServer(config, positionals[0], 'logout', io, flags.store);
  try {
    const removed = await store.remove(spec.name, LOCAL_PRINCIPAL);
    io.stdout(
      removed
        ? `Signed out of ${spec.name}: its sign-in was removed from ${file}. Its tools answer auth_required until you run toolpact gateway login ${spec.name} again.\n`
        : `No sign-in to ${spec.name} is kept in ${file}; nothing to forget.\n`,
    );
  } finally {
    await close();
  }
  return 0;
};
