import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkPolicy, type PolicyCheck } from '../../policy/check-policy.js';
import { parseArgs } from '../args.js';
import type { Command, ExitCode } from '../io.js';
import { UsageError } from '../io.js';
import { renderTable } from '../table.js';

/**
 * `toolpact policy check <policy.json>`: each rule's effective reach under the gate's precedence.
 *
 * @example
 * // toolpact policy check policy.json
 * await execute(['policy', 'check', 'policy.json'], io);
 */
export const command: Command = {
  name: 'policy',
  summary: 'check a policy: rules that can never decide, carve-outs, rules refused at load',
  usage: [
    'toolpact policy check <policy.json> [--format table|json]',
    '',
    '  <policy.json>  a JSON policy file ({ "rules": [ ... ] })',
    '  --format       table (default) or json',
    '',
    'Lists every rule with its reach: the rules that can never decide, because every call they match',
    'is decided by another rule; the carve-outs (allow or ask rules that decide inside a deny) and what',
    'they carve out of; and the rules refused at load, with the reason.',
    'Exit 0 when every rule loads and can decide, 1 when a rule is refused or can never decide, 2 for',
    'usage errors and an unreadable file.',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, { format: 'string' });
    const [action, file, ...extra] = positionals;
    if (action !== 'check') {
      throw new UsageError(
        action === undefined
          ? 'Give a subcommand: check.'
          : `Unknown subcommand "${action}"; the one there is: check.`,
      );
    }
    if (file === undefined) throw new UsageError('Give the policy file to check.');
    if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}".`);
    const format = flags.format ?? 'table';
    if (format !== 'table' && format !== 'json') {
      throw new UsageError(`--format must be table or json, received "${String(format)}".`);
    }
    const path = resolve(io.cwd, file);
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      io.stderr(
        `toolpact policy: ${path} ${
          code === 'ENOENT'
            ? 'does not exist'
            : code
              ? `cannot be read (${code})`
              : `is not valid JSON (${error instanceof Error ? error.message : String(error)})`
        }.\n`,
      );
      return 2;
    }
    const report = checkPolicy(value, file);
    if (format === 'json')
      io.stdout(`${JSON.stringify(report, (key, item) => (key === 'policy' ? undefined : item), 2)}\n`);
    else io.stdout(renderPolicyCheck(report, file));
    return exitCodeOf(report);
  },
};

/**
 * The report as text: one row per rule, then the refused rules.
 *
 * @example
 * io.stdout(renderPolicyCheck(checkPolicy(value, 'policy.json'), 'policy.json'));
 */
export function renderPolicyCheck(report: PolicyCheck, where: string): string {
  const never = report.rules.filter((rule) => rule.neverDecides).length;
  const lines = [
    `${where}: ${count(report.rules.length, 'rule')} loaded, ${never} that can never decide, ${report.refused.length} refused`,
    '',
  ];
  if (report.rules.length > 0) {
    // The caller column shows only for a policy with rules that test who is calling.
    const callers = report.rules.some((rule) => rule.principal !== undefined);
    const rows = report.rules.map((rule) => [
      rule.id,
      rule.action,
      ...(callers ? [rule.principal ?? 'every caller'] : []),
      rule.neverDecides
        ? `never decides: ${rule.neverDecides.why}`
        : rule.carvesOutOf.length > 0
          ? `carve-out of ${rule.carvesOutOf.map((id) => `"${id}"`).join(', ')}`
          : 'decides where it matches',
    ]);
    lines.push(renderTable(['rule', 'action', ...(callers ? ['caller'] : []), 'reach'], rows));
  }
  if (report.refused.length > 0) {
    lines.push('Refused at load:');
    for (const refused of report.refused) lines.push(`  ${refused.rule}: ${refused.message}`);
    lines.push('');
  }
  return lines.join('\n');
}

/** 1 when a rule is refused or can never decide, else 0. */
export function exitCodeOf(report: PolicyCheck): ExitCode {
  return report.refused.length > 0 || report.rules.some((rule) => rule.neverDecides) ? 1 : 0;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
