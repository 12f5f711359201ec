import { resolve } from 'node:path';
import { catalogCheckLines } from '../../gateway/check-catalog.js';
import type { ExposedFileFinding } from '../../gateway/check-notes.js';
import type { GatewayCheck, ServerCheck } from '../../gateway/check-report.js';
import type { GatewayConfig } from '../../gateway/config/index.js';
import type { NameCollision } from '../../gateway/gateway.js';
import { counted } from '../../util/counted.js';
import { parseArgs } from '../args.js';
import { type GatewaySubcommand, readConfig } from '../gateway-options.js';
import { type CliIo, UsageError } from '../io.js';
import { closeWithin } from '../lifecycle.js';
import { renderTable } from '../table.js';

/**
 * `toolpact gateway check`: starts each server once and prints its tools and tokens, the lint summary,
 * which stdio servers run unsandboxed, and what changed since the lock. Exit 1 when it found something.
 *
 * @example
 * // toolpact gateway check --config mcp.json --format json
 * await execute(['gateway', 'check', '--config', 'mcp.json', '--format', 'json'], io);
 */
export const check: GatewaySubcommand = async (args, io, once) => {
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
  if (flags.install === true) await once.installPackages(config, io);
  const gateway = await once.startOnce(config, flags.lock, io, 'read-only');
  try {
    const [{ checkFindings, checkGateway }, { ESTIMATED_TOKENS_NOTE, tokenCounting }] = await Promise.all([
      import('../../gateway/check-report.js'),
      import('../../schema/index.js'),
    ]);
    const report = checkGateway(gateway, config, exposed);
    if (format === 'json') {
      io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      printTable(report, io);
      if (tokenCounting() === 'estimated') io.stdout(`${ESTIMATED_TOKENS_NOTE}\n`);
    }
    return checkFindings(report) > 0 ? 1 : 0;
  } finally {
    await closeWithin(gateway, io, 'gateway check', 'the MCP servers');
  }
};

/** For `check`: each server, sandboxed or not, that can reach one of the gateway's files, said and answered as findings. */
async function warnExposedFiles(
  config: GatewayConfig,
  lock: string | boolean | undefined,
  io: CliIo,
): Promise<ExposedFileFinding[]> {
  const [{ exposedGatewayFiles, gatewayFiles }, { exposedFileFindings }] = await Promise.all([
    import('../../gateway/config/index.js'),
    import('../../gateway/check-notes.js'),
  ]);
  const files = gatewayFiles(config, typeof lock === 'string' ? { lock: resolve(io.cwd, lock) } : {});
  const findings = exposedFileFindings(exposedGatewayFiles(config, files));
  for (const finding of findings) io.stderr(`toolpact gateway check: ${finding.message}\n`);
  return findings;
}

/** The table of servers, then the skipped entries, the policy's notes, each server's details and the totals. */
function printTable(report: GatewayCheck, io: CliIo): void {
  const rows = report.servers.map((server) => [
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
  for (const skipped of report.skipped) io.stdout(`\n${skipped.name}: skipped: ${skipped.reason}\n`);
  if (report.policy.length > 0) io.stdout(`\n${report.policy.join('\n')}\n`);
  if (report.callers.length > 0) io.stdout(`\n${report.callers.join('\n')}\n`);
  for (const server of report.servers) {
    const lines = detailLines(server);
    if (lines.length > 0) io.stdout(`\n${server.name}\n${lines.join('\n')}\n`);
  }
  const { tools, openai } = report.totals;
  io.stdout(
    `\n${counted(tools, 'tool')} from ${counted(report.servers.length, 'server')} cost ${counted(openai, 'token')} a request in the OpenAI format (toolpact lint on the overridden contracts; toolpact gateway --search lists only search_tools and the always-loaded ones).\n`,
  );
}

/** What the table cannot show of one server: why it did not start, its notes, withheld tools, lint rules. */
function detailLines(server: ServerCheck): string[] {
  const lines: string[] = [];
  if (server.state === 'needs_login') {
    lines.push(
      `  needs a sign-in: run ${server.login ?? `toolpact gateway login ${server.name}`} (its tools answer auth_required until then)`,
    );
  } else if (server.enabled && server.state !== 'up') {
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
      lines.push(`  hidden instructions in "${found.tool}" (${found.path}, ${found.rule}): ${found.marked}`);
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
  lines.push(...catalogCheckLines(server));
  if (server.removed.length > 0) lines.push(`  no longer listed: ${server.removed.join(', ')}`);
  for (const skipped of server.skipped) lines.push(`  not served: ${skipped.remoteName}: ${skipped.message}`);
  const rules = Object.entries(server.lint.rules);
  if (rules.length > 0) lines.push(`  lint: ${rules.map(([rule, count]) => `${rule} ${count}`).join(', ')}`);
  return lines;
}

function changesOf(server: ServerCheck): string {
  const withheld = [...server.withheld, ...server.catalog.withheld];
  const changed = withheld.filter((item) => item.reason === 'changed').length;
  const added = withheld.filter((item) => item.reason === 'new').length;
  const parts = [
    ...(changed ? [`${changed} changed`] : []),
    ...(added ? [`${added} new withheld`] : []),
    ...(server.removed.length ? [`${server.removed.length} removed`] : []),
    ...(server.collisions.length ? [`${server.collisions.length} prefixed`] : []),
    ...(server.catalog.shadowed.length ? [`${server.catalog.shadowed.length} shadowed`] : []),
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
