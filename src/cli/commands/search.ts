import { isToolCategory, type ToolCategory } from '../../contract/index.js';
import { parseArgs } from '../args.js';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { closeWithin } from '../lifecycle.js';
import { loadRegistry } from '../load-module.js';
import { renderTable } from '../table.js';

/**
 * `toolpact search <module> "<query>"`: the module's tools ranked for a request, as `search_tools`
 * would find them, with scores and the fields that matched.
 *
 * @example
 * // toolpact search examples/workspace/index.ts "find text in files" --k 3
 * await execute(['search', 'examples/workspace/index.ts', 'find text in files', '--k', '3'], io);
 */
export const command: Command = {
  name: 'search',
  summary: 'rank the tools of a module for a request, with scores and the fields that matched',
  usage: [
    'toolpact search <module> "<query>" [--k <n>] [--category <name,...>] [--format table|json]',
    '',
    '  <module>        a .ts, .mts, .js or .mjs file exporting tools (a Registry, an array, or named tools)',
    '  <query>         the request, in plain words (English, Chinese or both)',
    '  --k <n>         how many tools at most (default 10)',
    '  --category      only tools of these categories (read, search, write, execute, delegate)',
    '  --format json   { "query", "hits": [{ "rank", "name", "score", "category", "fields", "terms" }] }',
    '',
    'The index is the one withToolSearch uses: name words, title, description, parameter names and',
    'descriptions, and enum values, each with its weight. Exit 1 when no tool matches.',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, { k: 'string', category: 'string', format: 'string' });
    const [modulePath, query, ...extra] = positionals;
    if (!modulePath) throw new UsageError('Give a module of tools and a query.');
    if (query === undefined || query.trim() === '')
      throw new UsageError('Give a query after the module, in quotes.');
    if (extra.length > 0) {
      throw new UsageError(
        `Unexpected arguments: ${extra.join(' ')}. Put a query of several words in quotes.`,
      );
    }
    const format = flags.format ?? 'table';
    if (format !== 'table' && format !== 'json') {
      throw new UsageError(`--format must be table or json, received "${String(format)}".`);
    }
    const kText = flags.k ?? '10';
    if (typeof kText !== 'string' || !/^\d+$/.test(kText) || Number(kText) < 1 || Number(kText) > 1_000) {
      throw new UsageError(`--k needs a whole number from 1 to 1000, received "${String(kText)}".`);
    }
    let categories: ToolCategory[] | undefined;
    if (typeof flags.category === 'string') {
      categories = [];
      for (const name of flags.category
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)) {
        if (!isToolCategory(name)) {
          throw new UsageError(
            `--category takes read, search, write, execute or delegate, received "${name}".`,
          );
        }
        categories.push(name);
      }
    }
    const registry = await loadRegistry(modulePath, io.cwd);
    try {
      const { createToolIndex } = await import('../../search/index.js');
      const index = createToolIndex(registry);
      const hits = index.search(query, { k: Number(kText), ...(categories ? { categories } : {}) });
      index.close();
      const rows = hits.map((hit, position) => ({
        rank: position + 1,
        name: hit.name,
        score: Math.round(hit.score * 1000) / 1000,
        category: hit.contract.category,
        fields: hit.fields,
        terms: hit.terms,
      }));
      if (format === 'json') {
        io.stdout(`${JSON.stringify({ query, hits: rows }, null, 2)}\n`);
      } else if (rows.length === 0) {
        io.stdout(`No tool of ${registry.size} matched "${query}". Try other words, or fewer.\n`);
      } else {
        io.stdout(
          renderTable(
            ['#', 'tool', 'score', 'category', 'matched fields', 'matched terms'],
            rows.map((row) => [
              String(row.rank),
              row.name,
              row.score.toFixed(3),
              row.category,
              row.fields.join(', '),
              row.terms.join(' '),
            ]),
          ),
        );
      }
      return rows.length > 0 ? 0 : 1;
    } finally {
      // The module's connections (an imported MCP server) would keep the process alive.
      await closeWithin(registry, io, 'search');
    }
  },
};
