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
  type ExposedGatewayFile,
  exposedGatewayFiles,
  type GatewayConfig,
  GatewayConfigError,
  type GatewayConfigErrorCode,
  type GatewayConfigOptions,
  type GatewayFile,
  type GatewaySandbox,
  type GatewayServer,
  gatewayFiles,
  type HostDialect,
  parseGatewayConfig,
  type RemoteTarget,
  readGatewayConfig,
  readHostText,
  type StdioTarget,
  type ToolOverride,
} from './config/index.js';
export { describeDiff } from './description-diff.js';
export {
  DEFINITION_CHANGED,
  defaultLockFile,
  type Gateway,
  type GatewayOptions,
  type GatewayServerStatus,
  type NameCollision,
  startGateway,
  type WithheldTool,
} from './gateway.js';
export {
  type ChangedTool,
  compareTools,
  definitionDigest,
  type GatewayLock,
  type LockedServer,
  type LockedTool,
  lockEntry,
  pinServer,
  type ToolComparison,
} from './lock.js';
export { LockFileError, readLock, writeLock } from './lock-file.js';
export {
  defaultNpxCacheDir,
  installNpxPackage,
  type NpxResolution,
  resolveNpxCommand,
} from './npx.js';
export {
  findBubblewrap,
  type SandboxedCommand,
  SandboxUnavailableError,
  sandboxedCommand,
} from './sandbox-server.js';
export {
  DEFAULT_RESTART_POLICY,
  type RestartPolicy,
  type UpstreamCall,
  type UpstreamCallWrapper,
  type UpstreamState,
  type UpstreamStatus,
} from './upstream.js';
