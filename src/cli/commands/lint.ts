import { relative, resolve, sep } from 'node:path';
import { ConfigError, loadConfig } from '../../config/load-config.js';
import { FORMATTERS, type FormatterName } from '../../lint/formatters/index.js';
import { LintConfigError, lint, resolveLintConfig } from '../../lint/index.js';
import { counted } from '../../util/counted.js';
import { parseArgs } from '../args.js';
import type { Command } from '../io.js';
import { InputError, UsageError } from '../io.js';
import { closeWithin } from '../lifecycle.js';
import { loadRegistry } from '../load-module.js';
import { VERSION } from '../version.js';

/** `toolpact lint <module>`: the description checklist, names, consistency, limits and manipulation. */
export const command: Command = {
  name: 'lint',
  summary: 'check tool contracts the way a model reads them (checklist, names, consistency, limits)',
  usage: [
    'toolpact lint <module> [--format stylish|json|sarif] [--max-warnings N] [--preset recommended|strict]',
    '',
    '  <module>          a .ts, .mts, .js or .mjs file exporting tools (a Registry, an array, or named tools)',
    '  --format          stylish (default, for people), json (for scripts), sarif (SARIF 2.1.0, for code scanning)',
    '  --max-warnings N  exit 1 when there are more than N warnings',
    '  --preset          start from this preset instead of the configuration\'s "extends"',
    '',
    'Rules and severities come from toolpact.config.{ts,mts,js,mjs,json} or package.json#toolpact',
    '(its "lint" section) in the working directory; a tool can switch rules off in meta.lint.disable.',
    'Exit 0 when clean, 1 for error-level findings (or warnings past --max-warnings), 2 for usage errors.',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, {
      format: 'string',
      'max-warnings': 'string',
      preset: 'string',
    });
    const [modulePath, ...extra] = positionals;
    if (!modulePath) throw new UsageError('Give a module of tools.');
    if (extra.length > 0)
      throw new UsageError(`Unexpected arguments: ${extra.join(' ')}. Lint one module at a time.`);
    const format = (flags.format ?? 'stylish') as string;
    if (!Object.hasOwn(FORMATTERS, format))
      throw new UsageError(`--format must be stylish, json or sarif, received "${format}".`);
    let maxWarnings: number | undefined;
    if (typeof flags['max-warnings'] === 'string') {
      maxWarnings = Number(flags['max-warnings']);
      if (!Number.isInteger(maxWarnings) || maxWarnings < 0)
        throw new UsageError(
          `--max-warnings needs a whole number of 0 or more, received "${flags['max-warnings']}".`,
        );
    }
    const preset = flags.preset;
    if (preset !== undefined && preset !== 'recommended' && preset !== 'strict')
      throw new UsageError(`--preset must be recommended or strict, received "${preset}".`);
    const config = await lintConfig(io.cwd, preset as 'recommended' | 'strict' | undefined);
    const registry = await loadRegistry(modulePath, io.cwd);
    try {
      let result: ReturnType<typeof lint>;
      try {
        result = lint(registry, { config });
      } catch (error) {
        if (error instanceof LintConfigError) throw new InputError(error.message);
        throw error;
      }
      const source = relative(io.cwd, resolve(io.cwd, modulePath)).split(sep).join('/');
      io.stdout(FORMATTERS[format as FormatterName](result, { source, version: VERSION }));
      if (result.errorCount > 0) return 1;
      if (maxWarnings !== undefined && result.warningCount > maxWarnings) {
        io.stderr(
          `toolpact lint: ${counted(result.warningCount, 'warning')}, more than --max-warnings ${maxWarnings}.\n`,
        );
        return 1;
      }
      return 0;
    } finally {
      // The module's connections (an imported MCP server) would keep the process alive.
      await closeWithin(registry, io, 'lint');
    }
  },
};

/** The `lint` section of the configuration in `cwd`, checked; a preset flag replaces its `extends`. */
async function lintConfig(cwd: string, preset: 'recommended' | 'strict' | undefined) {
  try {
    const { config, source } = await loadConfig(cwd);
    const section = (config.lint ?? {}) as { [key: string]: unknown };
    const merged =
      preset && section !== null && typeof section === 'object' && !Array.isArray(section)
        ? { ...section, extends: preset }
        : section;
    return resolveLintConfig(merged, source ? { source } : {});
  } catch (error) {
    if (error instanceof LintConfigError || error instanceof ConfigError) throw new InputError(error.message);
    throw error;
  }
}
