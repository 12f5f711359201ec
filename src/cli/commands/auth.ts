import type { ApiKeyEntry } from '../../auth/api-keys.js';
import { parseArgs } from '../args.js';
import type { CliIo, Command } from '../io.js';
import { InputError, UsageError } from '../io.js';
import { renderTable } from '../table.js';

/** Flags a person may give more than once, each adding one value. */
const REPEATED = { group: 'groups', role: 'roles', scope: 'scopes' } as const;

/**
 * `toolpact auth`: mints, lists and revokes the static API keys of a key file.
 *
 * @example
 * // toolpact auth key --keys keys.json --subject alice --group leads
 * await execute(['auth', 'key', '--keys', 'keys.json', '--subject', 'alice', '--group', 'leads'], io);
 */
export const command: Command = {
  name: 'auth',
  summary: 'mint, list or revoke the API keys that authenticate callers without an OAuth provider',
  usage: [
    'toolpact auth key --keys <file> --subject <name> [--group <g>]… [--role <r>]… [--scope <s>]… [--label <text>] [--expires <date>]',
    'toolpact auth keys --keys <file> [--format table|json]',
    'toolpact auth revoke --keys <file> <id or key>',
    '',
    '  --keys <file>     the key file; "auth key" creates it, readable by its owner only (mode 0600)',
    '  --subject <name>  who the key authenticates: the subject that rules, the audit and approvals see',
    '  --group, --role, --scope  what the key carries, one value per flag, as many as needed',
    '  --expires <date>  when the key stops working: an ISO 8601 date or time, or a number of days ("90d")',
    '',
    '"auth key" prints the new key once, on stdout, and stores only its SHA-256 hash: keep the key, it',
    'cannot be shown again. A key is a shared secret that never expires unless --expires says so; rotate it',
    'by minting a new one and revoking the old. A running server reads the file again when it changes.',
  ].join('\n'),
  async run(args, io) {
    const { values, rest } = takeRepeated(args);
    const { positionals, flags } = parseArgs(rest, {
      keys: 'string',
      subject: 'string',
      label: 'string',
      expires: 'string',
      format: 'string',
    });
    const [action, ...operands] = positionals;
    const actions = ['key', 'keys', 'revoke'];
    if (action === undefined || !actions.includes(action)) {
      throw new UsageError(
        `${action === undefined ? 'Give a subcommand' : `Unknown subcommand "${action}"`}: ${actions.join(', ')}.`,
      );
    }
    const file = flags.keys;
    if (typeof file !== 'string' || file === '')
      throw new UsageError('Give the key file with --keys <file>.');
    const { resolve } = await import('node:path');
    const path = resolve(io.cwd, file);
    const keys = await import('../../auth/api-keys.js');
    const current = await keys.readApiKeyFile(path).catch((error: unknown) => {
      throw error instanceof keys.ApiKeyFileError ? new InputError(error.message) : error;
    });
    const write = (entries: readonly ApiKeyEntry[]) =>
      keys.writeApiKeyFile(path, entries).catch((error: NodeJS.ErrnoException) => {
        throw new InputError(
          `Cannot write ${file} (${error.code ?? error.message}): check that its folder exists and is writable.`,
        );
      });
    if (action === 'key') {
      if (operands.length > 0) throw new UsageError(`Unexpected arguments: ${operands.join(' ')}.`);
      const subject = flags.subject;
      if (typeof subject !== 'string' || subject.trim() === '') {
        throw new UsageError('Give who the key is for with --subject <name>.');
      }
      const expiresAt = typeof flags.expires === 'string' ? expiryOf(flags.expires, new Date()) : undefined;
      const { key, entry } = keys.mintApiKey({
        subject,
        ...values,
        ...(typeof flags.label === 'string' ? { label: flags.label } : {}),
        ...(expiresAt ? { expiresAt } : {}),
      });
      await write([...(current?.keys ?? []), entry]);
      io.stdout(`${key}\n`);
      io.stderr(
        `Added ${entry.id} for ${subject}${entry.groups.length ? ` (groups: ${entry.groups.join(', ')})` : ''} to ${file}, ${
          entry.expires ? `expiring ${entry.expires}` : 'with no expiry'
        }. The key above is shown once: hand it over now.\n`,
      );
      return 0;
    }
    const minting = [values.groups, values.roles, values.scopes].flat().length > 0;
    if (minting || flags.subject || flags.label || flags.expires) {
      throw new UsageError(`"auth ${action}" takes only --keys${action === 'keys' ? ' and --format' : ''}.`);
    }
    if (action === 'keys') {
      if (operands.length > 0) throw new UsageError(`Unexpected arguments: ${operands.join(' ')}.`);
      const format = flags.format ?? 'table';
      if (format !== 'table' && format !== 'json') {
        throw new UsageError(`--format takes table or json, received "${String(format)}".`);
      }
      printKeys(io, current?.keys ?? [], format, Date.now());
      return 0;
    }
    const [target, ...extra] = operands;
    if (target === undefined || extra.length > 0) {
      throw new UsageError(
        'Give one key to revoke: its id ("key_…", from "toolpact auth keys") or the key itself.',
      );
    }
    const matches = (entry: ApiKeyEntry) =>
      target.startsWith(keys.API_KEY_PREFIX) ? entry.hash === keys.hashApiKey(target) : entry.id === target;
    const gone = (current?.keys ?? []).filter(matches);
    if (gone.length === 0) {
      const shown = target.startsWith(keys.API_KEY_PREFIX) ? 'the key given' : `"${target}"`;
      io.stderr(
        `toolpact auth: ${file} has no key matching ${shown}. "toolpact auth keys --keys ${file}" lists them.\n`,
      );
      return 1;
    }
    await write((current?.keys ?? []).filter((entry) => !matches(entry)));
    io.stdout(`Revoked ${gone.map((entry) => `${entry.id} (${entry.subject})`).join(', ')}.\n`);
    return 0;
  },
};

/** Pulls the repeatable flags out of the arguments, since the parser keeps one value per flag. */
function takeRepeated(args: readonly string[]): {
  values: { groups: string[]; roles: string[]; scopes: string[] };
  rest: string[];
} {
  const values = { groups: [] as string[], roles: [] as string[], scopes: [] as string[] };
  const rest: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') {
      rest.push(...args.slice(index));
      break;
    }
    const match = /^--(group|role|scope)(?:=(.*))?$/s.exec(arg);
    if (match === null) {
      rest.push(arg);
      continue;
    }
    const flag = match[1] as keyof typeof REPEATED;
    const value = match[2] ?? args[++index];
    if (value === undefined || value === '') throw new UsageError(`Option "--${flag}" needs a value.`);
    values[REPEATED[flag]].push(value);
  }
  return { values, rest };
}

/** `90d` from now, or an ISO 8601 date or time, which must lie ahead. */
function expiryOf(text: string, now: Date): Date {
  const days = /^([1-9]\d{0,4})d$/.exec(text);
  const date = days
    ? new Date(now.getTime() + Number(days[1]) * 86_400_000)
    : /^\d{4}-\d{2}-\d{2}/.test(text)
      ? new Date(text)
      : undefined;
  if (date === undefined || !Number.isFinite(date.getTime())) {
    throw new UsageError(
      `--expires takes an ISO 8601 date or time ("2027-01-31") or days ("90d"), received "${text}".`,
    );
  }
  if (date.getTime() <= now.getTime()) {
    throw new UsageError(`--expires ${text} has already passed; give a date ahead of ${now.toISOString()}.`);
  }
  return date;
}

function printKeys(io: CliIo, keys: readonly ApiKeyEntry[], format: string | boolean, now: number): void {
  const shown = keys.map(({ hash: _hash, ...rest }) => ({
    ...rest,
    status: rest.expires !== undefined && Date.parse(rest.expires) <= now ? 'expired' : 'active',
  }));
  if (format === 'json') {
    io.stdout(`${JSON.stringify(shown, null, 2)}\n`);
    return;
  }
  if (shown.length === 0) {
    io.stdout('No keys.\n');
    return;
  }
  io.stdout(
    renderTable(
      ['id', 'subject', 'groups', 'roles', 'scopes', 'label', 'created', 'expires', 'status'],
      shown.map((each) => [
        each.id,
        each.subject,
        each.groups.join(',') || '-',
        each.roles.join(',') || '-',
        each.scopes.join(',') || '-',
        each.label ?? '-',
        each.created,
        each.expires ?? 'never',
        each.status,
      ]),
    ),
  );
}
