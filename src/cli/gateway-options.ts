/** The options `toolpact gateway` and its `init`, `pin` and `check` subcommands share. */
import { resolve } from 'node:path';
import type { GatewayConfig } from '../gateway/config/index.js';
import type { Gateway, GatewayServerStatus } from '../gateway/gateway.js';
import { checkGatewayPolicy } from '../gateway/gateway-policy.js';
import type { McpTokenStore } from '../mcp/oauth/token-store.js';
import { definePolicy } from '../policy/define-policy.js';
import { loadPolicyFile } from '../policy/load-policy.js';
import type { Policy } from '../policy/policy.js';
import { PolicyError } from '../policy/policy-error.js';
import type { PostgresStore } from '../store/index.js';
import { counted } from '../util/counted.js';
import type { CliIo, ExitCode } from './io.js';
import { InputError, UsageError } from './io.js';

/**
 * What `toolpact gateway` hands its `init`, `pin` and `check` subcommands: how it starts every server
 * once (no watching, no restarts worth waiting for) and installs the packages of sandboxed `npx` servers.
 */
export interface GatewayOnce {
  readonly startOnce: (
    config: GatewayConfig,
    lock: string | boolean | undefined,
    io: CliIo,
    pinning: 'first-start' | 'read-only',
  ) => Promise<Gateway>;
  readonly installPackages: (config: GatewayConfig, io: CliIo) => Promise<void>;
}

/** One of `gateway init`, `pin` and `check`: its arguments are those after the subcommand's name. */
export type GatewaySubcommand = (args: readonly string[], io: CliIo, once: GatewayOnce) => Promise<ExitCode>;

/** Runs a config read: a config or policy error is an input error, said as its message. */
export function asInput<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof Error && error.name === 'GatewayConfigError') throw new InputError(error.message);
    if (error instanceof PolicyError) throw new InputError(error.message);
    throw error;
  }
}

/** The gateway's config that `--config` names, read and checked; a missing `--config` is a usage error. */
export async function readConfig(file: string | boolean | undefined, io: CliIo): Promise<GatewayConfig> {
  if (typeof file !== 'string') {
    throw new UsageError("Give the gateway's config with --config <file> (a host file such as mcp.json).");
  }
  const { readGatewayConfig } = await import('../gateway/config/index.js');
  return asInput(() => readGatewayConfig(resolve(io.cwd, file), { env: io.env }));
}

/** The policy `--policy` names, else the config's `toolpact.policy`, else no rules (imported tools ask). */
export function choosePolicy(file: string | boolean | undefined, config: GatewayConfig, io: CliIo): Policy {
  try {
    if (typeof file === 'string') return checkGatewayPolicy(loadPolicyFile(resolve(io.cwd, file)), file);
  } catch (error) {
    if (error instanceof PolicyError) throw new InputError(error.message);
    throw error;
  }
  return config.policy ?? definePolicy({ rules: [] });
}

/** `--lock <file>` as the gateway's `lockFile` option, resolved against the working directory. */
export function lockOption(lock: string | boolean | undefined, io: CliIo): { lockFile?: string } {
  return typeof lock === 'string' ? { lockFile: resolve(io.cwd, lock) } : {};
}

/** `--lock`, `--policy` and `--audit` name gateway files too: no sandbox grant may hold one. */
export async function refuseExposedFlags(
  config: GatewayConfig,
  flags: { readonly [name: string]: string | boolean | undefined },
  io: CliIo,
): Promise<void> {
  const given: { lock?: string; policy?: string; audit?: string } = {};
  for (const name of ['lock', 'policy', 'audit'] as const) {
    const value = flags[name];
    if (typeof value === 'string') given[name] = resolve(io.cwd, value);
  }
  if (Object.keys(given).length === 0) return;
  const { gatewayFiles, refuseGrantsOverGatewayFiles } = await import('../gateway/config/index.js');
  const files = gatewayFiles(config, given).filter(
    (file) => given[file.role as keyof typeof given] === file.path,
  );
  asInput(() =>
    refuseGrantsOverGatewayFiles(config, files, undefined, (file) => `${file.path} (--${file.role})`),
  );
}

/** The line the gateway prints once started: how many servers are up, and the state of the others. */
export function summaryLine(status: readonly GatewayServerStatus[]): string {
  const up = status.filter((server) => server.state === 'up');
  const rest = status.filter((server) => server.enabled && server.state !== 'up');
  return `toolpact gateway: ${up.length} of ${counted(status.filter((server) => server.enabled).length, 'server')} up${
    rest.length > 0 ? ` (${rest.map((server) => `${server.name}: ${server.state}`).join(', ')})` : ''
  }.\n`;
}

/**
 * With `--store`, the sign-ins to remote servers are kept in the shared store, so that every replica
 * uses the ones made through any of them; it needs `TOOLPACT_TOKEN_KEY` (or `TOOLPACT_STATE_KEY`)
 * only when a server signs in. Without `--store`, the gateway keeps its token file.
 */
export async function sharedTokens(
  config: GatewayConfig,
  store: PostgresStore | undefined,
  io: CliIo,
): Promise<{ tokens?: McpTokenStore }> {
  if (!store || !config.servers.some((server) => server.target.kind !== 'stdio' && server.target.oauth))
    return {};
  const [{ postgresTokenStore }, { TokenStoreError }] = await Promise.all([
    import('../store/index.js'),
    import('../util/token-seal.js'),
  ]);
  try {
    return { tokens: postgresTokenStore(store, { env: io.env }) };
  } catch (error) {
    throw error instanceof TokenStoreError ? new UsageError(`--store: ${error.message}`) : error;
  }
}
