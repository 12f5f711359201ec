/**
 * toolpact: tools as API contracts for LLM agents.
 *
 * The root entry is light: the contract, `defineTool`, the `Registry` and the envelope types.
 * Heavier parts sit behind subpaths.
 */

export {
  type AudioBlock,
  type BlobResourceContents,
  CONTENT_BLOCK_TYPES,
  type ContentBlock,
  type ContentType,
  content,
  DEFAULT_MAX_BINARY_BYTES,
  type EmbeddedResourceBlock,
  type EmbeddedResourceInit,
  type ImageBlock,
  type ResourceLinkBlock,
  type ResourceLinkInit,
  type TextBlock,
  type TextResourceContents,
  type ToolResult,
  toolResult,
} from './content/index.js';
export {
  CATEGORIES,
  CATEGORY_DEFAULTS,
  type CategoryDefaults,
  explainInvalidToolName,
  isToolCategory,
  type JsonSchema,
  normalizeSchema,
  type Permission,
  type ReturnContract,
  type RiskLevel,
  resolveEffects,
  TOOL_NAME_PATTERN,
  type ToolCategory,
  type ToolContract,
  type ToolEffects,
  type ToolExample,
  WIDE_TOOL_NAME_PATTERN,
} from './contract/index.js';
export { type AnyTool, isTool, type Tool, type ToolExecuteContext, type ToolMeta } from './contract/tool.js';
export {
  type BrokenDefault,
  type DefaultKeyword,
  dropBrokenDefaults,
  findBrokenDefaults,
  type RepairedSchema,
} from './define/broken-defaults.js';
export { type CreateToolOptions, createTool } from './define/create-tool.js';
export {
  definePrompt,
  isPrompt,
  type Prompt,
  type PromptArgumentDefinition,
  type PromptDefinition,
  type PromptGetResult,
} from './define/define-prompt.js';
export {
  defineResource,
  isResource,
  type Resource,
  type ResourceDefinition,
  type ResourceReadResult,
} from './define/define-resource.js';
export {
  type DefineToolOptions,
  defineTool,
  type InferArguments,
  type InferResult,
  type SchemaInput,
  type StandardSchemaWithJson,
} from './define/define-tool.js';
export type { FromJsonSchema } from './define/from-json-schema.js';
export type {
  ContentAnnotations,
  GetPromptResult,
  PromptContent,
  PromptMessage,
  ReadResourceResult,
  ResourceContents,
  WireMeta,
} from './define/mcp-content.js';
export type { Completer, CompletionContext, OfferingMeta, ReadContext } from './define/read-context.js';
export { UriTemplate } from './define/uri-template.js';
export {
  type AbortedError,
  type ApprovalPendingError,
  type Envelope,
  type FailureEnvelope,
  FRAMEWORK_ERROR_TYPES,
  type FrameworkError,
  type FrameworkErrorOf,
  type FrameworkErrorType,
  type InvalidArgumentsError,
  type InvalidJsonError,
  type InvalidResultError,
  isErrorType,
  type PermissionDeniedError,
  type RegistryClosedError,
  type ResultNotSerializableError,
  type SuccessEnvelope,
  type TimeoutError,
  type ToolFailure,
  type Truncation,
  type UnknownToolError,
} from './dispatch/envelope.js';
export type {
  ApprovalAnswer,
  Approver,
  AskHandler,
  BeforeCallHook,
  GateDecision,
  GateRequest,
  GateTarget,
  PauseAnswer,
  PendingApproval,
  ResumedDecision,
  VisibilityHook,
  VisibilityRequest,
} from './dispatch/gate.js';
export type { IssueCode, ValidationIssue } from './dispatch/issues.js';
export { type ArgumentLimits, DEFAULT_ARGUMENT_LIMITS } from './dispatch/parse.js';
export { type Principal, principalKey } from './dispatch/principal.js';
export { type JsonValue, toJsonValue } from './dispatch/serialize.js';
export { isToolError, ToolError, type ToolErrorOptions } from './dispatch/tool-error.js';
export { principalKeyOf, principalOf, type ToolIdentity, toolIdentity } from './dispatch/tool-identity.js';
export type { ResultValidator } from './dispatch/validate-result.js';
export type { ArgumentValidator, ValidationResult } from './dispatch/validation.js';
export {
  type DefinitionErrorCode,
  type DefinitionErrorDetails,
  ToolDefinitionError,
} from './errors/index.js';
export {
  type CallEnd,
  type CallOptions,
  type CallRecord,
  type CallStart,
  type CallWrapper,
  type CompletionReference,
  type CompletionResult,
  type OfferingKind,
  type OwnedResource,
  Registry,
  RegistryCloseError,
  type RegistryOptions,
  type ResultValidation,
} from './registry/registry.js';
export { type RegistryRequestCode, RegistryRequestError } from './registry/request-error.js';
export { toProviderTools } from './schema/to-provider-tools.js';
export {
  PROVIDER_FORMATS,
  type ProviderFormat,
  type ProviderToolMap,
  type ProviderTools,
  type SchemaDiagnostic,
  type SchemaOptions,
} from './schema/types.js';
export {
  type ArgumentPath,
  type CallShape,
  type GeneratedContract,
  type GeneratedContracts,
  type GeneratedTool,
  type ToolMethodDecorator,
  type TypedArguments,
  type TypedToolOptions,
  tool,
  toolsOf,
} from './typed/index.js';
