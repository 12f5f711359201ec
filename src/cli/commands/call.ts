import type { AuditSink } from '../../audit/audit-sink.js';
import { createPolicyGate } from '../../policy/policy-gate.js';
import { Registry } from '../../registry/registry.js';
import { parseArgs } from '../args.js';
import { choosePolicy, openAuditOption } from '../gate-options.js';
import type { CliIo, Command, ExitCode } from '../io.js';
import { UsageError } from '../io.js';
import { closeWithin, ownLoaded } from '../lifecycle.js';
import { loadRegistry } from '../load-module.js';
import { terminalApprover } from '../terminal-approver.js';

/** `toolpact call <module> <tool> '<json>'`: dispatch one call through the permission gate and print the envelope. */
export const command: Command = {
  name: 'call',
  summary: 'dispatch one call to a tool through the permission gate and print the result envelope',
  usage: [
    "toolpact call <module> <tool> ['<json arguments>'] [--yes] [--policy <file>] [--audit <file>] [--timeout <ms>]",
    '',
    '  <module>   a .ts, .mts, .js or .mjs file exporting tools (a Registry, an array, or named tools)',
    '  <tool>     the tool name',
    '  <json>     the arguments as one JSON object (default {})',
    '  --yes      approve a call the policy asks about (without it, the CLI asks y/N on a terminal',
    '             and refuses elsewhere)',
    '  --policy   a JSON policy file (default: the "policy" section of toolpact.config.*, else the',
    '             category defaults: read and search allowed, write, execute and delegate asked)',
    '  --audit    record each call in this audit log (JSON Lines; SQLite for .db, .sqlite, .sqlite3)',
    '',
    "The CLI is the host: its policy gates the module's tools (a gate built into the module's Registry",
    'is not used). Prints the envelope on stdout. Exit 0 when ok, 1 when the call failed, 2 for usage errors.',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, {
      timeout: 'string',
      yes: 'boolean',
      policy: 'string',
      audit: 'string',
    });
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
    const policy = await choosePolicy(typeof flags.policy === 'string' ? flags.policy : undefined, io.cwd);
    // A one-shot command: a signal ends the MCP servers the module started, then the process (main.ts).
    return callTool(modulePath, toolName, json, timeoutMs, policy, flags, io);
  },
};

async function callTool(
  modulePath: string,
  toolName: string,
  json: string | undefined,
  timeoutMs: number | undefined,
  policy: Awaited<ReturnType<typeof choosePolicy>>,
  flags: { readonly [name: string]: string | boolean | undefined },
  io: CliIo,
): Promise<ExitCode> {
  const loaded = await loadRegistry(modulePath, io.cwd);
  // The CLI's registry (its gate over the module's tools) owns the module's registry and the audit
  // log, so one close releases both, and the module's connections with them.
  let registry: Registry | undefined;
  let audit: AuditSink | undefined;
  try {
    audit = openAuditOption(flags.audit, io.cwd);
    const gate = createPolicyGate(policy, {
      approver: terminalApprover(io, { yes: flags.yes === true, command: 'call' }),
      ...(audit ? { observe: audit.observe } : {}),
    });
    registry = ownLoaded(new Registry({ ...gate.registryOptions }), loaded);
    if (audit) registry.own(audit);
    registry.register(loaded.list());
    const text = await registry.dispatch(toolName, json ?? '{}', timeoutMs ? { timeoutMs } : undefined);
    io.stdout(`${text}\n`);
    return (JSON.parse(text) as { ok: boolean }).ok ? 0 : 1;
  } finally {
    if (!registry) audit?.close();
    await closeWithin(registry ?? loaded, io, 'call');
  }
}
