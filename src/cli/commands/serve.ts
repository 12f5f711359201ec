import { Registry } from '../../registry/registry.js';
import { parseArgs } from '../args.js';
import { choosePolicy } from '../gate-options.js';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { closeWithin, ownLoaded } from '../lifecycle.js';
import { loadRegistry } from '../load-module.js';
import { serveTools } from '../serve-command.js';
import { SERVE_FLAG_USAGE, SERVE_FLAGS } from '../serve-tools.js';
import { endProcessGroupsOnSignal } from '../stop-signal.js';

/**
 * `toolpact serve <module>`: the module's tools as an MCP server, over stdio or Streamable HTTP.
 *
 * @example
 * // toolpact serve examples/workspace/index.ts --http --port 3000
 * await execute(['serve', 'examples/workspace/index.ts', '--http', '--port', '3000'], io);
 */
export const command: Command = {
  name: 'serve',
  summary: 'serve a tool set as an MCP server (stdio, or Streamable HTTP with --http)',
  usage: [
    'toolpact serve <module> [--http] [--port <n>] [--host <address>] [--path <path>] [--stateless]',
    '                        [--allow-origin <origin,...>] [--name <server name>] [--page-size <n>]',
    '                        [--policy <file>] [--audit <file>] [--otel]',
    '                        [--search [--always-loaded <name,...>] [--max-loaded <n>]]',
    '',
    '  <module>        a .ts, .mts, .js or .mjs file exporting tools (a Registry, an array, or named tools)',
    ...SERVE_FLAG_USAGE.slice(0, 9),
    '  --policy <file> a JSON policy file (default: toolpact.config.*, else the category defaults)',
    ...SERVE_FLAG_USAGE.slice(9),
    '',
    'One endpoint (or one stdio pipe) serves both eras: a 2025 client opens with initialize, a revision',
    '2026-07-28 client sends server/discover or enveloped requests. Approvals of 2026-07-28 calls travel',
    'as input_required results with a sealed requestState; set TOOLPACT_STATE_KEY (32 random bytes, hex)',
    'on every replica so that any of them can open it.',
    '',
    "Every call runs through the module's Registry, with its gate. Over stdio, stdout carries the",
    'protocol and messages go to stderr. Stops on SIGINT or SIGTERM (and, over stdio, when stdin ends),',
    "then closes the module's registry: the MCP servers it imported are stopped, the audit log closed.",
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, SERVE_FLAGS);
    const [modulePath, ...extra] = positionals;
    if (!modulePath) throw new UsageError('Give a module of tools to serve.');
    if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(' ')}.`);
    const policy = await choosePolicy(typeof flags.policy === 'string' ? flags.policy : undefined, io.cwd);
    // The module may start MCP servers as it loads (importMcpTools over stdio): a signal then ends them.
    const loading = endProcessGroupsOnSignal('exit');
    const loaded = await loadRegistry(modulePath, io.cwd).finally(() => loading.dispose());
    let served: Registry | undefined;
    // Installed in the same tick as serveTools' own stop signal, and kept through its shutdown: a signal
    // during it (the client closed stdin, then sends SIGTERM) ends those servers instead of orphaning them.
    const groups = endProcessGroupsOnSignal('shutdown');
    try {
      return await serveTools(io, {
        command: 'serve',
        flags,
        policy,
        build: async (registryOptions) => {
          // The served registry owns the module's registry: closing it stops imported MCP servers.
          served = ownLoaded(new Registry(registryOptions), loaded);
          served.register(loaded.list());
          // Its resources and prompts are served under the same gate (a read is a read of its URI).
          served.registerResource(loaded.resources?.() ?? []).registerPrompt(loaded.prompts?.() ?? []);
          return { registry: served };
        },
      });
    } finally {
      // Built or not, what the module opened is closed.
      if (!served) await closeWithin(loaded, io, 'serve');
      groups.dispose();
    }
  },
};
