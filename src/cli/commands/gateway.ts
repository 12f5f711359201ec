import type { PendingApproval } from '../../dispatch/gate.js';
import type { GatewayConfig } from '../../gateway/config/index.js';
import type { Gateway } from '../../gateway/gateway.js';
import { parseArgs } from '../args.js';
import {
  choosePolicy,
  type GatewaySubcommand,
  lockOption,
  readConfig,
  refuseExposedFlags,
  sharedTokens,
  summaryLine,
} from '../gateway-options.js';
import type { CliIo, Command, ExitCode } from '../io.js';
import { UsageError } from '../io.js';
import { serveTools } from '../serve-command.js';
import { SERVE_FLAG_USAGE, SERVE_FLAGS } from '../serve-tools.js';
import { endProcessGroupsOnSignal } from '../stop-signal.js';

/** The subcommands that start every server once, each loaded when it is run. */
const SUBCOMMANDS: { readonly [name: string]: () => Promise<GatewaySubcommand> } = {
  init: async () => (await import('./gateway-init.js')).init,
  pin: async () => (await import('./gateway-pin.js')).pin,
  check: async () => (await import('./gateway-check.js')).check,
  login: async () => (await import('./gateway-login.js')).login,
  logout: async () => (await import('./gateway-logout.js')).logout,
};

/**
 * `toolpact gateway`: one gate in front of every MCP server a host config lists (see docs/gateway.md).
 *
 * @example
 * // toolpact gateway --config ~/.config/toolpact/gateway.json
 * await execute(['gateway', '--config', 'gateway.json'], io);
 */
export const command: Command = {
  name: 'gateway',
  summary: 'serve every MCP server of a host config through one gate, lock and audit',
  usage: [
    'toolpact gateway --config <mcp.json> [--lock <file>] [--policy <file>] [--audit <file>] [--otel]',
    '                 [--http [--port <n>] [--host <address>] ...] [--search [--always-loaded <name,...>]]',
    'toolpact gateway init --from <host config> [--out <file>] [--no-pin] [--npx]',
    'toolpact gateway pin --config <mcp.json> [--lock <file>] [--accept <server>/<tool>,...]',
    'toolpact gateway check --config <mcp.json> [--lock <file>] [--install] [--format table|json]',
    'toolpact gateway login <server> --config <mcp.json> [--no-browser] [--timeout <seconds>] [--store <url>]',
    'toolpact gateway login <server> --gateway <url> [--token-env <var>] [--no-browser]',
    'toolpact gateway logout <server> --config <mcp.json> [--store <url>]',
    '',
    'The config is a host file (Claude Desktop, Claude Code, Cursor or VS Code) in its own dialect, with',
    'an optional top-level "toolpact" section (policy, servers.<name>: enabled, prefix, timeoutMs,',
    'sandbox, alwaysLoaded, tools; search, newTools, lock). Every server starts in parallel; their tools',
    'are served through one registry: gated by the policy, audited, pinned in the lock (a changed',
    'definition is withheld: not listed, and a call answers tool_definition_changed), restarted with',
    'backoff when they fail. Saving the config or the lock applies it without a restart.',
    '',
    "  --config <file> the gateway's config (a host file)",
    '  --lock <file>   the lock of pinned definitions (default: toolpact.lock, else <config>.lock.json)',
    '  --policy <file> a JSON policy file (default: toolpact.policy of the config, else imported tools ask)',
    ...SERVE_FLAG_USAGE,
    '',
    "init    writes the gateway's config from a host's file: its servers, a starter policy to review",
    '        (each tool its server says is read-only allowed by server and name; the rest, and any tool',
    "        that appears later, asks) and the lock; prints the one entry to put in the host's file in",
    "        place of those servers. The host's file is never edited. --out defaults to a file in",
    '        $XDG_CONFIG_HOME/toolpact (~/.config/toolpact), and is refused inside any folder a server',
    '        can reach; --no-pin starts no server, so the policy allows nothing. The entry runs this',
    '        copy of toolpact by absolute paths (node and its bin); --npx prints npx -y toolpact@<version>',
    '        instead, for a version published on the npm registry.',
    'pin     starts each server once and records its current tool definitions in the lock. A tool seen',
    '        for the first time with hidden instructions in its definition is withheld and not pinned',
    '        unless --accept names it (<server>/<tool>, as check shows it).',
    'check   starts each server once and prints its tools and tokens, the lint summary (overrides',
    '        applied), which stdio servers run unsandboxed, and what changed since the lock. Exit 1 when',
    '        it found something (a server that did not start, a changed or new withheld definition, an',
    "        unsandboxed stdio server, a server that can reach the gateway's own files, a lint error); 0",
    '        otherwise; --format json lists each one. --install installs the packages of sandboxed npx',
    '        servers first, so that they can start without the network.',
    'login   signs you in to a remote (http) server that asks for OAuth: opens the browser (--no-browser',
    '        prints the URL), takes the redirect on 127.0.0.1, and keeps the tokens, encrypted, in',
    '        toolpact.tokens (default ~/.local/state/toolpact/mcp-tokens.json; key TOOLPACT_TOKEN_KEY, else',
    '        <file>.key), where a running gateway finds them. Until then the server is needs_login and its',
    '        tools answer auth_required. Exit 0 once the tokens are stored. With --store (or TOOLPACT_STORE)',
    '        the tokens go to the shared store, where every replica of a fleet finds them.',
    '        --gateway <url>: signs you in as yourself through a team gateway (--http --auth): sends',
    '        TOOLPACT_TOKEN (or --token-env) and opens the link it answers; the browser finishes it.',
    'logout  forgets the sign-in kept for a server.',
  ].join('\n'),
  async run(args, io) {
    const [sub] = args;
    const load = sub !== undefined && Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
    if (!load) return serve(args, io);
    // A signal ends the servers started once, then the command (see endProcessGroupsOnSignal).
    const groups = endProcessGroupsOnSignal('exit');
    try {
      const once = await load();
      return await once(args.slice(1), io, { startOnce, installPackages });
    } finally {
      groups.dispose();
    }
  },
};

async function serve(args: readonly string[], io: CliIo): Promise<ExitCode> {
  const { positionals, flags } = parseArgs(args, { ...SERVE_FLAGS, config: 'string', lock: 'string' });
  if (positionals.length > 0) {
    throw new UsageError(
      `Unexpected arguments: ${positionals.join(' ')}. Subcommands are init, pin, check, login and logout; the gateway itself takes --config.`,
    );
  }
  const config = await readConfig(flags.config, io);
  await refuseExposedFlags(config, flags, io);
  const policy = choosePolicy(flags.policy, config, io);
  const [{ startGateway }, { gatewayServedTools }] = await Promise.all([
    import('../../gateway/gateway.js'),
    import('../../gateway/gateway-served-tools.js'),
  ]);
  // A host that cannot be asked has every ask denied: said once, at the first such call.
  let told = false;
  const cannotAsk = async (request: PendingApproval) => {
    if (!told) {
      told = true;
      io.stderr(
        `toolpact gateway: this MCP client cannot be asked for approvals (no elicitation), so "${request.tool.name}" and every other call that needs one is denied. Allow what you trust in the policy (see the starter policy of toolpact gateway init, docs/gateway.md).\n`,
      );
    }
    return {
      action: 'deny' as const,
      reason: 'it needs approval and the MCP client cannot ask the user (no elicitation support)',
    };
  };
  // Installed in the same tick as serveTools' own stop signal, and kept through its shutdown: a signal
  // during it (the client closed stdin, then sends SIGTERM) ends the servers instead of orphaning them.
  const groups = endProcessGroupsOnSignal('shutdown');
  return serveTools(io, {
    command: 'gateway',
    flags,
    policy,
    ...(config.search
      ? { search: config.search.maxLoaded ? { maxLoaded: config.search.maxLoaded } : {} }
      : {}),
    fallbackApprover: cannotAsk,
    ...(config.auth ? { auth: config.auth } : {}),
    build: async (registryOptions, telemetry, endpoint, store) => {
      // Nothing waits for a server here: the client's initialize and server/discover are answered at
      // once, and what comes after them waits for firstListing (see "Start from the lock").
      const started = await startGateway({
        config,
        ...telemetry,
        ...lockOption(flags.lock, io),
        registry: registryOptions,
        ...(registryOptions.observe ? { audit: registryOptions.observe } : {}),
        log: (line) => io.stderr(`toolpact gateway: ${line}\n`),
        waitForStart: false,
        deferStart: true,
        ...(endpoint?.resource ? { team: { path: endpoint.path, publicUrl: endpoint.resource } } : {}),
        ...(await sharedTokens(config, store, io)),
      });
      io.stderr(summaryLine(started.status()));
      return gatewayServedTools(started);
    },
  }).finally(() => groups.dispose());
}

/** Starts every server once, for `pin`, `check` and `init`: no watching, no restarts worth waiting for. */
async function startOnce(
  config: GatewayConfig,
  lock: string | boolean | undefined,
  io: CliIo,
  pinning: 'first-start' | 'read-only',
): Promise<Gateway> {
  const { startGateway } = await import('../../gateway/gateway.js');
  return startGateway({
    config,
    ...lockOption(lock, io),
    pinning,
    watch: false,
    restart: { maxFailures: 1 },
    log: (line) => io.stderr(`toolpact gateway: ${line}\n`),
  });
}

/** `--install`: the packages of sandboxed `npx` servers, installed where the sandbox can read them. */
async function installPackages(config: GatewayConfig, io: CliIo): Promise<void> {
  const { installNpxPackage, npxPackageSpec, defaultNpxCacheDir } = await import('../../gateway/npx.js');
  const cache = defaultNpxCacheDir();
  for (const server of config.servers) {
    if (server.target.kind !== 'stdio' || !server.sandbox) continue;
    const spec = npxPackageSpec(server.target);
    if (!spec) continue;
    io.stderr(`toolpact gateway: installing ${spec} for ${server.name} into ${cache}.\n`);
    try {
      await installNpxPackage(spec, cache);
    } catch (error) {
      io.stderr(
        `toolpact gateway: ${server.name}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
  }
}
