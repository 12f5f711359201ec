/**
 * `toolpact/mcp`: serve a Registry over MCP (stdio, Streamable HTTP) and import an MCP server's tools
 * into a Registry. This entry loads `@modelcontextprotocol/sdk`; the root entry never does.
 */
export { connectMcpServer, type McpConnection, type McpServerTarget } from './connect.js';
export {
  createMcpServer,
  type McpConnectionTraits,
  type McpServerOptions,
  type ToolListing,
} from './create-mcp-server.js';
export { type ElicitationApproverOptions, elicitationApprover } from './elicitation-approver.js';
export {
  type DroppedDefault,
  type ImportedTool,
  type ImportMcpOptions,
  importMcpTools,
  type McpImport,
  type SkippedTool,
} from './import-mcp-tools.js';
export { type NamePlan, type PrefixMode, planNames, serverSlug } from './imported-names.js';
export { effectsFromAnnotations, inferCategory } from './infer-category.js';
export { checkRequestOrigin, isLoopbackHost, type OriginPolicy, type OriginRefusal } from './origin-check.js';
export { mcpTargetFromArgument, registryFromMcp } from './registry-from-mcp.js';
export { type McpRequestContext, mcpContextOf } from './request-context.js';
export { type HttpServeOptions, type RunningHttpServer, serveHttp } from './serve-http.js';
export { type RunningStdioServer, type StdioServeOptions, serveStdio } from './serve-stdio.js';
export { splitCommandLine } from './split-command-line.js';
export { upgradeSchema } from './upgrade-schema.js';
