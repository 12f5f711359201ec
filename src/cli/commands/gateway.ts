import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, relative, resolve } from 'node:path';
import type { PendingApproval } from '../../dispatch/gate.js';
import {
  type ExposedFileFinding,
  exposedFileFindings,
  policyNotes,
  serverNotes,
} from '../../gateway/check-notes.js';
import type { GatewayConfig } from '../../gateway/config/index.js';
import type { Gateway, GatewayServerStatus, NameCollision } from '../../gateway/gateway.js';
import { checkGatewayPolicy } from '../../gateway/gateway-policy.js';
import { definePolicy } from '../../policy/define-policy.js';
import { loadPolicyFile } from '../../policy/load-policy.js';
import type { Policy } from '../../policy/policy.js';
import { PolicyError } from '../../policy/policy-error.js';
import { counted } from '../../util/counted.js';
import { parseArgs } from '../args.js';
import type { CliIo, Command, ExitCode } from '../io.js';
import { InputError, UsageError } from '../io.js';
import { closeWithin } from '../lifecycle.js';
import { serveTools } from '../serve-command.js';
import { SERVE_FLAG_USAGE, SERVE_FLAGS } from '../serve-tools.js';
import { endProcessGroupsOnSignal } from '../stop-signal.js';
import { renderTable } from '../table.js';
import { VERSION } from '../version.js';

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
  ].join('\n'),
  async run(args, io) {
    const [sub] = args;
    const once = sub === 'init' ? init : sub === 'pin' ? pin : sub === 'check' ? check : undefined;
    if (!once) return serve(args, io);
    // A signal ends the servers started once, then the command (see endProcessGroupsOnSignal).
    const groups = endProcessGroupsOnSignal('exit');
    try {
      return await once(args.slice(1), io);
    } finally {
      groups.dispose();
    }
  },
};

async function serve(args: readonly string[], io: CliIo): Promise<ExitCode> {
  const { positionals, flags } = parseArgs(args, { ...SERVE_FLAGS, config: 'string', lock: 'string' });
  if (positionals.length > 0) {
    throw new UsageError(
      `Unexpected arguments: ${positionals.join(' ')}. Subcommands are init, pin and check; the gateway itself takes --config.`,
    );
  }
  const config = await readConfig(flags.config, io);
  await refuseExposedFlags(config, flags, io);
  const policy = choosePolicy(flags.policy, config, io);
  const { startGateway } = await import('../../gateway/gateway.js');
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
    build: async (registryOptions, telemetry) => {
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
      });
      io.stderr(summaryLine(started.status()));
      return {
        registry: started.registry,
        listing: started.listing,
        get alwaysLoaded() {
          return alwaysLoadedNames(started);
        },
        close: () => started.close(),
        begin: () => void started.begin(),
        ready: () => started.firstListing(),
      };
    },
  }).finally(() => groups.dispose());
}

async function pin(args: readonly string[], io: CliIo): Promise<ExitCode> {
  const { positionals, flags } = parseArgs(args, { config: 'string', lock: 'string', accept: 'string' });
  if (positionals.length > 0) throw new UsageError(`Unexpected arguments: ${positionals.join(' ')}.`);
  const accept = typeof flags.accept === 'string' ? flags.accept.split(',').map((key) => key.trim()) : [];
  const malformed = accept.find((key) => !/^[^/]+\/.+$/.test(key));
  if (malformed !== undefined) {
    throw new UsageError(
      `--accept takes <server>/<tool> (comma-separated), as gateway check names a withheld tool, received "${malformed}".`,
    );
  }
  const config = await readConfig(flags.config, io);
  const gateway = await startOnce(config, flags.lock, io, 'first-start');
  try {
    gateway.pin({ accept });
    const status = gateway.status();
    for (const server of status) {
      io.stdout(
        server.state === 'up'
          ? `${server.name}: pinned ${counted(server.tools, 'tool')} (${server.era === 'modern' ? 'revision 2026-07-28' : 'legacy era'}).\n`
          : `${server.name}: not pinned: ${server.state}${server.reason ? ` (${server.reason})` : ''}.\n`,
      );
    }
    const failed = status.filter((server) => server.enabled && server.state !== 'up');
    return failed.length > 0 ? 1 : 0;
  } finally {
    await closeWithin(gateway, io, 'gateway pin', 'the MCP servers');
  }
}

async function check(args: readonly string[], io: CliIo): Promise<ExitCode> {
  const { positionals, flags } = parseArgs(args, {
    config: 'string',
    lock: 'string',
    install: 'boolean',
    format: 'string',
  });
  if (positionals.length > 0) throw new UsageError(`Unexpected arguments: ${positionals.join(' ')}.`);
  const format = flags.format ?? 'table';
  if (format !== 'table' && format !== 'json') {
    throw new UsageError(`--format takes table or json, received "${String(format)}".`);
  }
  const config = await readConfig(flags.config, io);
  const exposed = await warnExposedFiles(config, flags.lock, io);
  if (flags.install === true) await installPackages(config, io);
  const gateway = await startOnce(config, flags.lock, io, 'read-only');
  try {
    const [{ ESTIMATED_TOKENS_NOTE, tokenCounting, tokenReport }, { lint }] = await Promise.all([
      import('../../schema/index.js'),
      import('../../lint/index.js'),
    ]);
    const status = gateway.status();
    const reports = status.map((server) => {
      const tools = server.served
        .map((name) => gateway.registry.get(name))
        .filter((tool) => tool !== undefined);
      const linted = tools.length > 0 ? lint(tools) : undefined;
      const rules = new Map<string, number>();
      for (const finding of linted?.findings ?? [])
        rules.set(finding.rule, (rules.get(finding.rule) ?? 0) + 1);
      const spec = config.servers.find((entry) => entry.name === server.name);
      return {
        ...server,
        ...(spec ? { notes: serverNotes(spec, tools) } : {}),
        tokens: {
          openai: tokenReport(
            tools.map((tool) => tool.contract),
            'openai',
          ).total,
          anthropic: tokenReport(
            tools.map((tool) => tool.contract),
            'anthropic',
          ).total,
        },
        lint: {
          errors: linted?.errorCount ?? 0,
          warnings: linted?.warningCount ?? 0,
          rules: Object.fromEntries([...rules].sort((a, b) => b[1] - a[1])),
        },
      };
    });
    const policy = policyNotes(
      config.policy ?? definePolicy({ rules: [] }),
      `${basename(config.file)}#toolpact.policy`,
    );
    const failed = reports.filter((server) => server.enabled && server.state !== 'up');
    const findings =
      failed.length +
      policy.length +
      exposed.length +
      reports.reduce(
        (sum, server) => sum + server.withheld.length + (server.unsandboxed ? 1 : 0) + server.lint.errors,
        0,
      );
    if (format === 'json') {
      io.stdout(
        `${JSON.stringify(
          {
            config: config.file,
            servers: reports,
            skipped: config.skipped,
            policy,
            exposed,
            totals: {
              tools: reports.reduce((sum, server) => sum + server.served.length, 0),
              openai: reports.reduce((sum, server) => sum + server.tokens.openai, 0),
              anthropic: reports.reduce((sum, server) => sum + server.tokens.anthropic, 0),
            },
          },
          null,
          2,
        )}\n`,
      );
      return findings > 0 ? 1 : 0;
    }
    const rows = reports.map((server) => [
      server.name,
      server.enabled ? server.state : 'disabled',
      server.era ?? '-',
      String(server.served.length),
      String(server.tokens.openai),
      `${server.lint.errors}/${server.lint.warnings}`,
      server.transport === 'stdio' ? (server.unsandboxed ? 'NO' : 'yes') : 'remote',
      changesOf(server),
    ]);
    io.stdout(
      renderTable(
        ['server', 'state', 'era', 'tools', 'tokens (openai)', 'lint e/w', 'sandboxed', 'since the lock'],
        rows,
      ),
    );
    for (const skipped of config.skipped) io.stdout(`\n${skipped.name}: skipped: ${skipped.reason}\n`);
    if (policy.length > 0) io.stdout(`\n${policy.join('\n')}\n`);
    for (const server of reports) {
      const lines: string[] = [];
      if (server.enabled && server.state !== 'up') {
        lines.push(`  did not start: ${server.reason ?? server.state}`);
        if (server.stderr) lines.push(`  last stderr lines:\n${indent(server.stderr, 4)}`);
      }
      if (server.notes) {
        const { roots, claimedReadOnly, hiddenInstructions } = server.notes;
        lines.push(`  roots (${roots.from}): ${roots.folders.join(', ')}`);
        if (claimedReadOnly.length > 0) {
          lines.push(
            `  the server says read-only: ${claimedReadOnly.join(', ')} (a hint the gate never uses; give a category in toolpact.servers.${server.name}.tools to apply one)`,
          );
        }
        for (const found of hiddenInstructions) {
          lines.push(
            `  hidden instructions in "${found.tool}" (${found.path}, ${found.rule}): ${found.marked}`,
          );
        }
      }
      if (server.unsandboxed) {
        lines.push(
          `  runs unsandboxed: it can read your home directory and reach the network. Give it toolpact.servers.${server.name}.sandbox.`,
        );
      }
      for (const withheld of server.withheld) {
        lines.push(
          withheld.reason === 'changed'
            ? `  "${withheld.remoteName}" changed since it was pinned (withheld):\n${indent(withheld.descriptionDiff ?? '', 4)}`
            : withheld.reason === 'hidden-instructions'
              ? `  "${withheld.remoteName}" is new and has hidden instructions (withheld until accepted: toolpact gateway pin --accept ${server.name}/${withheld.remoteName}):${(withheld.findings ?? []).map((found) => `\n    ${found.path} (${found.rule}): ${found.marked}`).join('')}`
              : `  "${withheld.remoteName}" is new (withheld: newTools is "withhold")`,
        );
      }
      for (const collision of server.collisions) lines.push(`  ${collisionLine(collision)}`);
      if (server.removed.length > 0) lines.push(`  no longer listed: ${server.removed.join(', ')}`);
      for (const skipped of server.skipped)
        lines.push(`  not served: ${skipped.remoteName}: ${skipped.message}`);
      const rules = Object.entries(server.lint.rules);
      if (rules.length > 0) {
        lines.push(`  lint: ${rules.map(([rule, count]) => `${rule} ${count}`).join(', ')}`);
      }
      if (lines.length > 0) io.stdout(`\n${server.name}\n${lines.join('\n')}\n`);
    }
    const totals = reports.reduce(
      (sum, server) => ({
        tools: sum.tools + server.served.length,
        tokens: sum.tokens + server.tokens.openai,
      }),
      { tools: 0, tokens: 0 },
    );
    io.stdout(
      `\n${counted(totals.tools, 'tool')} from ${counted(reports.length, 'server')} cost ${counted(totals.tokens, 'token')} a request in the OpenAI format (toolpact lint on the overridden contracts; toolpact gateway --search lists only search_tools and the always-loaded ones).\n`,
    );
    if (tokenCounting() === 'estimated') io.stdout(`${ESTIMATED_TOKENS_NOTE}\n`);
    return findings > 0 ? 1 : 0;
  } finally {
    await closeWithin(gateway, io, 'gateway check', 'the MCP servers');
  }
}

async function init(args: readonly string[], io: CliIo): Promise<ExitCode> {
  const { positionals, flags } = parseArgs(args, {
    from: 'string',
    out: 'string',
    'no-pin': 'boolean',
    npx: 'boolean',
  });
  if (positionals.length > 0) throw new UsageError(`Unexpected arguments: ${positionals.join(' ')}.`);
  if (typeof flags.from !== 'string') {
    throw new UsageError(
      'Give the host config to start from with --from, e.g. --from ~/.config/Claude/claude_desktop_config.json (docs/gateway.md lists where each host keeps it).',
    );
  }
  const from = resolve(io.cwd, flags.from);
  const home = io.env.HOME ?? homedir();
  const { readHostText, readGatewayConfig, defaultLockOf } = await import('../../gateway/config/index.js');
  const {
    resolveHostConfig,
    exposedFolders,
    exposingFolder,
    defaultGatewayConfigFile,
    relocateEntry,
    starterPolicy,
    gatewayHostEntry,
  } = await import('../../gateway/init-config.js');
  const raw = asInput(() => readHostText(from) as { [key: string]: unknown });
  // Checked as the gateway will read it; the entries are then copied as written (variables unexpanded).
  const env = { ...process.env, ...io.env };
  const {
    config: host,
    entries: resolved,
    unresolved,
  } = asInput(() => resolveHostConfig(from, raw, env, home));
  const out =
    typeof flags.out === 'string'
      ? resolve(io.cwd, flags.out)
      : defaultGatewayConfigFile(from, host.dialect, io.env, home);
  if (existsSync(out)) {
    throw new InputError(
      `${relativePath(io.cwd, out)} already exists; init never overwrites a file. Give another --out, or remove it.`,
    );
  }
  // No server may reach the gateway's own files: a model could rewrite its policy through one.
  const exposed = exposedFolders(host);
  const section =
    raw.toolpact && typeof raw.toolpact === 'object' ? (raw.toolpact as { lock?: unknown }) : {};
  const lock = typeof section.lock === 'string' ? resolve(dirname(out), section.lock) : defaultLockOf(out);
  for (const [role, file] of [
    ['config', out],
    ['lock', lock],
  ] as const) {
    const holder = exposingFolder(file, exposed);
    if (holder) {
      throw new InputError(
        `The gateway's ${role} would be written to ${file}, inside ${holder.folder} (${holder.why}): a model could change it through that server. Give an --out outside every folder a server can reach, or leave --out out to write it in ${dirname(defaultGatewayConfigFile(from, host.dialect, io.env, home))}.`,
      );
    }
  }
  const key = host.dialect === 'vscode' ? 'servers' : 'mcpServers';
  const entries: { [name: string]: unknown } = {};
  // An entry that already starts the gateway being written would start it inside itself.
  const { startsThisGateway } = await import('../../gateway/config/self.js');
  const loops = host.servers.filter(
    (server) => server.target.kind === 'stdio' && startsThisGateway(server.target, out, home),
  );
  for (const [name, entry] of Object.entries(resolved)) {
    if (!loops.some((server) => server.name === name)) entries[name] = relocateEntry(entry, host);
  }
  const written = (policy: ReturnType<typeof starterPolicy>) =>
    `${JSON.stringify(
      {
        [key]: entries,
        ...(host.dialect === 'vscode' && raw.inputs ? { inputs: raw.inputs } : {}),
        toolpact: { host: host.dialect, policy, ...settingsOf(section, entries) },
      },
      null,
      2,
    )}\n`;
  mkdirSync(dirname(out), { recursive: true, mode: 0o700 });
  writeFileSync(out, written(starterPolicy([])), { flag: 'wx' });
  const count = Object.keys(entries).length;
  io.stdout(`Wrote the gateway's config to ${out} with ${count} server${count === 1 ? '' : 's'}.\n`);
  for (const skipped of host.skipped) io.stdout(`Left out ${skipped.name}: ${skipped.reason}\n`);
  for (const skipped of unresolved) io.stdout(`Left out ${skipped.name}: ${skipped.reason}\n`);
  for (const server of loops)
    io.stdout(`Left out ${server.name}: it starts the gateway this config is for.\n`);
  let code: ExitCode = 0;
  if (flags['no-pin'] === true) {
    io.stdout(
      'The starter policy allows nothing yet: with --no-pin no server was started, so no tool was seen. Every tool asks; add allow rules for the tools you trust.\n',
    );
  } else {
    const config = asInput(() => readGatewayConfig(out, { env }));
    const gateway = await startOnce(config, undefined, io, 'first-start');
    try {
      gateway.pin();
      for (const server of gateway.status()) {
        if (server.state !== 'up') {
          code = 1;
          io.stdout(
            `${server.name} did not start (${server.reason ?? server.state}); run toolpact gateway pin once it does.\n`,
          );
        }
      }
      const seen = gateway.registry.list().flatMap((tool) => {
        const meta = tool.meta as { server?: unknown; annotations?: { readOnlyHint?: unknown } };
        return typeof meta.server === 'string'
          ? [
              {
                server: meta.server,
                name: tool.contract.name,
                readOnlyHint: meta.annotations?.readOnlyHint === true,
              },
            ]
          : [];
      });
      const policy = starterPolicy(seen);
      if (!('policy' in section)) writeFileSync(out, written(policy));
      io.stdout(`Pinned the tool definitions in ${lockOf(config)}.\n`);
      io.stdout(
        `The starter policy allows ${policy.rules.length} of ${counted(seen.length, 'tool')}, each one its server says is read-only (readOnlyHint), by server and name: review them in ${out}. Every other tool asks, and so does any tool that appears later.\n`,
      );
    } finally {
      await closeWithin(gateway, io, 'gateway init', 'the MCP servers');
    }
  }
  const { installedCopy } = await import('../installed-copy.js');
  const copy = flags.npx === true ? undefined : installedCopy();
  const entry = gatewayHostEntry(
    host.dialect,
    out,
    copy ? { kind: 'installed', node: process.execPath, bin: copy.bin } : { kind: 'npx', version: VERSION },
  );
  io.stdout(
    `\nIn ${basename(from)}, replace those servers with this one entry (toolpact never edits it for you):\n\n${JSON.stringify(
      { [key]: { 'toolpact-gateway': entry } },
      null,
      2,
    )}\n`,
  );
  if (copy && /[\\/]_npx[\\/]/.test(copy.bin)) {
    io.stdout(
      `\nThis toolpact runs from npx's cache (${copy.packageDir}), which npm may clear. Install it (npm install -g toolpact@${VERSION}) and run init again, or give --npx to print an entry that runs npx -y toolpact@${VERSION}.\n`,
    );
  } else if (!copy && flags.npx !== true) {
    io.stdout(
      `\ntoolpact's own package was not found on the disk, so this entry runs npx -y toolpact@${VERSION}, which works once that version is published. Otherwise put the command that starts toolpact there.\n`,
    );
  }
  return code;
}

/** The host's own `toolpact` section, its `servers` kept to the entries init copied. */
function settingsOf(section: object, entries: { readonly [name: string]: unknown }): object {
  const { servers } = section as { servers?: unknown };
  if (!servers || typeof servers !== 'object') return section;
  const kept = Object.entries(servers).filter(([name]) => Object.hasOwn(entries, name));
  return { ...section, servers: Object.fromEntries(kept) };
}

/** For `check`: each server, sandboxed or not, that can reach one of the gateway's files, said and answered as findings. */
async function warnExposedFiles(
  config: GatewayConfig,
  lock: string | boolean | undefined,
  io: CliIo,
): Promise<ExposedFileFinding[]> {
  const { exposedGatewayFiles, gatewayFiles } = await import('../../gateway/config/index.js');
  const files = gatewayFiles(config, typeof lock === 'string' ? { lock: resolve(io.cwd, lock) } : {});
  const findings = exposedFileFindings(exposedGatewayFiles(config, files));
  for (const finding of findings) io.stderr(`toolpact gateway check: ${finding.message}\n`);
  return findings;
}

/** `--lock`, `--policy` and `--audit` name gateway files too: no sandbox grant may hold one. */
async function refuseExposedFlags(
  config: GatewayConfig,
  flags: { readonly [name: string]: string | boolean | undefined },
  io: CliIo,
): Promise<void> {
  const given: { lock?: string; policy?: string; audit?: string } = {};
  for (const name of ['lock', 'policy', 'audit'] as const) {
    const value = flags[name];
    if (typeof value === 'string') given[name] = resolve(io.cwd, value);
  }
  if (Object.keys(given).length === 0) return;
  const { gatewayFiles, refuseGrantsOverGatewayFiles } = await import('../../gateway/config/index.js');
  const files = gatewayFiles(config, given).filter(
    (file) => given[file.role as keyof typeof given] === file.path,
  );
  asInput(() =>
    refuseGrantsOverGatewayFiles(config, files, undefined, (file) => `${file.path} (--${file.role})`),
  );
}

/** Runs a config read: a config or policy error is an input error, said as its message. */
function asInput<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof Error && error.name === 'GatewayConfigError') throw new InputError(error.message);
    if (error instanceof PolicyError) throw new InputError(error.message);
    throw error;
  }
}

async function readConfig(file: string | boolean | undefined, io: CliIo): Promise<GatewayConfig> {
  if (typeof file !== 'string') {
    throw new UsageError("Give the gateway's config with --config <file> (a host file such as mcp.json).");
  }
  const { readGatewayConfig } = await import('../../gateway/config/index.js');
  return readConfigFile(() => readGatewayConfig(resolve(io.cwd, file), { env: io.env }), io);
}

function readConfigFile(read: () => GatewayConfig, _io: CliIo): GatewayConfig {
  return asInput(read);
}

function choosePolicy(file: string | boolean | undefined, config: GatewayConfig, io: CliIo): Policy {
  try {
    if (typeof file === 'string') return checkGatewayPolicy(loadPolicyFile(resolve(io.cwd, file)), file);
  } catch (error) {
    if (error instanceof PolicyError) throw new InputError(error.message);
    throw error;
  }
  return config.policy ?? definePolicy({ rules: [] });
}

function lockOption(lock: string | boolean | undefined, io: CliIo): { lockFile?: string } {
  return typeof lock === 'string' ? { lockFile: resolve(io.cwd, lock) } : {};
}

function lockOf(config: GatewayConfig): string {
  return (
    config.lock ??
    resolve(dirname(config.file), `${basename(config.file).replace(/\.jsonc?$/i, '')}.lock.json`)
  );
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

function alwaysLoadedNames(gateway: Gateway): string[] {
  const names: string[] = [];
  for (const server of gateway.config().servers) {
    const status = gateway.status().find((each) => each.name === server.name);
    if (!status || server.alwaysLoaded === false) continue;
    if (server.alwaysLoaded === true) {
      names.push(...status.served);
      continue;
    }
    for (const remote of server.alwaysLoaded) {
      const tool = gateway.registry
        .list()
        .find((each) => each.meta.server === server.name && each.meta.remoteName === remote);
      if (tool) names.push(tool.contract.name);
    }
  }
  return names;
}

function summaryLine(status: readonly GatewayServerStatus[]): string {
  const up = status.filter((server) => server.state === 'up');
  const rest = status.filter((server) => server.enabled && server.state !== 'up');
  return `toolpact gateway: ${up.length} of ${counted(status.filter((server) => server.enabled).length, 'server')} up${
    rest.length > 0 ? ` (${rest.map((server) => `${server.name}: ${server.state}`).join(', ')})` : ''
  }.\n`;
}

function changesOf(server: GatewayServerStatus): string {
  const changed = server.withheld.filter((tool) => tool.reason === 'changed').length;
  const added = server.withheld.filter((tool) => tool.reason === 'new').length;
  const parts = [
    ...(changed ? [`${changed} changed`] : []),
    ...(added ? [`${added} new withheld`] : []),
    ...(server.removed.length ? [`${server.removed.length} removed`] : []),
    ...(server.collisions.length ? [`${server.collisions.length} prefixed`] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : 'unchanged';
}

function collisionLine(collision: NameCollision): string {
  const { owner } = collision;
  return `"${collision.remoteName}" is served as "${collision.name}": ${
    owner
      ? `the name "${collision.wanted}" belongs to "${owner.remoteName}" of ${owner.server}`
      : `the name "${collision.wanted}" is taken outside the config's servers`
  }`;
}

function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => `${pad}${line}`)
    .join('\n');
}

function relativePath(cwd: string, file: string): string {
  const real = existsSync(file) ? realpathSync(file) : file;
  const shown = relative(cwd, real);
  return shown && !shown.startsWith('..') ? shown : file;
}
