import { createRequire } from 'node:module';
import type { ToolContract } from '../contract/index.js';
import { toProviderTools } from './to-provider-tools.js';
import type { ProviderFormat, SchemaOptions } from './types.js';

/** The package that counts o200k_base exactly: an optional peer dependency of toolpact. */
export const TOKENIZER_PACKAGE = 'gpt-tokenizer';

type Encode = (text: string) => number;

// Loaded on the first count, not at import: most commands that import the adapters never count.
// `undefined` means not tried yet, `null` that the package is not installed.
let exactCounter: Encode | null | undefined;

function loadExactCounter(): Encode | null {
  if (exactCounter !== undefined) return exactCounter;
  try {
    const loaded = createRequire(import.meta.url)(`${TOKENIZER_PACKAGE}/encoding/o200k_base`) as {
      countTokens: Encode;
    };
    exactCounter = loaded.countTokens;
  } catch (error) {
    // Only its absence means "estimate": a tokenizer that is there but fails to load is a real fault.
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    exactCounter = null;
  }
  return exactCounter;
}

/**
 * How {@link countTokens} counts here: `'exact'` when the optional peer `gpt-tokenizer` is installed
 * (o200k_base, token for token), `'estimated'` otherwise ({@link estimateTokens}, within a few percent
 * on tool definitions). Whatever shows a count says which one it is.
 *
 * @example
 * if (tokenCounting() === 'estimated') console.warn('counts are estimates: npm i gpt-tokenizer');
 */
export function tokenCounting(): 'exact' | 'estimated' {
  return loadExactCounter() ? 'exact' : 'estimated';
}

/**
 * Tokens of `text` under o200k_base (the GPT-4o / GPT-5 family's encoding): a measure of what a tool
 * definition costs in context. Other providers tokenize differently, so read it as a yardstick for
 * comparisons, not as their bill. The count is exact when `gpt-tokenizer` is installed, and
 * {@link estimateTokens} otherwise; {@link tokenCounting} says which.
 *
 * @example
 * countTokens('{"name":"read_file"}'); // 6
 */
export function countTokens(text: string): number {
  const exact = loadExactCounter();
  if (!exact) return estimateTokens(text);
  LONG_RUN.lastIndex = 0;
  if (!LONG_RUN.test(text)) return exact(text);
  // Byte-pair merging is quadratic in the length of one pre-tokenized piece, and an unbroken run of
  // letters (a 20,000-character word, or Chinese text without punctuation, in a hostile description)
  // would take seconds. Such runs are counted in slices; elsewhere the count is exact.
  let total = 0;
  let last = 0;
  LONG_RUN.lastIndex = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    total += exact(text.slice(last, match.index));
    for (let offset = 0; offset < match[0].length; offset += RUN_SLICE) {
      total += exact(match[0].slice(offset, offset + RUN_SLICE));
    }
    last = match.index + match[0].length;
  }
  return total + exact(text.slice(last));
}

const LONG_RUN = /[\p{L}\p{M}\p{N}]{200,}/gu;
const RUN_SLICE = 100;

/**
 * An estimate of the o200k_base token count of `text`, without the tokenizer's 50 MB of merge tables:
 * the text is cut into the pieces the encoder cuts it into before merging (a word with one leading
 * mark, up to three digits, a run of punctuation, a run of spaces), and each piece is priced by its
 * kind and length. On the tool definitions of the BFCL and Seal-Tools corpora (compact JSON) it is off
 * by 2 to 3 % per tool on average, and by less than 1 % over a set (docs/adapters.md, "Token counts").
 * Linear in the length of `text`.
 *
 * @example
 * estimateTokens('{"name":"read_file"}'); // 6
 */
export function estimateTokens(text: string): number {
  let total = 0;
  for (const [piece] of text.matchAll(PIECE)) total += pieceTokens(piece);
  return total;
}

// The encoder's own split, written out by kind: letters (an upper-case run, then lower-case, with one
// leading non-letter such as a space, a quote or an underscore), digits in threes, punctuation with one
// leading space, line breaks, other whitespace.
const PIECE =
  /[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+/gu;
const LETTERS = /[\p{L}\p{M}]/gu;
const NOT_ASCII = /[^\x00-\x7f]/;
const LOWER = /[a-z]/;

// Fitted on BFCL's function definitions and checked on Seal-Tools (bench/token-estimate.ts): an ASCII
// word of up to 10 letters is one token (the vocabulary holds most such words), a longer one one more per
// 5 letters, a run of capitals (an acronym, a protein sequence) one per 3; letters outside ASCII (accents, CJK) go about two to a token; punctuation merges by fours
// (`":{"`, `"},"`).
const WORD_LETTERS = 10;
const LETTERS_PER_TOKEN = 5;
const PUNCTUATION_PER_TOKEN = 4;
const NON_ASCII_LETTERS_PER_TOKEN = 2;
const CAPITALS_PER_TOKEN = 3;

function pieceTokens(piece: string): number {
  const letters = piece.match(LETTERS)?.length ?? 0;
  if (letters > 0) {
    if (NOT_ASCII.test(piece)) return Math.ceil(letters / NON_ASCII_LETTERS_PER_TOKEN);
    if (letters > 4 && !LOWER.test(piece)) return Math.ceil(letters / CAPITALS_PER_TOKEN);
    return letters <= WORD_LETTERS ? 1 : 1 + Math.ceil((letters - WORD_LETTERS) / LETTERS_PER_TOKEN);
  }
  const first = piece.codePointAt(0) ?? 0;
  if (first >= 0x30 && first <= 0x39) return 1;
  if (piece.trim() === '') return 1;
  return Math.ceil(piece.length / PUNCTUATION_PER_TOKEN);
}

/**
 * The sentence that goes with estimated counts wherever they are shown (`toolpact inspect`, `schemas
 * --tokens`, `gateway check`, the studio): what they are and how to get exact ones.
 */
export const ESTIMATED_TOKENS_NOTE =
  'Token counts are estimates (within a few percent on tool definitions): install gpt-tokenizer beside toolpact for exact o200k_base counts.';

/** What a tool set costs in one format. */
export interface TokenReport {
  /** Each tool's JSON, in the order given. */
  readonly perTool: { readonly name: string; readonly tokens: number }[];
  /** The whole `tools` array's JSON. */
  readonly total: number;
  /** `'exact'` when counted with the tokenizer, `'estimated'` without it (see {@link tokenCounting}). */
  readonly counting: 'exact' | 'estimated';
}

/**
 * The token cost of each tool, and of the whole set, in one provider's format: the JSON the adapter
 * produces, counted with {@link countTokens}. Providers wrap definitions in their own prompt text
 * (Anthropic adds a fixed per-request overhead), which is not included.
 *
 * @example
 * const { perTool, total, counting } = tokenReport(registry.schemas(), 'anthropic');
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
    counting: tokenCounting(),
  };
}
