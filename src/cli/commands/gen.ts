import { existsSync } from 'node:fs';
import { dirname, extname, relative, resolve, sep } from 'node:path';
import type { GenerateOutcome as Outcome } from '../../extract/generate-contracts.js';
import type { ContractChanges, ExtractDiagnostic } from '../../extract/index.js';
import { parseArgs } from '../args.js';
import { type CliIo, type Command, type ExitCode, InputError, UsageError } from '../io.js';

const SOURCE_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts']);

/** `toolpact gen`: write (or check) the generated contracts module of type-first tools. */
export const command: Command = {
  name: 'gen',
  summary: 'generate the contracts of type-first tools from their signatures and doc comments',
  usage: [
    'toolpact gen <files… | tsconfig.json> [-o <file>] [--check] [--format text|json]',
    '',
    'Reads the tools declared with tool(fn, { … }) or @tool({ … }) in the given TypeScript files (or in the',
    'files of a tsconfig.json) with the TypeScript compiler, and writes their contracts to one module',
    '(default: contracts.generated.ts beside the first file or the tsconfig). Pass that module as',
    '`contracts` to tool(). Problems are printed as file:line:column, all at once, and nothing is written.',
    '',
    'Options:',
    '  -o, --output <file>  where the generated module goes',
    '  --check              write nothing; exit 1 when the module is missing or stale (for CI)',
    '  --format json        one JSON object on stdout: status, tools, changes, diagnostics',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(
      args,
      { output: 'string', check: 'boolean', format: 'string' },
      { o: 'output' },
    );
    const format = flags.format ?? 'text';
    if (format !== 'text' && format !== 'json') {
      throw new UsageError(`--format must be text or json, received "${String(format)}".`);
    }
    if (positionals.length === 0) {
      throw new UsageError('Give the TypeScript files that declare tools, or a tsconfig.json.');
    }
    const projects = positionals.filter((path) => extname(path) === '.json');
    if (projects.length > 0 && positionals.length > 1) {
      throw new UsageError('Give either one tsconfig.json or a list of TypeScript files, not both.');
    }
    for (const path of positionals) {
      if (projects.length === 0 && !SOURCE_EXTENSIONS.has(extname(path))) {
        throw new UsageError(`"${path}" is not a TypeScript file; give .ts files or a tsconfig.json.`);
      }
      if (!existsSync(resolve(io.cwd, path)))
        throw new InputError(
          `Cannot find "${path}". Give the path of a TypeScript file or tsconfig.json that exists.`,
        );
    }
    const first = resolve(io.cwd, positionals[0]!);
    const output = resolve(
      io.cwd,
      typeof flags.output === 'string' ? flags.output : resolve(dirname(first), 'contracts.generated.ts'),
    );
    const check = flags.check === true;
    // The TypeScript compiler loads only here; the one renderer of diagnostics lives beside it.
    const [{ generateContracts }, { formatDiagnostic }] = await Promise.all([
      import('../../extract/generate-contracts.js'),
      import('../../extract/index.js'),
    ]);
    const outcome = generateContracts({
      inputs: positionals,
      project: projects.length > 0,
      output,
      check,
      cwd: io.cwd,
    });
    const shown = (path: string) => relative(io.cwd, path).split(sep).join('/') || '.';
    const rerun = `toolpact gen ${positionals.join(' ')} -o ${shown(output)}`;
    if (format === 'json') {
      io.stdout(
        `${JSON.stringify(
          {
            ...outcome,
            output: shown(output),
            ...(outcome.status === 'failed'
              ? {
                  diagnostics: outcome.diagnostics.map((diagnostic) => ({
                    ...diagnostic,
                    file: shown(diagnostic.file),
                    text: formatDiagnostic(diagnostic, io.cwd),
                  })),
                }
              : {}),
          },
          null,
          2,
        )}\n`,
      );
      return exitCode(outcome);
    }
    printText(outcome, io, {
      output: shown(output),
      rerun,
      inputs: positionals.join(', '),
      check,
      render: (diagnostic) => formatDiagnostic(diagnostic, io.cwd),
    });
    return exitCode(outcome);
  },
};

function exitCode(outcome: Outcome): ExitCode {
  switch (outcome.status) {
    case 'written':
    case 'unchanged':
    case 'up_to_date':
      return 0;
    case 'failed':
    case 'no_tools':
    case 'stale':
    case 'missing':
      return 1;
    default: {
      const never: never = outcome;
      throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
    }
  }
}

function printText(
  outcome: Outcome,
  io: CliIo,
  labels: {
    output: string;
    rerun: string;
    inputs: string;
    check: boolean;
    render: (diagnostic: ExtractDiagnostic) => string;
  },
): void {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  switch (outcome.status) {
    case 'failed': {
      for (const diagnostic of outcome.diagnostics) io.stderr(`${labels.render(diagnostic)}\n`);
      const files = new Set(outcome.diagnostics.map((diagnostic) => diagnostic.file)).size;
      io.stderr(
        `\n${plural(outcome.diagnostics.length, 'problem')} in ${plural(files, 'file')}; ${
          labels.check ? 'the contracts cannot be checked' : `${labels.output} was not written`
        }.\n`,
      );
      return;
    }
    case 'no_tools':
      io.stderr(
        `toolpact gen: found no type-first tools in ${labels.inputs}. Declare them with tool(fn, { … }) or @tool({ … }) imported from toolpact.\n`,
      );
      return;
    case 'up_to_date':
      io.stdout(`${labels.output} is up to date (${plural(outcome.tools, 'tool')}).\n`);
      return;
    case 'unchanged':
      io.stdout(`${labels.output} is already up to date (${plural(outcome.tools, 'tool')}).\n`);
      return;
    case 'missing':
      io.stderr(`${labels.output} does not exist. Run \`${labels.rerun}\` and commit the result.\n`);
      return;
    case 'stale':
      io.stderr(
        `${labels.output} is stale: ${summarize(outcome.changes) || 'the declarations it was generated from changed'}. Run \`${labels.rerun}\` and commit the result.\n`,
      );
      return;
    case 'written': {
      const summary = summarize(outcome.changes);
      io.stdout(
        `Wrote ${labels.output}: ${plural(outcome.tools, 'tool')}${summary ? ` (${summary})` : ''}.\n`,
      );
      return;
    }
    default: {
      const never: never = outcome;
      throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
    }
  }
}

function summarize(changes: ContractChanges): string {
  return [
    changes.added.length ? `added ${changes.added.join(', ')}` : '',
    changes.removed.length ? `removed ${changes.removed.join(', ')}` : '',
    changes.changed.length ? `changed ${changes.changed.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}
