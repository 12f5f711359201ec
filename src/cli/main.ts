import { type CliIo, type Command, type ExitCode, InputError, UsageError } from './io.js';
import { endProcessGroupsOnSignal } from './stop-signal.js';
import { VERSION } from './version.js';

/** Subcommands, each loaded only when used. */
const COMMANDS: { readonly [name: string]: () => Promise<{ readonly command: Command }> } = {
  approvals: () => import('./commands/approvals.js'),
  audit: () => import('./commands/audit.js'),
  auth: () => import('./commands/auth.js'),
  call: () => import('./commands/call.js'),
  gateway: () => import('./commands/gateway.js'),
  gen: () => import('./commands/gen.js'),
  inspect: () => import('./commands/inspect.js'),
  lint: () => import('./commands/lint.js'),
  policy: () => import('./commands/policy.js'),
  run: () => import('./commands/run.js'),
  schemas: () => import('./commands/schemas.js'),
  search: () => import('./commands/search.js'),
  serve: () => import('./commands/serve.js'),
  studio: () => import('./commands/studio.js'),
};

/**
 * The commands that load a module (which may start MCP servers as it loads: importMcpTools over stdio),
 * do one thing and end. A SIGINT or SIGTERM while one runs ends those servers, their children included,
 * then the process (see endProcessGroupsOnSignal); the default action would end the command alone and
 * leave the servers, which lead process groups of their own, running. `serve`, `run`, `studio` and
 * `gateway` stop in their own way and listen for signals themselves.
 */
const ONE_SHOT = new Set(['call', 'inspect', 'lint', 'schemas', 'search']);

/**
 * Runs the `toolpact` command: a pure function of its arguments and its I/O, as tests call it.
 * Exit codes: 0 clean, 1 findings or a failed call, 2 usage or fatal error.
 *
 * @example
 * const code = await execute(['call', 'examples/workspace/index.ts', 'list_dir', '{}'], io);
 */
export async function execute(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(await helpText());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    io.stderr(`toolpact: unknown command "${name}". Commands: ${Object.keys(COMMANDS).sort().join(', ')}.\n`);
    return 2;
  }
  const { command } = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(`${command.usage}\n`);
    return 0;
  }
  const groups = ONE_SHOT.has(name) ? endProcessGroupsOnSignal('exit') : undefined;
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`toolpact ${name}: ${error.message}\nUsage: ${command.usage.split('\n')[0]}\n`);
      return 2;
    }
    if (error instanceof InputError) {
      io.stderr(`toolpact ${name}: ${error.message}\n`);
      return 2;
    }
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    io.stderr(`toolpact ${name}: ${reason}\n`);
    return 2;
  } finally {
    groups?.dispose();
  }
}

async function helpText(): Promise<string> {
  const lines = ['toolpact: tools as API contracts for LLM agents', '', 'Commands:'];
  for (const name of Object.keys(COMMANDS).sort()) {
    const { command } = await COMMANDS[name]!();
    lines.push(`  ${name.padEnd(10)} ${command.summary}`);
  }
  lines.push('', 'Run "toolpact <command> --help" for its options.', '');
  return lines.join('\n');
}
