import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, relative, resolve } from 'node:path';
import type { HostDialect } from '../../gateway/config/index.js';
import type { InitPlan } from '../../gateway/init-plan.js';
import { counted } from '../../util/counted.js';
import { parseArgs } from '../args.js';
import { asInput, type GatewayOnce, type GatewaySubcommand } from '../gateway-options.js';
import { type CliIo, type ExitCode, InputError, UsageError } from '../io.js';
import { closeWithin } from '../lifecycle.js';
import { VERSION } from '../version.js';

/**
 * `toolpact gateway init`: writes the gateway's config from a host's file, with a starter policy and
 * the lock, and prints the one entry to put in the host's file in place of its servers.
 *
 * @example
 * // toolpact gateway init --from ~/.config/Claude/claude_desktop_config.json
 * await execute(['gateway', 'init', '--from', 'claude_desktop_config.json'], io);
 */
export const init: GatewaySubcommand = async (args, io, once) => {
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
  const [{ readHostText }, { resolveHostConfig, defaultGatewayConfigFile, starterPolicy }, { planInit }] =
    await Promise.all([
      import('../../gateway/config/index.js'),
      import('../../gateway/init-config.js'),
      import('../../gateway/init-plan.js'),
    ]);
  const raw = asInput(() => readHostText(from) as { [key: string]: unknown });
  // Checked as the gateway will read it; the entries are then copied as written (variables unexpanded).
  const env = { ...process.env, ...io.env };
  const resolved = asInput(() => resolveHostConfig(from, raw, env, home));
  const host = resolved.config;
  const defaultOut = () => defaultGatewayConfigFile(from, host.dialect, io.env, home);
  const out = typeof flags.out === 'string' ? resolve(io.cwd, flags.out) : defaultOut();
  if (existsSync(out)) {
    throw new InputError(
      `${relativePath(io.cwd, out)} already exists; init never overwrites a file. Give another --out, or remove it.`,
    );
  }
  const plan = planInit(raw, resolved, out, home);
  if (plan.exposed) {
    const { role, file, holder } = plan.exposed;
    throw new InputError(
      `The gateway's ${role} would be written to ${file}, inside ${holder.folder} (${holder.why}): a model could change it through that server. Give an --out outside every folder a server can reach, or leave --out out to write it in ${dirname(defaultOut())}.`,
    );
  }
  mkdirSync(dirname(out), { recursive: true, mode: 0o700 });
  writeFileSync(out, plan.text(starterPolicy([])), { flag: 'wx' });
  const count = Object.keys(plan.entries).length;
  io.stdout(`Wrote the gateway's config to ${out} with ${count} server${count === 1 ? '' : 's'}.\n`);
  for (const skipped of [...host.skipped, ...resolved.unresolved])
    io.stdout(`Left out ${skipped.name}: ${skipped.reason}\n`);
  for (const name of plan.loops) io.stdout(`Left out ${name}: it starts the gateway this config is for.\n`);
  let code: ExitCode = 0;
  if (flags['no-pin'] === true) {
    io.stdout(
      'The starter policy allows nothing yet: with --no-pin no server was started, so no tool was seen. Every tool asks; add allow rules for the tools you trust.\n',
    );
  } else {
    code = await pinFirst(plan, out, env, io, once);
  }
  await printHostEntry(host.dialect, plan.key, from, out, flags.npx === true, io);
  return code;
};

/** Starts every server once, pins what they serve, and writes the starter policy from what they said. */
async function pinFirst(
  plan: InitPlan,
  out: string,
  env: NodeJS.ProcessEnv,
  io: CliIo,
  once: GatewayOnce,
): Promise<ExitCode> {
  const [{ readGatewayConfig }, { starterPolicy }, { seenTools }] = await Promise.all([
    import('../../gateway/config/index.js'),
    import('../../gateway/init-config.js'),
    import('../../gateway/init-plan.js'),
  ]);
  const config = asInput(() => readGatewayConfig(out, { env }));
  const gateway = await once.startOnce(config, undefined, io, 'first-start');
  let code: ExitCode = 0;
  try {
    gateway.pin();
    for (const server of gateway.status()) {
      if (server.state !== 'up') {
        code = 1;
        io.stdout(
          server.state === 'needs_login'
            ? `${server.name} needs a sign-in: run ${server.login ?? `toolpact gateway login ${server.name}`}, then toolpact gateway pin.\n`
            : `${server.name} did not start (${server.reason ?? server.state}); run toolpact gateway pin once it does.\n`,
        );
      }
    }
    const seen = seenTools(gateway.registry);
    const policy = starterPolicy(seen);
    if (!plan.keepsPolicy) writeFileSync(out, plan.text(policy));
    io.stdout(`Pinned the tool definitions in ${config.lock ?? plan.lock}.\n`);
    io.stdout(
      `The starter policy allows ${policy.rules.length} of ${counted(seen.length, 'tool')}, each one its server says is read-only (readOnlyHint), by server and name: review them in ${out}. Every other tool asks, and so does any tool that appears later.\n`,
    );
  } finally {
    await closeWithin(gateway, io, 'gateway init', 'the MCP servers');
  }
  return code;
}

/** The entry that replaces the moved servers in the host's file, and a word when it cannot last. */
async function printHostEntry(
  dialect: HostDialect,
  key: InitPlan['key'],
  from: string,
  out: string,
  npx: boolean,
  io: CliIo,
): Promise<void> {
  const [{ installedCopy }, { gatewayHostEntry }] = await Promise.all([
    import('../installed-copy.js'),
    import('../../gateway/init-config.js'),
  ]);
  const copy = npx ? undefined : installedCopy();
  const entry = gatewayHostEntry(
    dialect,
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
  } else if (!npx && !copy) {
    io.stdout(
      `\ntoolpact's own package was not found on the disk, so this entry runs npx -y toolpact@${VERSION}, which works once that version is published. Otherwise put the command that starts toolpact there.\n`,
    );
  }
}

function relativePath(cwd: string, file: string): string {
  const real = existsSync(file) ? realpathSync(file) : file;
  const shown = relative(cwd, real);
  return shown && !shown.startsWith('..') ? shown : file;
}
