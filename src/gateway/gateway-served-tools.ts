import type { ServedTools } from '../mcp/serve-registry.js';
import type { Gateway } from './gateway.js';

/**
 * A started gateway as `serveRegistry` (in `toolpact/mcp`) serves it: its registry and listing, the
 * tools each server's `alwaysLoaded` names (read again whenever search is set up, as servers come
 * up), `begin` and `ready` from a deferred start, a team gateway's sign-in link, and the gateway's own close.
 *
 * @example
 * const server = await serveRegistry(async (options) => gatewayServedTools(await startGateway({ config, registry: options, deferStart: true, waitForStart: false })));
 */
export function gatewayServedTools(gateway: Gateway): ServedTools {
  return {
    registry: gateway.registry,
    listing: gateway.listing,
    routes: gateway.routes,
    get alwaysLoaded() {
      return alwaysLoadedNames(gateway);
    },
    close: () => gateway.close(),
    begin: () => void gateway.begin(),
    onClient: (client) => gateway.clientConnected(client),
    ready: () => gateway.firstListing(),
  };
}

/** The served names of the tools each server's `alwaysLoaded` asks for (all of them for `true`). */
function alwaysLoadedNames(gateway: Gateway): string[] {
  const names: string[] = [];
  for (const server of gateway.config().servers) {
    const status = gateway.status().find((each) => each.name === server.name);
    if (!status || server.alwaysLoaded === false) continue;
    if (server.alwaysLoaded === true) {
      names.push(...status.served);
      continue;
    }
    for (const remote of server.alwaysLoaded) {
      const tool = gateway.registry
        .list()
        .find((each) => each.meta.server === server.name && each.meta.remoteName === remote);
      if (tool) names.push(tool.contract.name);
    }
  }
  return names;
}
