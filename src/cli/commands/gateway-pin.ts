import { counted } from '../../util/counted.js';
import { parseArgs } from '../args.js';
import { type GatewaySubcommand, readConfig } from '../gateway-options.js';
import { UsageError } from '../io.js';
import { closeWithin } from '../lifecycle.js';

/**
 * `toolpact gateway pin`: starts each server once and records its current tool definitions in the lock.
 *
 * @example
 * // toolpact gateway pin --config mcp.json --accept notes/echo
 * await execute(['gateway', 'pin', '--config', 'mcp.json', '--accept', 'notes/echo'], io);
 */
export const pin: GatewaySubcommand = async (args, io, once) => {
  const { positionals, flags } = parseArgs(args, { config: 'string', lock: 'string', accept: 'string' });
  if (positionals.length > 0) throw new UsageError(`Unexpected arguments: ${positionals.join(' ')}.`);
  const accept = typeof flags.accept === 'string' ? flags.accept.split(',').map((key) => key.trim()) : [];
  const malformed = accept.find((key) => !/^[^/]+\/.+$/.test(key));
  if (malformed !== undefined) {
    throw new UsageError(
      `--accept takes <server>/<tool> (comma-separated), as gateway check names a withheld tool, received "${malformed}".`,
    );
  }
  const config = await readConfig(flags.config, io);
  const gateway = await once.startOnce(config, flags.lock, io, 'first-start');
  try {
    gateway.pin({ accept });
    const status = gateway.status();
    for (const server of status) {
      io.stdout(
        server.state === 'up'
          ? `${server.name}: pinned ${counted(server.tools, 'tool')} (${server.era === 'modern' ? 'revision 2026-07-28' : 'legacy era'}).\n`
          : `${server.name}: not pinned: ${server.state}${server.reason ? ` (${server.reason})` : ''}.\n`,
      );
    }
    const failed = status.filter((server) => server.enabled && server.state !== 'up');
    return failed.length > 0 ? 1 : 0;
  } finally {
    await closeWithin(gateway, io, 'gateway pin', 'the MCP servers');
  }
};
