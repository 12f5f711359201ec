import { CATEGORY_DEFAULTS } from '../../contract/index.js';
import type { Registry } from '../../registry/registry.js';
import { parseArgs } from '../args.js';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { loadRegistry } from '../load-module.js';
import { renderTable } from '../table.js';

/** `toolpact inspect <module>`: the overview of a tool set. */
export const command: Command = {
  name: 'inspect',
  summary: 'show the contract table of a tool set (name, category, risk, permission, parameters)',
  usage: [
    'toolpact inspect <module> [--format table|json]',
    'toolpact inspect --mcp "<command or URL>" [--format table|json]',
    '',
    'Prints one row per tool: its name, category, risk, default permission and parameters.',
    'With --mcp, the tools of a running MCP server: a command line started over stdio (no shell),',
    'or an http(s) URL of a Streamable HTTP endpoint. Their categories are inferred from annotations,',
    'and their contracts are linted (recommended rules); exit 1 when a finding is an error.',
    'With --mcp and --format json, the output is { "tools": [rows], "findings": [lint findings] }.',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, { format: 'string', mcp: 'string' });
    const [modulePath] = positionals;
    if (typeof flags.mcp === 'string' && modulePath)
      throw new UsageError('Give a module or --mcp, not both.');
    if (!modulePath && typeof flags.mcp !== 'string')
      throw new UsageError('Give a module of tools, or --mcp.');
    const format = flags.format ?? 'table';
    if (format !== 'table' && format !== 'json')
      throw new UsageError(`--format must be table or json, received "${format}".`);
    const remote =
      typeof flags.mcp === 'string'
        ? await (await import('../../mcp/index.js')).registryFromMcp(flags.mcp, io.cwd)
        : undefined;
    try {
      const registry = remote ? remote.registry : await loadRegistry(modulePath!, io.cwd);
      const rows = contractRows(registry);
      if (!remote) {
        io.stdout(format === 'json' ? `${JSON.stringify(rows, null, 2)}\n` : renderContractTable(rows));
        return 0;
      }
      // A remote server's tools are linted too (recommended rules): their descriptions are what a model reads.
      const { lint, stylish } = await import('../../lint/index.js');
      const report = lint(registry);
      io.stdout(
        format === 'json'
          ? `${JSON.stringify({ tools: rows, findings: report.findings }, null, 2)}\n`
          : `${renderContractTable(rows)}\n${stylish(report, { source: `mcp:${remote.imported.server}` })}`,
      );
      return report.errorCount > 0 ? 1 : 0;
    } finally {
      await remote?.imported.close();
    }
  },
};

export interface ContractRow {
  readonly name: string;
  readonly category: string;
  readonly risk: string;
  readonly permission: string;
  readonly parameters: readonly string[];
}

/** One row per tool, in registration order. Required parameters are plain, optional ones end in `?`. */
export function contractRows(registry: Registry): ContractRow[] {
  return registry.schemas().map((contract) => {
    const defaults = CATEGORY_DEFAULTS[contract.category];
    const properties = (contract.parameters.properties ?? {}) as Record<string, unknown>;
    const required = new Set((contract.parameters.required ?? []) as string[]);
    return {
      name: contract.name,
      category: contract.category,
      risk: defaults.risk,
      permission: defaults.permission,
      parameters: Object.keys(properties).map((key) => (required.has(key) ? key : `${key}?`)),
    };
  });
}

export function renderContractTable(rows: readonly ContractRow[]): string {
  return renderTable(
    ['tool', 'category', 'risk', 'permission', 'parameters'],
    rows.map((row) => [
      row.name,
      row.category,
      row.risk,
      row.permission,
      row.parameters.join(', ') || '(none)',
    ]),
  );
}
