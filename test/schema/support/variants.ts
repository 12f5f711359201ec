import type { ProviderFormat, SchemaOptions } from '../../../src/schema/index.js';

/** The provider targets the conformance suite checks: every format, and strict mode where it exists. */
export interface Variant {
  readonly id: string;
  readonly format: ProviderFormat;
  readonly options: SchemaOptions;
}

export const VARIANTS: readonly Variant[] = [
  { id: 'canonical', format: 'canonical', options: {} },
  { id: 'openai', format: 'openai', options: {} },
  { id: 'openai-strict', format: 'openai', options: { strict: true } },
  { id: 'openai-responses', format: 'openai-responses', options: {} },
  { id: 'openai-responses-strict', format: 'openai-responses', options: { strict: true } },
  { id: 'anthropic', format: 'anthropic', options: {} },
  { id: 'anthropic-strict', format: 'anthropic', options: { strict: true } },
  { id: 'gemini', format: 'gemini', options: {} },
  { id: 'gemini-json-schema', format: 'gemini', options: { gemini: 'json-schema' } },
  { id: 'mcp', format: 'mcp', options: {} },
];
