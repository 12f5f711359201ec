import { offeringRows } from '../../registry/offering-rows.js';
import type { Registry } from '../../registry/registry.js';
import type { ContractRow, SearchCost, ToolSetOverview } from '../../studio/tool-set-overview.js';
import { counted } from '../../util/counted.js';
import { parseArgs } from '../args.js';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { closeWithin } from '../lifecycle.js';
import { loadRegistry } from '../load-module.js';
import { renderOfferings } from '../offerings-view.js';
import { renderTable } from '../table.js';

/** The formats whose token cost and refusals the overview shows, with their column titles. */
const FORMATS = [
  ['openai', 'openai'],
  ['openai-responses', 'responses'],
  ['anthropic', 'anthropic'],
  ['gemini', 'gemini'],
  ['mcp', 'mcp'],
] as const;

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
    "A module's resources and prompts are listed first, and linted with the tools; in JSON they are",
    '"resources" and "prompts" (present when the module offers any).',
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
      // The adapters, the linter and search load only here, so that `toolpact call` stays light.
      const { toolSetOverview } = await import('../../studio/tool-set-overview.js');
      const overview = toolSetOverview(registry, alwaysLoaded);
      const source = remote ? `mcp:${remote.imported.server}` : undefined;
      const server = remote
        ? {
            name: remote.imported.server,
            era: remote.imported.era,
            protocolVersion: remote.imported.protocolVersion ?? null,
          }
        : undefined;
      const { tools, totals, search, refusals, lint } = overview;
      const offerings = offeringRows(registry);
      const offered = offerings.resources.length + offerings.prompts.length > 0;
      const data = {
        tools,
        ...(offered ? offerings : {}),
        totals,
        search,
        refusals,
        errorCount: lint.errorCount,
        warningCount: lint.warningCount,
        findings: lint.findings,
      };
      io.stdout(
        format === 'json'
          ? `${JSON.stringify(server ? { server, ...data } : data, null, 2)}\n`
          : `${server ? `MCP server "${server.name}": ${server.era} era, protocol ${server.protocolVersion ?? 'unknown'}\n\n` : ''}${renderOfferings(offerings)}${await renderOverview(overview, source)}`,
      );
      return lint.errorCount > 0 ? 1 : 0;
    } finally {
      // The module's registry, or the one the MCP server's tools were imported into, with its connection.
      await closeWithin(registry, io, 'inspect', remote ? 'the MCP connection' : "the module's tools");
    }
  },
};

/** The overview as text: the contract table, the search cost, the refusals and the lint report. */
async function renderOverview(overview: ToolSetOverview, source: string | undefined): Promise<string> {
  const [{ ESTIMATED_TOKENS_NOTE, tokenCounting }, { stylish }] = await Promise.all([
    import('../../schema/index.js'),
    import('../../lint/index.js'),
  ]);
  const { tools, totals, search, refusals } = overview;
  const parts = [renderContractTable(tools, totals).trimEnd(), ''];
  if (tokenCounting() === 'estimated') parts.push(ESTIMATED_TOKENS_NOTE, '');
  if (search) parts.push(renderSearchCost(search, tools.length), '');
  if (refusals.length === 0) {
    parts.push(`Provider refusals: none; ${FORMATS.map(([, title]) => title).join(', ')} accept every tool.`);
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
    stylish(overview.lint, source ? { source } : {}),
  );
  return parts.join('\n');
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

/** The contract table, with a last row of token totals for the whole set. */
function renderContractTable(rows: readonly ContractRow[], totals: ContractRow['tokens']): string {
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
