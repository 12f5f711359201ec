import { UsageError } from './io.js';

/** What a flag takes: a boolean switch or a value. */
export type FlagSpec = { readonly [name: string]: 'boolean' | 'string' };

export interface ParsedArgs {
  readonly positionals: string[];
  readonly flags: { [name: string]: string | boolean | undefined };
}

/**
 * A small, strict argv parser: `--flag`, `--flag value`, `--flag=value`, `-o value` when `-o` is
 * listed as an alias, and `--` to end flags. An unknown flag is a usage error.
 */
export function parseArgs(
  args: readonly string[],
  spec: FlagSpec,
  aliases: { readonly [short: string]: string } = {},
): ParsedArgs {
  const positionals: string[] = [];
  const flags: ParsedArgs['flags'] = {};
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') {
      positionals.push(...args.slice(index + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
    } else {
      const alias = aliases[arg.slice(1)];
      if (!alias) throw new UsageError(`Unknown option "${arg}".`);
      name = alias;
    }
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (!kind) {
      const known = Object.keys(spec).map((flag) => `--${flag}`);
      throw new UsageError(
        `Unknown option "--${name}".${known.length ? ` Known options: ${known.join(', ')}.` : ''}`,
      );
    }
    if (kind === 'boolean') {
      if (inline !== undefined) throw new UsageError(`Option "--${name}" takes no value.`);
      flags[name] = true;
    } else {
      const value = inline ?? args[++index];
      if (value === undefined) throw new UsageError(`Option "--${name}" needs a value.`);
      flags[name] = value;
    }
  }
  return { positionals, flags };
}
