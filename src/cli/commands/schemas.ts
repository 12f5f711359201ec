import {
  isProviderFormat,
  PROVIDER_FORMATS,
  type SchemaDiagnostic,
  type SchemaOptions,
} from '../../schema/types.js';
import { parseArgs } from '../args.js';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { closeWithin } from '../lifecycle.js';
import { loadRegistry } from '../load-module.js';
import { renderTable } from '../table.js';

const SEVERITY_ORDER: { readonly [S in SchemaDiagnostic['severity']]: number } = {
  error: 0,
  warning: 1,
  info: 2,
};

/** `toolpact schemas <module> --format <format>`: the tool set in one provider's wire format. */
export const command: Command = {
  name: 'schemas',
  summary: "print a tool set in one provider's format (openai, anthropic, gemini, mcp, …) with diagnostics",
  usage: [
    `toolpact schemas <module> --format ${PROVIDER_FORMATS.join('|')} [--strict] [--gemini parameters|json-schema] [--returns auto|description|omit] [--no-examples] [--dialect] [--verbose] [--tokens]`,
    '',
    'Prints the tools as JSON on stdout and, on stderr, what the adapter could not carry exactly:',
    'errors (the provider would refuse the tool) and warnings; --verbose adds the exact rewrites (info).',
    '--tokens adds the o200k_base token count of each tool and of the set, on stderr.',
    '--dialect states "$schema" (draft 2020-12) in MCP schemas, which MCP otherwise assumes.',
    'Exit code 1 when there is an error diagnostic, 2 for a usage error.',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, {
      format: 'string',
      strict: 'boolean',
      gemini: 'string',
      returns: 'string',
      'no-examples': 'boolean',
      dialect: 'boolean',
      verbose: 'boolean',
      tokens: 'boolean',
    });
    const [modulePath, extra] = positionals;
    if (!modulePath) throw new UsageError('Give a module of tools.');
    if (extra !== undefined) throw new UsageError(`Give one module, received also "${extra}".`);
    const format = flags.format;
    if (typeof format !== 'string')
      throw new UsageError(`Give --format, one of ${PROVIDER_FORMATS.join(', ')}.`);
    if (!isProviderFormat(format)) {
      throw new UsageError(`--format must be one of ${PROVIDER_FORMATS.join(', ')}, received "${format}".`);
    }
    const gemini = flags.gemini;
    if (gemini !== undefined && gemini !== 'parameters' && gemini !== 'json-schema') {
      throw new UsageError(`--gemini must be parameters or json-schema, received "${String(gemini)}".`);
    }
    const returns = flags.returns;
    if (returns !== undefined && returns !== 'auto' && returns !== 'description' && returns !== 'omit') {
      throw new UsageError(`--returns must be auto, description or omit, received "${String(returns)}".`);
    }
    const options: SchemaOptions = {
      ...(flags.strict === true ? { strict: true } : {}),
      ...(gemini ? { gemini } : {}),
      ...(returns ? { returns } : {}),
      ...(flags['no-examples'] === true ? { examples: false } : {}),
      ...(flags.dialect === true ? { dialect: true } : {}),
    };
    const registry = await loadRegistry(modulePath, io.cwd);
    try {
      // The tokenizer is loaded only when it is asked for.
      const { ESTIMATED_TOKENS_NOTE, toProviderTools, tokenReport } = await import('../../schema/index.js');
      const { tools, diagnostics } = toProviderTools(registry.schemas(), format, options);
      io.stdout(`${JSON.stringify(tools, null, 2)}\n`);
      const shown = diagnostics
        .filter((entry) => flags.verbose === true || entry.severity !== 'info')
        .sort(
          (a, b) =>
            SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
            a.tool.localeCompare(b.tool) ||
            a.path.localeCompare(b.path),
        );
      for (const entry of shown)
        io.stderr(`${entry.severity} ${entry.tool} ${entry.path} [${entry.code}] ${entry.message}\n`);
      const errors = diagnostics.filter((entry) => entry.severity === 'error').length;
      const warnings = diagnostics.filter((entry) => entry.severity === 'warning').length;
      if (flags.tokens === true) {
        const report = tokenReport(registry.schemas(), format, options);
        io.stderr(
          renderTable(
            ['tool', 'tokens'],
            [
              ...report.perTool.map((row) => [row.name, String(row.tokens)]),
              ['(all tools)', String(report.total)],
            ],
          ),
        );
        if (report.counting === 'estimated') io.stderr(`${ESTIMATED_TOKENS_NOTE}\n`);
      }
      io.stderr(
        `${tools.length} tool${tools.length === 1 ? '' : 's'} as ${format}: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}.\n`,
      );
      return errors > 0 ? 1 : 0;
    } finally {
      // The module's connections (an imported MCP server) would keep the process alive.
      await closeWithin(registry, io, 'schemas');
    }
  },
};
