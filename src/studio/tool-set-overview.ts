// What `toolpact inspect` shows of a tool set, as data: each contract with its token cost in every
// provider format, what a request costs with tool search, the tools a provider would refuse, and the lint.
import { CATEGORY_DEFAULTS, type ToolContract } from '../contract/index.js';
import { type LintResult, lint } from '../lint/lint.js';
import type { Registry } from '../registry/registry.js';
import { toProviderTools } from '../schema/to-provider-tools.js';
import { tokenReport } from '../schema/tokens.js';
import { SEARCH_TOOL_NAME, withToolSearch } from '../search/with-tool-search.js';
import { STUDIO_FORMATS, type StudioFormat, type TokensByFormat } from './studio-model.js';

/** One row of the contract table. */
export interface ContractRow {
  readonly name: string;
  readonly category: string;
  readonly risk: string;
  readonly permission: string;
  /** Required parameters plain, optional ones ending in `?`. */
  readonly parameters: readonly string[];
  /** Tokens of the tool's definition in each provider format. */
  readonly tokens: TokensByFormat;
}

/** A tool a provider would refuse, and why (from the schema adapters). */
export interface Refusal {
  readonly format: StudioFormat;
  readonly tool: string | undefined;
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

/** What one request costs with tool search against sending every tool, per format. */
export interface SearchCost {
  readonly alwaysLoaded: readonly string[];
  /** Tools sent before any search: the always-loaded ones and `search_tools`. */
  readonly sent: number;
  readonly tokens: {
    readonly [Format in StudioFormat]: { readonly all: number; readonly withSearch: number };
  };
}

/** The overview of a tool set. */
export interface ToolSetOverview {
  /** One row per tool, in registration order. */
  readonly tools: readonly ContractRow[];
  /** What the whole set costs in each format. */
  readonly totals: TokensByFormat;
  /** Undefined when the set already has `search_tools`. */
  readonly search: SearchCost | undefined;
  readonly refusals: readonly Refusal[];
  /** The lint result with the recommended rules. */
  readonly lint: LintResult;
}

/**
 * The overview of a registry: the contract table with tokens per provider format, what a request
 * costs with tool search (the `alwaysLoaded` tools and `search_tools`, measured on a copy, so the
 * registry stays as it is), the tools each provider would refuse, and the lint result.
 *
 * @example
 * const overview = toolSetOverview(registry, ['read_file']);
 * overview.search?.tokens.openai; // { all: 2140, withSearch: 610 }
 */
export function toolSetOverview(registry: Registry, alwaysLoaded: readonly string[]): ToolSetOverview {
  const contracts = registry.schemas();
  const reports = Object.fromEntries(
    STUDIO_FORMATS.map((format) => [format, tokenReport(contracts, format)]),
  ) as {
    [Format in StudioFormat]: ReturnType<typeof tokenReport>;
  };
  const tools = contracts.map((contract, index) =>
    contractRow(contract, (format) => reports[format].perTool[index]?.tokens ?? 0),
  );
  const totals = byFormat((format) => reports[format].total);
  let search: SearchCost | undefined;
  if (!registry.has(SEARCH_TOOL_NAME)) {
    const searching = withToolSearch(registry.subset(contracts.map((contract) => contract.name)), {
      alwaysLoaded,
    });
    const sent = searching.schemas();
    searching.close();
    search = {
      alwaysLoaded,
      sent: sent.length,
      tokens: byFormat((format) => ({ all: totals[format], withSearch: tokenReport(sent, format).total })),
    };
  }
  const refusals: Refusal[] = STUDIO_FORMATS.flatMap((format) =>
    toProviderTools(contracts, format)
      .diagnostics.filter((diagnostic) => diagnostic.severity === 'error')
      .map((diagnostic) => ({
        format,
        tool: diagnostic.tool === '*' ? undefined : diagnostic.tool,
        path: diagnostic.path,
        code: diagnostic.code,
        message: diagnostic.message,
      })),
  );
  return { tools, totals, search, refusals, lint: lint(registry) };
}

/** One row of the contract table, with the tokens `tokens` gives for each format. */
function contractRow(contract: ToolContract, tokens: (format: StudioFormat) => number): ContractRow {
  const defaults = CATEGORY_DEFAULTS[contract.category];
  const properties = (contract.parameters.properties ?? {}) as Record<string, unknown>;
  const required = new Set((contract.parameters.required ?? []) as string[]);
  return {
    name: contract.name,
    category: contract.category,
    risk: defaults.risk,
    permission: defaults.permission,
    parameters: Object.keys(properties).map((key) => (required.has(key) ? key : `${key}?`)),
    tokens: byFormat(tokens),
  };
}

function byFormat<T>(of: (format: StudioFormat) => T): { readonly [Format in StudioFormat]: T } {
  return Object.fromEntries(STUDIO_FORMATS.map((format) => [format, of(format)])) as {
    [Format in StudioFormat]: T;
  };
}
