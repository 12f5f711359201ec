/**
 * The gateway's config: a host's own MCP file (Claude Desktop, Claude Code, Cursor, VS Code) with
 * toolpact's settings in its `"toolpact"` key, read and checked into a {@link GatewayConfig}.
 *
 * @example
 * const config = readGatewayConfig('.mcp.json');
 * for (const server of config.servers) console.log(server.name, server.target.kind);
 */
export { GatewayConfigError, type GatewayConfigErrorCode } from './error.js';
export {
  defaultLockOf,
  type ExposedGatewayFile,
  exposedGatewayFiles,
  type GatewayFile,
  gatewayFiles,
  isWithin,
  refuseGrantsOverGatewayFiles,
} from './own-files.js';
export {
  type GatewayConfigOptions,
  parseGatewayConfig,
  readGatewayConfig,
  readHostText,
} from './read-config.js';
export type {
  GatewayConfig,
  GatewayOAuth,
  GatewaySandbox,
  GatewayServer,
  HostDialect,
  RemoteTarget,
  StdioTarget,
  ToolOverride,
} from './types.js';
