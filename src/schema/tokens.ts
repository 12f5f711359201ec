import { createRequire } from 'node:module';
import type { ToolContract } from '../contract/index.js';
import { toProviderTools } from './to-provider-tools.js';
import type { ProviderFormat, SchemaOptions } from './types.js';

/**
 * Tokens of `text` under o200k_base (the GPT-4o / GPT-5 family's encoding): a measure of what a tool
 * definition costs in context. Other providers tokenize differently, so read it as a yardstick for
 * comparisons, not as their bill. This module is the only one that loads the tokenizer, on the first count.
 *
 * @example
 * countTokens('{"name":"read_file"}'); // 6
 */
export function countTokens(text: string): number {
  LONG_RUN.lastIndex = 0;
  if (!LONG_RUN.test(text)) return countO200k(text);
  // Byte-pair merging is quadratic in the length of one pre-tokenized piece, and an unbroken run of
  // letters (a 20,000-character word, or Chinese text without punctuation, in a hostile description)
  // would take seconds. Such runs are counted in slices; elsewhere the count is exact.
  let total = 0;
  let last = 0;
  LONG_RUN.lastIndex = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    total += countO200k(text.slice(last, match.index));
    for (let offset = 0; offset < match[0].length; offset += RUN_SLICE) {
      total += countO200k(match[0].slice(offset, offset + RUN_SLICE));
    }
    last = match.index + match[0].length;
  }
  return total + countO200k(text.slice(last));
}

const LONG_RUN = /[\p{L}\p{M}\p{N}]{200,}/gu;
const RUN_SLICE = 100;

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
    // No tools, no `tools` field in the request: nothing to pay for (`[]` alone would count 1).
    total: tools.length === 0 ? 0 : countTokens(JSON.stringify(tools)),
  };
}

let o200k: ((text: string) => number) | undefined;

// The o200k table is megabytes of data: it loads on the first count, so importing `toolpact/schema`
// or `toolpact/lint` does not pay for it. A synchronous require keeps `countTokens` synchronous.
function countO200k(text: string): number {
  o200k ??= (
    createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as {
      countTokens: (text: string) => number;
    }
  ).countTokens;
  return o200k(text);
}
