/**
 * `toolpact/gateway`: every MCP server of a host's config (Claude Desktop, Claude Code, Cursor, VS
 * Code) behind one registry, with the gate, the lock of pinned definitions, supervision and sandboxes.
 * `toolpact gateway` is this, over stdio or HTTP; see docs/gateway.md.
 *
 * @example
 * import { readGatewayConfig, startGateway } from 'toolpact/gateway';
 * import { serveStdio } from 'toolpact/mcp';
 * const gateway = await startGateway({ config: readGatewayConfig('.mcp.json') });
 * await serveStdio(gateway.registry, { listing: gateway.listing });
 */
export {
  exposedGatewayFiles,
  type GatewayConfig,
  GatewayConfigError,
  type GatewayConfigErrorCode,
  type GatewayServer,
  gatewayFiles,
  parseGatewayConfig,
  readGatewayConfig,
} from './config/index.js';
export { type Gateway, type GatewayOptions, type GatewayServerStatus, startGateway } from './gateway.js';
export type { RestartPolicy, UpstreamCall, UpstreamCallWrapper } from './upstream.js';
