import { CATEGORY_DEFAULTS, type ToolContract } from '../../contract/index.js';
import type { Registry } from '../../registry/registry.js';
import { counted } from '../../util/counted.js';
import { parseArgs } from '../args.js';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { closeWithin } from '../lifecycle.js';
import { loadRegistry } from '../load-module.js';
import { renderTable } from '../table.js';

/** The formats whose token cost and refusals the overview shows, with their column titles. */
const FORMATS = [
  ['openai', 'openai'],
  ['openai-responses', 'responses'],
  ['anthropic', 'anthropic'],
  ['gemini', 'gemini'],
  ['mcp', 'mcp'],
] as const;
type InspectFormat = (typeof FORMATS)[number][0];

/** `toolpact inspect <module>`: the overview of a tool set a developer looks at first. */
export const command: Command = {
  name: 'inspect',
  summary: 'show a tool set: contracts, tokens per provider, provider refusals and a lint summary',
  usage: [
    'toolpact inspect <module> [--format table|json] [--always-loaded <name,...>]',
    'toolpact inspect --mcp "<command or URL>" [--era auto|legacy|modern] [--format table|json] [--always-loaded <name,...>]',
    '',
    'Prints one row per tool: name, category, risk, default permission, parameters (optional ones end',
    'in "?") and what its definition costs in tokens in each provider format (o200k_base over the JSON',
    'sent), then which tools each provider would refuse and why, then the lint report (recommended).',
    'With --mcp, the tools of a running MCP server: a command line started over stdio (no shell),',
    'or an http(s) URL of a Streamable HTTP endpoint; their categories are inferred from annotations.',
    'The protocol era is negotiated (--era auto, the default: probe with server/discover, fall back to',
    'initialize); --era legacy skips the probe, --era modern accepts only 2026-07-28. The first line',
    'names the server, its era and protocol revision.',
    'Then what one request costs with tool search (withToolSearch: the always-loaded tools, given by',
    '--always-loaded, and search_tools) against sending every tool, in each format.',
    'With --format json: { "tools": [rows], "totals": {format: tokens}, "search": {...}, "refusals": [...],',
    '"findings": [...] }, and with --mcp "server": { "name", "era", "protocolVersion" }.',
    'Exit 1 when a lint finding is an error (a provider refusal is one), 2 for usage errors.',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, {
      format: 'string',
      mcp: 'string',
      era: 'string',
      'always-loaded': 'string',
    });
    const alwaysLoaded =
      typeof flags['always-loaded'] === 'string'
        ? flags['always-loaded']
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean)
        : [];
    const [modulePath] = positionals;
    if (typeof flags.mcp === 'string' && modulePath)
      throw new UsageError('Give a module or --mcp, not both.');
    if (!modulePath && typeof flags.mcp !== 'string')
      throw new UsageError('Give a module of tools, or --mcp.');
    const format = flags.format ?? 'table';
    if (format !== 'table' && format !== 'json')
      throw new UsageError(`--format must be table or json, received "${format}".`);
    const era = flags.era ?? 'auto';
    if (era !== 'auto' && era !== 'legacy' && era !== 'modern')
      throw new UsageError(`--era must be auto, legacy or modern, received "${era}".`);
    if (flags.era !== undefined && typeof flags.mcp !== 'string')
      throw new UsageError('--era applies to --mcp only.');
    const remote =
      typeof flags.mcp === 'string'
        ? await (await import('../../mcp/index.js')).registryFromMcp(flags.mcp, io.cwd, { era })
        : undefined;
    let registry: Registry | undefined = remote?.registry;
    try {
      registry ??= await loadRegistry(modulePath!, io.cwd);
      for (const name of alwaysLoaded) {
        if (!registry.has(name)) {
          throw new UsageError(
            `--always-loaded names "${name}", which is not one of the ${counted(registry.size, 'tool')}.`,
          );
        }
      }
      const overview = await inspectRegistry(registry, alwaysLoaded);
      const source = remote ? `mcp:${remote.imported.server}` : undefined;
      const server = remote
        ? {
            name: remote.imported.server,
            era: remote.imported.era,
            protocolVersion: remote.imported.protocolVersion ?? null,
          }
        : undefined;
      io.stdout(
        format === 'json'
          ? `${JSON.stringify(server ? { server, ...overview.data } : overview.data, null, 2)}\n`
          : `${server ? `MCP server "${server.name}": ${server.era} era, protocol ${server.protocolVersion ?? 'unknown'}\n\n` : ''}${overview.render(source)}`,
      );
      return overview.data.errorCount > 0 ? 1 : 0;
    } finally {
      // The module's registry, or the one the MCP server's tools were imported into, with its connection.
      await closeWithin(registry, io, 'inspect', remote ? 'the MCP connection' : "the module's tools");
    }
  },
};

/** One row of the contract table. */
export interface ContractRow {
  readonly name: string;
  readonly category: string;
  readonly risk: string;
  readonly permission: string;
  /** Required parameters plain, optional ones ending in `?`. */
  readonly parameters: readonly string[];
  /** Tokens of the tool's definition in each provider format. */
  readonly tokens: { readonly [Format in InspectFormat]: number };
}

/** A tool a provider would refuse, and why (from the schema adapters). */
export interface Refusal {
  readonly format: string;
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
    readonly [Format in InspectFormat]: { readonly all: number; readonly withSearch: number };
  };
}

/** The overview as data, and its rendering as text. */
interface Overview {
  readonly data: {
    readonly tools: readonly ContractRow[];
    readonly totals: { readonly [Format in InspectFormat]: number };
    readonly search: SearchCost | undefined;
    readonly refusals: readonly Refusal[];
    readonly errorCount: number;
    readonly warningCount: number;
    readonly findings: readonly unknown[];
  };
  render(source: string | undefined): string;
}

/**
 * The overview of a registry: the contract table with tokens per provider, the refusals, and the
 * lint result. The adapters and the linter load only here, so `toolpact call` stays light.
 */
async function inspectRegistry(registry: Registry, alwaysLoaded: readonly string[]): Promise<Overview> {
  const [
    { ESTIMATED_TOKENS_NOTE, tokenCounting, tokenReport, toProviderTools },
    { lint, stylish },
    { SEARCH_TOOL_NAME, withToolSearch },
  ] = await Promise.all([
    import('../../schema/index.js'),
    import('../../lint/index.js'),
    import('../../search/index.js'),
  ]);
  const contracts = registry.schemas();
  const reports = Object.fromEntries(FORMATS.map(([format]) => [format, tokenReport(contracts, format)])) as {
    [Format in InspectFormat]: ReturnType<typeof tokenReport>;
  };
  const tools = contracts.map((contract, index) =>
    contractRow(contract, (format) => reports[format].perTool[index]?.tokens ?? 0),
  );
  const totals = Object.fromEntries(
    FORMATS.map(([format]) => [format, reports[format].total]),
  ) as ContractRow['tokens'];
  // A copy of the registry takes search_tools, so the tool set under inspection stays as it is.
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
      tokens: Object.fromEntries(
        FORMATS.map(([format]) => [
          format,
          { all: totals[format], withSearch: tokenReport(sent, format).total },
        ]),
      ) as SearchCost['tokens'],
    };
  }
  const refusals: Refusal[] = FORMATS.flatMap(([format]) =>
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
  const result = lint(registry);
  return {
    data: {
      tools,
      totals,
      search,
      refusals,
      errorCount: result.errorCount,
      warningCount: result.warningCount,
      findings: result.findings,
    },
    render(source) {
      const parts = [renderContractTable(tools, totals).trimEnd(), ''];
      if (tokenCounting() === 'estimated') parts.push(ESTIMATED_TOKENS_NOTE, '');
      if (search) parts.push(renderSearchCost(search, contracts.length), '');
      if (refusals.length === 0) {
        parts.push(
          `Provider refusals: none; ${FORMATS.map(([, title]) => title).join(', ')} accept every tool.`,
        );
      } else {
        parts.push('Provider refusals:');
        for (const refusal of refusals) {
          parts.push(
            `  ${refusal.format.padEnd(16)} ${refusal.tool ?? '(tool set)'}  ${refusal.path}  ${refusal.message}`,
          );
        }
      }
      parts.push(
        '',
        `Lint (recommended; "toolpact lint" for options):`,
        stylish(result, source ? { source } : {}),
      );
      return parts.join('\n');
    },
  };
}

/** The token cost of one request with tool search against every tool, one row per format. */
function renderSearchCost(search: SearchCost, toolCount: number): string {
  const loaded = search.alwaysLoaded.length > 0 ? search.alwaysLoaded.join(', ') : 'none';
  const rows = FORMATS.map(([format, title]) => {
    const { all, withSearch } = search.tokens[format];
    const saved = all > 0 ? Math.round((1 - withSearch / all) * 100) : 0;
    // Few tools: search_tools itself can cost more than the set it stands in for.
    return [title, String(all), String(withSearch), saved >= 0 ? `${saved}%` : `none: costs ${-saved}% more`];
  });
  return [
    `With tool search (always loaded: ${loaded}), a request sends ${counted(search.sent, 'tool')}, search_tools among them, until a search loads more:`,
    renderTable(['format', `all ${counted(toolCount, 'tool')}`, 'with search', 'saved'], rows).trimEnd(),
  ].join('\n');
}

/** One row per tool, in registration order. */
export function contractRow(contract: ToolContract, tokens: (format: InspectFormat) => number): ContractRow {
  const defaults = CATEGORY_DEFAULTS[contract.category];
  const properties = (contract.parameters.properties ?? {}) as Record<string, unknown>;
  const required = new Set((contract.parameters.required ?? []) as string[]);
  return {
    name: contract.name,
    category: contract.category,
    risk: defaults.risk,
    permission: defaults.permission,
    parameters: Object.keys(properties).map((key) => (required.has(key) ? key : `${key}?`)),
    tokens: Object.fromEntries(FORMATS.map(([format]) => [format, tokens(format)])) as ContractRow['tokens'],
  };
}

/** The contract table, with a last row of token totals for the whole set. */
export function renderContractTable(rows: readonly ContractRow[], totals: ContractRow['tokens']): string {
  return renderTable(
    ['tool', 'category', 'risk', 'permission', 'parameters', ...FORMATS.map(([, title]) => title)],
    [
      ...rows.map((row) => [
        row.name,
        row.category,
        row.risk,
        row.permission,
        row.parameters.join(', ') || '(none)',
        ...FORMATS.map(([format]) => String(row.tokens[format])),
      ]),
      ['(all tools)', '', '', '', '', ...FORMATS.map(([format]) => String(totals[format]))],
    ],
  );
}
