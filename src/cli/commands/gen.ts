import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, extname, relative, resolve, sep } from 'node:path';
import { parseArgs } from '../args.js';
import { type Command, UsageError } from '../io.js';

const SOURCE_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts']);

/** `toolpact gen`: write (or check) the generated contracts module of type-first tools. */
export const command: Command = {
  name: 'gen',
  summary: 'generate the contracts of type-first tools from their signatures and doc comments',
  usage: [
    'toolpact gen <files… | tsconfig.json> [-o <file>] [--check]',
    '',
    'Reads the tools declared with tool(fn, { … }) or @tool({ … }) in the given TypeScript files (or in the',
    'files of a tsconfig.json) with the TypeScript compiler, and writes their contracts to one module',
    '(default: contracts.generated.ts beside the first file or the tsconfig). Pass that module as',
    '`contracts` to tool(). Problems are printed as file:line:column, all at once, and nothing is written.',
    '',
    'Options:',
    '  -o, --output <file>  where the generated module goes',
    '  --check              write nothing; exit 1 when the module is missing or stale (for CI)',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, { output: 'string', check: 'boolean' }, { o: 'output' });
    if (positionals.length === 0)
      throw new UsageError('Give the TypeScript files that declare tools, or a tsconfig.json.');
    const projects = positionals.filter((path) => extname(path) === '.json');
    if (projects.length > 0 && positionals.length > 1) {
      throw new UsageError('Give either one tsconfig.json or a list of TypeScript files, not both.');
    }
    for (const path of positionals) {
      if (projects.length === 0 && !SOURCE_EXTENSIONS.has(extname(path))) {
        throw new UsageError(`"${path}" is not a TypeScript file; give .ts files or a tsconfig.json.`);
      }
      if (!existsSync(resolve(io.cwd, path))) throw new UsageError(`Cannot find "${path}".`);
    }
    const first = resolve(io.cwd, positionals[0]!);
    const output = resolve(
      io.cwd,
      typeof flags.output === 'string' ? flags.output : resolve(dirname(first), 'contracts.generated.ts'),
    );
    const shown = (path: string) => relative(io.cwd, path).split(sep).join('/') || '.';

    const { extractContracts, formatDiagnostic, renderModule, parseModule, compareContracts } = await import(
      '../../extract/index.js'
    );
    const result = extractContracts({
      ...(projects.length ? { project: positionals[0]! } : { files: positionals }),
      output,
      cwd: io.cwd,
    });
    if (!result.ok) {
      for (const diagnostic of result.diagnostics) io.stderr(`${formatDiagnostic(diagnostic, io.cwd)}\n`);
      const files = new Set(result.diagnostics.map((diagnostic) => diagnostic.file)).size;
      const count = result.diagnostics.length;
      io.stderr(
        `\n${count} problem${count === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}; ${
          flags.check ? 'the contracts cannot be checked' : `${shown(output)} was not written`
        }.\n`,
      );
      return 1;
    }
    const count = Object.keys(result.contracts.tools).length;
    if (count === 0) {
      io.stderr(
        `toolpact gen: found no type-first tools in ${positionals.join(', ')}. Declare them with tool(fn, { … }) or @tool({ … }) imported from toolpact.\n`,
      );
      return 1;
    }
    const text = renderModule(result.contracts, result.typesFrom);
    const existing = existsSync(output) ? readFileSync(output, 'utf8') : undefined;
    const changes = compareContracts(
      existing === undefined ? undefined : parseModule(existing),
      result.contracts,
    );
    const summary = [
      changes.added.length ? `added ${changes.added.join(', ')}` : '',
      changes.removed.length ? `removed ${changes.removed.join(', ')}` : '',
      changes.changed.length ? `changed ${changes.changed.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    if (flags.check) {
      if (existing === text) {
        io.stdout(`${shown(output)} is up to date (${count} tool${count === 1 ? '' : 's'}).\n`);
        return 0;
      }
      const why =
        existing === undefined
          ? 'does not exist'
          : `is stale: ${summary || 'the declarations it was generated from changed'}`;
      io.stderr(
        `${shown(output)} ${why}. Run \`toolpact gen ${positionals.join(' ')} -o ${shown(output)}\` and commit the result.\n`,
      );
      return 1;
    }
    if (existing === text) {
      io.stdout(`${shown(output)} is already up to date (${count} tool${count === 1 ? '' : 's'}).\n`);
      return 0;
    }
    mkdirSync(dirname(output), { recursive: true });
    writeFileSync(output, text);
    io.stdout(
      `Wrote ${shown(output)}: ${count} tool${count === 1 ? '' : 's'}${summary ? ` (${summary})` : ''}.\n`,
    );
    return 0;
  },
};
