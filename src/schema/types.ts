import type { JsonSchema, ToolContract } from '../contract/index.js';

/** The wire formats the adapters produce. `canonical` is the contract itself. */
export type ProviderFormat = 'canonical' | 'openai' | 'openai-responses' | 'anthropic' | 'gemini' | 'mcp';

/**
 * Every format, in a stable order (for the CLI, docs and meta-tests).
 *
 * @example
 * for (const format of PROVIDER_FORMATS) console.log(format, tokenReport(contracts, format).total);
 */
export const PROVIDER_FORMATS: readonly ProviderFormat[] = Object.freeze([
  'canonical',
  'openai',
  'openai-responses',
  'anthropic',
  'gemini',
  'mcp',
]);

/**
 * True when `value` names a format.
 *
 * @example
 * isProviderFormat('gemini'); // true
 */
export function isProviderFormat(value: unknown): value is ProviderFormat {
  return typeof value === 'string' && (PROVIDER_FORMATS as readonly string[]).includes(value);
}

/**
 * Something an adapter could not carry exactly. `error`: the provider will refuse the tool, or would
 * constrain the model to values the contract does not allow. `warning`: the tool works, but the model is
 * told less precisely than the contract says (the rest is in the description as words, and arguments are
 * still validated against the contract). `info`: an exact rewrite or a harmless omission, said for the record.
 */
export interface SchemaDiagnostic {
  readonly severity: 'error' | 'warning' | 'info';
  /** The contract's name (not the provider alias). */
  readonly tool: string;
  /** Where in the contract, as a JSON path: `$.parameters.properties.path.format`. */
  readonly path: string;
  readonly code: string;
  readonly message: string;
  readonly format: ProviderFormat;
}

/** How much of the return contract goes out. */
export type ReturnsMode =
  /** The provider's own slot where it has one (MCP `outputSchema`, Responses `output_schema`, Gemini `response`), otherwise a line in the description. */
  | 'auto'
  /** Only a line in the description ("Returns: …"), whatever the provider offers. */
  | 'description'
  /** Nothing about the result. */
  | 'omit';

/** Options of the adapters. Every option has a default; none is provider-specific in its name only. */
export interface SchemaOptions {
  /**
   * OpenAI (`openai`, `openai-responses`) and Anthropic: emit `strict: true` and the schema subset strict
   * mode accepts. Default false (`strict: false` is still sent explicitly, because the Responses API
   * otherwise tries strict mode on its own).
   */
  readonly strict?: boolean;
  /** Gemini: `parameters` (the OpenAPI subset, default; works on every surface, the Live API too) or `parametersJsonSchema`. */
  readonly gemini?: 'parameters' | 'json-schema';
  /** See {@link ReturnsMode}; default `auto`. */
  readonly returns?: ReturnsMode;
  /** Anthropic: send the contract's examples as `input_examples` (default true). */
  readonly examples?: boolean;
  /**
   * MCP: state the dialect (`"$schema": "https://json-schema.org/draft/2020-12/schema"`) in `inputSchema`
   * and `outputSchema`. Default false: since revision 2025-11-25 a schema without `$schema` is read as
   * draft 2020-12, so the line only costs tokens; turn it on for a client that guesses another dialect.
   */
  readonly dialect?: boolean;
  /**
   * Anthropic: the tools to send with `defer_loading: true`, found by Anthropic's tool search server tool
   * instead of being shown up front (`withToolSearch(...).anthropicNative()` sets it). Other formats have
   * no such field and ignore it.
   */
  readonly deferLoading?: readonly string[];
}

/** Chat Completions: `tools[]` of a request. */
export interface OpenAIChatTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters?: JsonSchema;
    readonly strict: boolean;
  };
}

/** Responses API: a flat function tool. */
export interface OpenAIResponsesTool {
  readonly type: 'function';
  readonly name: string;
  readonly description?: string;
  readonly parameters: JsonSchema;
  readonly strict: boolean;
  readonly output_schema?: JsonSchema;
}

/** Anthropic Messages API: a custom tool. */
export interface AnthropicTool {
  readonly name: string;
  readonly description?: string;
  readonly input_schema: JsonSchema & { readonly type: 'object' };
  readonly strict?: boolean;
  readonly input_examples?: { readonly [name: string]: unknown }[];
  readonly defer_loading?: boolean;
}

/** Gemini's OpenAPI-subset `Schema` (int64 fields as strings, as the proto's JSON mapping has them). */
export interface GeminiSchema {
  readonly type?: 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT' | 'NULL';
  readonly format?: string;
  readonly title?: string;
  readonly description?: string;
  readonly nullable?: boolean;
  readonly enum?: string[];
  readonly default?: unknown;
  readonly example?: unknown;
  readonly properties?: { readonly [name: string]: GeminiSchema };
  readonly required?: string[];
  readonly minProperties?: string;
  readonly maxProperties?: string;
  readonly items?: GeminiSchema;
  readonly minItems?: string;
  readonly maxItems?: string;
  readonly minLength?: string;
  readonly maxLength?: string;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly anyOf?: GeminiSchema[];
}

/** Gemini: one entry of `tools[0].functionDeclarations`. */
export interface GeminiFunctionDeclaration {
  readonly name: string;
  readonly description?: string;
  readonly parameters?: GeminiSchema;
  readonly parametersJsonSchema?: JsonSchema;
  readonly response?: GeminiSchema;
  readonly responseJsonSchema?: JsonSchema;
}

/** MCP (2025-11-25): the `Tool` object of `tools/list`. */
export interface McpToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: JsonSchema & { readonly type: 'object' };
  readonly outputSchema?: JsonSchema & { readonly type: 'object' };
  /** Only the hints that differ from the spec's defaults (see `mcpAnnotations`); left out when none does. */
  readonly annotations?: McpToolAnnotations;
}

/** MCP `ToolAnnotations`: hints for the client, each with a default the spec states. */
export interface McpToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** The tool type of each format. */
export interface ProviderToolMap {
  readonly canonical: ToolContract;
  readonly openai: OpenAIChatTool;
  readonly 'openai-responses': OpenAIResponsesTool;
  readonly anthropic: AnthropicTool;
  readonly gemini: GeminiFunctionDeclaration;
  readonly mcp: McpToolDefinition;
}

/** What an adapter answers: the tools in the provider's shape, and everything it could not carry. */
export interface ProviderTools<F extends ProviderFormat = ProviderFormat> {
  readonly tools: ProviderToolMap[F][];
  readonly diagnostics: SchemaDiagnostic[];
}
