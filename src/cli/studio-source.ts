import { dirname, isAbsolute, resolve } from 'node:path';
import { AuthConfigError, loadAuthConfig, type ResolvedAuthConfig } from '../auth/auth-config.js';
import type { Policy } from '../policy/policy.js';
import { Registry } from '../registry/registry.js';
import type { StudioOptions } from '../studio/index.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { closeWithin, ownLoaded } from './lifecycle.js';
import { loadRegistry } from './load-module.js';

/** What `toolpact studio` shows and how it signs people in, from its arguments. */

/**
 * What the studio shows, from the module, `--gateway` or `--mcp`/`--url` argument: its label, the
 * policy its page gates with, how each load builds the registry, and what to close if it never starts.
 */
export async function studioSource(
  modulePath: string | undefined,
  flags: { readonly [name: string]: string | boolean | undefined },
  policy: Policy,
  io: CliIo,
): Promise<
  Pick<StudioOptions, 'label' | 'kind' | 'load' | 'watch'> & { policy: Policy; abandon?: () => Promise<void> }
> {
  if (modulePath !== undefined) {
    // Loaded once here, so a module that cannot load is a usage error before anything listens.
    let first: Registry | undefined = await loadRegistry(modulePath, io.cwd);
    const absolute = isAbsolute(modulePath) ? modulePath : resolve(io.cwd, modulePath);
    return {
      label: modulePath,
      kind: 'module',
      policy,
      watch: [dirname(absolute)],
      load: async (options) => {
        const loaded = first ?? (await loadRegistry(modulePath, io.cwd));
        first = undefined;
        // Each load is a fresh copy of the module: closing the studio's registry closes that copy's
        // registry, with its MCP connections, when a reload replaces it or the studio stops.
        const registry = ownLoaded(new Registry(options), loaded).register(loaded.list());
        return { registry, close: () => closeWithin(registry, io, 'studio') };
      },
      // A studio that never started never took the first load.
      abandon: () => closeWithin(first, io, 'studio'),
    };
  }
  if (typeof flags.gateway === 'string') {
    const file = resolve(io.cwd, flags.gateway);
    const [{ readGatewayConfig, GatewayConfigError }, { gatewayStudioSource }] = await Promise.all([
      import('../gateway/config/index.js'),
      import('../studio/gateway-source.js'),
    ]);
    let config: Awaited<ReturnType<typeof readGatewayConfig>>;
    try {
      config = readGatewayConfig(file, { env: io.env });
    } catch (error) {
      if (error instanceof GatewayConfigError) throw new UsageError(error.message);
      throw error;
    }
    return {
      label: flags.gateway,
      kind: 'mcp',
      // The policy the page gates with: --policy, else the gateway config's own, else the defaults.
      policy: typeof flags.policy === 'string' ? policy : (config.policy ?? policy),
      // A viewer: it reads the lock (changed definitions stay withheld) and never writes it.
      load: gatewayStudioSource(config, { log: (line) => io.stderr(`toolpact studio: ${line}\n`) }),
    };
  }
  const argument = (flags.mcp ?? flags.url) as string;
  const [{ mcpTargetFromArgument }, { mcpStudioSource }] = await Promise.all([
    import('../mcp/index.js'),
    import('../studio/index.js'),
  ]);
  return {
    label: argument,
    kind: 'mcp',
    policy,
    load: mcpStudioSource(mcpTargetFromArgument(argument, io.cwd)),
  };
}

/** The `--auth` file, which must name the studio's client (`studio`). */
export function studioAuth(file: string): ResolvedAuthConfig {
  let config: ResolvedAuthConfig;
  try {
    config = loadAuthConfig(file);
  } catch (error) {
    if (error instanceof AuthConfigError) throw new UsageError(`--auth: ${error.message}`);
    throw error;
  }
  if (!config.studio) {
    throw new UsageError(
      `--auth: ${file} has no "studio" section, so the studio cannot sign anyone in. Add { "studio": { "clientId": "…" } } naming the studio's client at ${config.issuers[0]!.issuer} (see docs/studio.md).`,
    );
  }
  return config;
}
