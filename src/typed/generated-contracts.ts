import type { JsonSchema, ReturnContract, ToolCategory, ToolExample } from '../contract/index.js';

/** The version of the generated-module layout; a module of another version must be generated again. */
export const GENERATED_FORMAT = 1;

/**
 * Where a value sits inside the arguments: property names, tuple positions, and `null` for "every item of
 * an array or every value of a record".
 */
export type ArgumentPath = readonly (string | number | null)[];

/**
 * How the arguments object is handed to the function: spread back into positional parameters in the
 * order given, or passed whole as the one object parameter. `context` says whether the function takes
 * the {@link ToolExecuteContext} as its last parameter.
 */
export type CallShape =
  | { readonly style: 'positional'; readonly parameters: readonly string[]; readonly context: boolean }
  | { readonly style: 'object'; readonly context: boolean };

/** The contract part that `toolpact gen` reads from the source: everything but the run-time options. */
export interface GeneratedContract {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** From `@category` or a literal `category` option; the option given at run time wins. */
  readonly category?: ToolCategory;
  readonly parameters: JsonSchema;
  readonly returns?: ReturnContract;
  readonly examples?: readonly ToolExample[];
}

/** One type-first tool as `toolpact gen` wrote it. */
export interface GeneratedTool {
  readonly contract: GeneratedContract;
  readonly call: CallShape;
  /** Arguments declared as `Date`: sent as `date-time` strings, converted to `Date` before the call. */
  readonly dates?: readonly ArgumentPath[];
  /** The declaring file, relative to the generated module. */
  readonly source: string;
}

/**
 * What a module written by `toolpact gen` exports by default: the contracts of every type-first tool it
 * found, keyed by tool name, and a hash of the declarations they were generated from.
 *
 * @example
 * import contracts from './contracts.generated.js';
 * export const readFile = tool(read_file, { category: 'read', contracts });
 */
export interface GeneratedContracts {
  readonly format: number;
  /** `sha256:` and the hex digest of the declarations (signatures, doc comments, referenced types). */
  readonly inputsHash: string;
  /** The files scanned, relative to the generated module. */
  readonly sources: readonly string[];
  readonly tools: { readonly [name: string]: GeneratedTool };
}
