import { parseArgs } from '../args.js';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { loadRegistry } from '../load-module.js';

/** `toolpact call <module> <tool> '<json>'`: dispatch one call and print the envelope. */
export const command: Command = {
  name: 'call',
  summary: 'dispatch one call to a tool and print the result envelope',
  usage: [
    "toolpact call <module> <tool> ['<json arguments>'] [--timeout <ms>]",
    '',
    '  <module>   a .ts, .mts, .js or .mjs file exporting tools (a Registry, an array, or named tools)',
    '  <tool>     the tool name',
    '  <json>     the arguments as one JSON object (default {})',
    '',
    'Prints the envelope on stdout. Exit 0 when ok, 1 when the call failed, 2 for usage errors.',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, { timeout: 'string' });
    const [modulePath, toolName, json, ...extra] = positionals;
    if (!modulePath || !toolName) throw new UsageError('Give a module and a tool name.');
    if (extra.length > 0) {
      throw new UsageError(
        `Unexpected arguments: ${extra.join(' ')}. Quote the JSON arguments as one shell word.`,
      );
    }
    let timeoutMs: number | undefined;
    if (typeof flags.timeout === 'string') {
      timeoutMs = Number(flags.timeout);
      if (!(Number.isFinite(timeoutMs) && timeoutMs > 0))
        throw new UsageError('--timeout needs a positive number of milliseconds.');
    }
    const registry = await loadRegistry(modulePath, io.cwd);
    const text = await registry.dispatch(toolName, json ?? '{}', timeoutMs ? { timeoutMs } : undefined);
    io.stdout(`${text}\n`);
    return (JSON.parse(text) as { ok: boolean }).ok ? 0 : 1;
  },
};
