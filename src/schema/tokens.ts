import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import type { ToolContract } from '../contract/index.js';
import { toProviderTools } from './to-provider-tools.js';
import type { ProviderFormat, SchemaOptions } from './types.js';

/**
 * Tokens of `text` under o200k_base (the GPT-4o / GPT-5 family's encoding): a measure of what a tool
 * definition costs in context. Other providers tokenize differently, so read it as a yardstick for
 * comparisons, not as their bill. This module is the only one that loads the tokenizer.
 *
 * @example
 * countTokens('{"name":"read_file"}'); // 6
 */
export function countTokens(text: string): number {
  return countO200k(text);
}

/** What a tool set costs in one format. */
export interface TokenReport {
  /** Each tool's JSON, in the order given. */
  readonly perTool: { readonly name: string; readonly tokens: number }[];
  /** The whole `tools` array's JSON. */
  readonly total: number;
}

/**
 * The token cost of each tool, and of the whole set, in one provider's format: the JSON the adapter
 * produces, counted with {@link countTokens}. Providers wrap definitions in their own prompt text
 * (Anthropic adds a fixed per-request overhead), which is not included.
 *
 * @example
 * const { perTool, total } = tokenReport(registry.schemas(), 'anthropic');
 */
export function tokenReport(
  contracts: readonly ToolContract[],
  format: ProviderFormat,
  options?: SchemaOptions,
): TokenReport {
  const { tools } = toProviderTools(contracts, format, options);
  return {
    perTool: tools.map((tool, index) => ({
      name: contracts[index]!.name,
      tokens: countTokens(JSON.stringify(tool)),
    })),
    total: countTokens(JSON.stringify(tools)),
  };
}
