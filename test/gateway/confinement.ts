// What a hostile server sees from inside the gateway's sandbox, for sandbox-escape.test.ts: the same
// probe (test/fixtures/gateway/confinement-probe.mjs) started three ways, so that every "cannot"
// has a control that shows it can elsewhere. Imported by the test as root, and by a script it runs
// as the unprivileged user "nobody".

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { type SandboxedCommand, sandboxedCommand } from '../../src/gateway/sandbox-server.js';
import { connectMcpServer } from '../../src/mcp/connect.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CONFINEMENT_PROBE = join(projectRoot, 'test', 'fixtures', 'gateway', 'confinement-probe.mjs');

/**
 * Kernel files that change the whole host when written: the core dump handler (run as root on a
 * crash), the module loader, caches, limits, the magic SysRq key. Only ever opened, never written.
 */
export const KERNEL_FILES = [
  '/proc/sys/kernel/core_pattern',
  '/proc/sys/kernel/modprobe',
  '/proc/sys/kernel/hostname',
  '/proc/sys/kernel/pid_max',
  '/proc/sys/vm/drop_caches',
  '/proc/sys/fs/file-max',
  '/proc/sysrq-trigger',
];

/** What the probe saw. */
export interface ConfinementReport {
  readonly self: number;
  readonly pids: number[];
  /** How many files it tried to open for writing. */
  readonly tried: number;
  readonly opened: string[];
  readonly refused: Record<string, string>;
  /** Each visible process's environment, or the errno code that kept it unread. */
  readonly environ: Record<string, string[] | string>;
}

export interface ConfinementReports {
  /** Under the gateway's sandbox, as `sandboxedCommand` builds it. */
  readonly sandboxed: ConfinementReport;
  /** The same bubblewrap command without the rules under test: /proc left writable, bwrap started with the SDK's environment. */
  readonly withoutRules: ConfinementReport;
  /** The probe started directly, as an unsandboxed server is. */
  readonly unsandboxed: ConfinementReport;
  /** The host environment the SDK's stdio transport hands every server it starts (`NAME=value`). */
  readonly hostEnvironment: string[];
}

// What makes /proc read-only in bubblewrapOptions, and what empties bubblewrap's environment.
const PROC_RULES = [
  ['--ro-bind', '/proc/sys', '/proc/sys'],
  ['--remount-ro', '/proc'],
];

/** The same command with the /proc rules taken out, bubblewrap started directly (the SDK then gives it our environment). */
export function withoutRules(sandboxed: SandboxedCommand): { command: string; args: string[] } {
  const [empty, bwrap, ...rest] = sandboxed.args;
  if (empty !== '-i' || bwrap === undefined)
    throw new Error(`not started through env -i: ${sandboxed.args.join(' ')}`);
  const split = rest.indexOf('--');
  const options = rest.slice(0, split);
  for (const rule of PROC_RULES) {
    const at = options.findIndex((_, index) =>
      rule.every((word, offset) => options[index + offset] === word),
    );
    if (at < 0) throw new Error(`"${rule.join(' ')}" is not among the options`);
    options.splice(at, rule.length);
  }
  return { command: bwrap, args: [...options, ...rest.slice(split)] };
}

export async function reportOf(
  target: { command: string; args: string[]; env?: Record<string, string> },
  request: { paths: string[]; under?: string },
): Promise<ConfinementReport> {
  // One era, not the negotiation's second process: the probe answers both, and every start costs.
  const connection = await connectMcpServer(target, { era: 'legacy' });
  try {
    const result = (await connection.client.callTool({ name: 'report', arguments: request })) as {
      content: { text: string }[];
    };
    return JSON.parse(result.content[0]!.text) as ConfinementReport;
  } finally {
    await connection.close();
  }
}

/** The probe under the gateway's sandbox, with or without the host's network. */
export function sandboxedProbe(network = false): SandboxedCommand {
  return sandboxedCommand(
    { command: 'node', args: [CONFINEMENT_PROBE], env: {} },
    { read: [], write: [], network },
    { server: 'confinement-probe' },
  );
}

/** Starts the probe the three ways and collects what each saw. */
export async function collectReports(): Promise<ConfinementReports> {
  const sandboxed = sandboxedProbe();
  // Inside, every file of /proc/sys is tried; outside, only the named few.
  const inside = { paths: KERNEL_FILES, under: '/proc/sys' };
  return {
    sandboxed: await reportOf(sandboxed, inside),
    withoutRules: await reportOf(withoutRules(sandboxed), { paths: KERNEL_FILES }),
    unsandboxed: await reportOf(
      { command: process.execPath, args: [CONFINEMENT_PROBE] },
      { paths: KERNEL_FILES },
    ),
    hostEnvironment: Object.entries(getDefaultEnvironment()).map(([name, value]) => `${name}=${value}`),
  };
}
