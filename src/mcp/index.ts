/**
 * `toolpact/mcp`: serve a Registry over MCP (stdio, Streamable HTTP) and import an MCP server's tools
 * into a Registry. This entry loads the MCP SDK's server (`@modelcontextprotocol/server`, v2); its client
 * and HTTP stacks load only when used, and the root entry loads none of it.
 */

export {
  type ApiKeyChecker,
  type ApiKeyEntry,
  ApiKeyFileError,
  type ApiKeyFileProblem,
  hashApiKey,
  loadApiKeys,
  type MintApiKeyOptions,
  mintApiKey,
} from '../auth/api-keys.js';
export {
  ASYMMETRIC_ALGORITHMS,
  type AuthClaimsConfig,
  type AuthConfig,
  AuthConfigError,
  type AuthIntrospectionConfig,
  type AuthIssuerConfig,
  type AuthScopesConfig,
  type AuthStudioConfig,
  DEFAULT_LEEWAY_SECONDS,
  loadAuthConfig,
  type ResolvedAuthConfig,
  type ResolvedIssuer,
  type ResolvedStudioConfig,
  resolveAuthConfig,
} from '../auth/auth-config.js';
export {
  type AuthAccepted,
  type Authenticator,
  type AuthenticatorOptions,
  type AuthOutcome,
  type AuthRefusal,
  createAuthenticator,
  type VerifiedAuthInfo,
} from '../auth/authenticator.js';
export {
  type IntrospectionOptions,
  IntrospectionOptionsError,
  type IntrospectionOutcome,
  introspector,
} from '../auth/introspection.js';
export { upgradeSchema } from '../schema/upgrade-schema.js';
export { type TraceContext, traceContextOf } from '../util/trace-context.js';
export type { ApprovalsApiStore, ServedApproval, ServedApprovalStatus } from './approvals-api.js';
export type { McpClientChannel } from './client-channel.js';
export {
  connectMcpServer,
  DEFAULT_PROBE_TIMEOUT_MS,
  type McpAsked,
  type McpClient,
  type McpConnection,
  type McpConnectOptions,
  type McpElicitationRequest,
  type McpElicitationResult,
  type McpEra,
  type McpPriorDiscovery,
  type McpRootsResult,
  type McpSamplingRequest,
  type McpSamplingResult,
  type McpServerTarget,
  type McpTransport,
} from './connect.js';
export {
  createMcpServer,
  DISCOVER_TTL_MS,
  type McpConnectionTraits,
  type McpServerOptions,
  TOOLS_LIST_TTL_MS,
  type ToolListing,
} from './create-mcp-server.js';
export { type ElicitationApproverOptions, elicitationApprover } from './elicitation-approver.js';
export { type ParsedHost, parseHostHeader } from './host-header.js';
export type { HttpRoute, HttpRouteContext } from './http-route.js';
export {
  type DroppedDefault,
  type ImportedTool,
  type ImportMcpOptions,
  importMcpTools,
  type McpImport,
  type SkippedTool,
  type UpstreamElicitation,
} from './import-mcp-tools.js';
export type { PrefixMode } from './imported-names.js';
export { effectsFromAnnotations, inferCategory } from './infer-category.js';
export { InputRequiredSignal } from './input-round.js';
export { type LoopbackSignIn, type LoopbackSignInOptions, loopbackSignIn } from './oauth/loopback.js';
export {
  type McpOAuth,
  type McpSignInDriver,
  McpSignInError,
  McpSignInRequiredError,
} from './oauth/oauth-provider.js';
export {
  defaultTokenFile,
  type FileTokenStoreOptions,
  fileTokenStore,
  type McpSignInRecord,
  type McpTokenStore,
  memoryTokenStore,
  TokenStoreError,
} from './oauth/token-store.js';
export {
  checkRequestOrigin,
  isLoopbackHost,
  type OriginPolicy,
  type OriginRefusal,
  type OriginRefusalReason,
} from './origin-check.js';
export { mcpTargetFromArgument, registryFromMcp } from './registry-from-mcp.js';
export { type InputOptions, type McpRequestContext, mcpContextOf } from './request-context.js';
export {
  MemoryUsedStateStore,
  type RequestStateBinding,
  type RequestStateBindingField,
  RequestStateKeyError,
  type RequestStateOpened,
  type RequestStateOptions,
  type RequestStateRefusal,
  type RequestStateRefusalCode,
  RequestStateSealer,
  type UsedStateClaim,
  type UsedStateStore,
} from './request-state.js';
export {
  type HttpServeOptions,
  INSECURE_WARNING_HEADER,
  type RunningHttpServer,
  serveHttp,
} from './serve-http.js';
export {
  type RegistryServer,
  type ServedTools,
  type ServedToolsBuilder,
  ServeRegistryError,
  type ServeRegistryErrorCode,
  type ServeRegistryOptions,
  type ServingStore,
  type ServingTelemetry,
  serveRegistry,
} from './serve-registry.js';
export { type RunningStdioServer, type StdioServeOptions, serveStdio } from './serve-stdio.js';
export { clientOf } from './session-limits.js';
