import type { GatewayConfig } from '../gateway/config/index.js';
import type { CallRecord, RegistryOptions } from '../registry/registry.js';
import type { StudioSource } from './start-studio.js';

/**
 * A studio source of a gateway's tools, as `toolpact gateway` serves them: every server of `config`
 * started, overrides applied, the lock read but never written (changed definitions stay withheld).
 * A definition change is recorded through the gate's observer without holding anything; a store that
 * fails it fails only that record.
 *
 * @example
 * await startStudio({ label: 'mcp.json', kind: 'mcp', load: gatewayStudioSource(config) });
 */
export function gatewayStudioSource(
  config: GatewayConfig,
  options: { readonly log?: (line: string) => void } = {},
): (registryOptions: RegistryOptions) => Promise<StudioSource> {
  return async (registryOptions) => {
    const { startGateway } = await import('../gateway/gateway.js');
    const observe = registryOptions.observe;
    const gateway = await startGateway({
      config,
      pinning: 'read-only',
      registry: registryOptions,
      ...(observe
        ? {
            audit: (record: CallRecord) => {
              void Promise.resolve(observe(record)).catch(() => {});
            },
          }
        : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    return {
      registry: gateway.registry,
      get skipped() {
        return gateway.status().flatMap((server) => server.skipped);
      },
      close: () => gateway.close(),
    };
  };
}
