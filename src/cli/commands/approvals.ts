import type { Approval } from '../../store/index.js';
import {
  type ApprovalSource,
  DecisionRefused,
  serverSource,
  storeSource,
  TOKEN_VARIABLE,
} from '../approval-source.js';
import { type ParsedArgs, parseArgs } from '../args.js';
import type { CliIo, Command } from '../io.js';
import { UsageError } from '../io.js';
import { renderTable } from '../table.js';

const STATUSES = ['pending', 'approved', 'denied', 'expired', 'used', 'all'] as const;

/**
 * `toolpact approvals`: the queue of out-of-band approvals in a fleet's store, and the decisions on it,
 * through a server's approvals API as a signed-in person, or the store directly as the local process.
 *
 * @example
 * // TOOLPACT_TOKEN=… toolpact approvals approve apr_x1 --reason "release window" --server https://tools.example.com/mcp
 * await execute(['approvals', 'approve', 'apr_x1', '--server', url], { ...io, env: { TOOLPACT_TOKEN: token } });
 */
export const command: Command = {
  name: 'approvals',
  summary: "list, show, approve or deny the calls waiting in a fleet's approval queue",
  usage: [
    'toolpact approvals list [--status pending|approved|denied|expired|used|all] [--limit <n>] [--format table|json] (--server <url> | --store <url>)',
    'toolpact approvals show <id> [--format table|json] (--server <url> | --store <url>)',
    'toolpact approvals approve <id> [--reason <text>] (--server <url> [--token-env <var>] | --store <url> [--by <name>])',
    'toolpact approvals deny <id> [--reason <text>] (--server <url> [--token-env <var>] | --store <url> [--by <name>])',
    '',
    "  --server <url>     a server's MCP endpoint URL (https://tools.example.com/mcp): decide as who the",
    `                     credential in ${TOKEN_VARIABLE} (an access token or an API key) says you are`,
    `  --token-env <var>  read the credential from this variable instead of ${TOKEN_VARIABLE}`,
    '  --store <url>      the postgres:// URL of the store the servers share (default: TOOLPACT_STORE);',
    '                     decides as the local process, which a rule with decidedBy refuses',
    '  --by <name>        with --store: who decides, recorded with the decision (default: USER)',
    '',
    'A call whose rule sends its ask to the queue ("approver": "queue") answers approval_pending with the',
    "approval's id. Once approved here, the same call by the same caller runs once, on whichever replica",
    'it reaches; a denial is told to the next such call. Decisions are final. Exit 0, 1 when the approval',
    'cannot be decided (not found, no longer pending, not yours to decide), 2 for usage errors.',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, {
      store: 'string',
      server: 'string',
      'token-env': 'string',
      status: 'string',
      limit: 'string',
      format: 'string',
      reason: 'string',
      by: 'string',
    });
    const [action, id, ...extra] = positionals;
    const actions = ['list', 'show', 'approve', 'deny'];
    if (action === undefined || !actions.includes(action)) {
      throw new UsageError(
        `${action === undefined ? 'Give a subcommand' : `Unknown subcommand "${action}"`}: ${actions.join(', ')}.`,
      );
    }
    if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(' ')}.`);
    if (action !== 'list' && !id) throw new UsageError(`Give the id of the approval to ${action}.`);
    if (action === 'list' && id) throw new UsageError(`Unexpected argument: ${id}.`);
    const format = flags.format ?? 'table';
    if (format !== 'table' && format !== 'json') {
      throw new UsageError(`--format takes table or json, received "${String(format)}".`);
    }
    const status = flags.status ?? 'pending';
    if (!STATUSES.includes(status as never)) {
      throw new UsageError(`--status takes one of ${STATUSES.join(', ')}, received "${String(status)}".`);
    }
    const limitText = flags.limit ?? '100';
    if (typeof limitText !== 'string' || !/^[1-9]\d*$/.test(limitText)) {
      throw new UsageError(`--limit needs a positive whole number, received "${String(limitText)}".`);
    }
    const source = await openSource(flags, io);
    try {
      if (action === 'list') {
        const list = await source.list({
          status: status as (typeof STATUSES)[number],
          limit: Number(limitText),
        });
        printList(io, list, format);
        return 0;
      }
      const approvalId = id as string;
      if (action === 'show') {
        const found = await source.get(approvalId);
        if (!found) {
          io.stderr(`toolpact approvals: there is no approval "${approvalId}".\n`);
          return 1;
        }
        io.stdout(format === 'json' ? `${JSON.stringify(found, null, 2)}\n` : describe(found));
        return 0;
      }
      const decided = await source.decide(approvalId, action as 'approve' | 'deny', {
        ...(typeof flags.by === 'string'
          ? { by: flags.by }
          : flags.server
            ? {}
            : { by: io.env.USER ?? io.env.LOGNAME ?? 'unknown' }),
        ...(typeof flags.reason === 'string' ? { reason: flags.reason } : {}),
      });
      io.stdout(
        format === 'json'
          ? `${JSON.stringify(decided, null, 2)}\n`
          : `${decided.status === 'approved' ? 'Approved' : 'Denied'} ${decided.id} (${decided.tool}) as ${decided.decidedBy}.${
              decided.status === 'approved' ? ' The same call, made again, runs once.' : ''
            }\n`,
      );
      return 0;
    } catch (error) {
      // Not found, no longer pending, or a decider the approval's rule does not allow.
      if (!(error instanceof DecisionRefused)) throw error;
      io.stderr(`toolpact approvals: ${error.message}\n`);
      return 1;
    } finally {
      await source.close();
    }
  },
};

// `--server` (its approvals API, with a credential) or `--store` (the store, as the local process).
async function openSource(flags: ParsedArgs['flags'], io: CliIo): Promise<ApprovalSource> {
  if (typeof flags.server === 'string') {
    if (flags.store !== undefined) throw new UsageError('Give --server or --store, not both.');
    if (flags.by !== undefined) {
      throw new UsageError(
        '--by applies only with --store: over --server the decider is who the credential says.',
      );
    }
    const variable = typeof flags['token-env'] === 'string' ? flags['token-env'] : TOKEN_VARIABLE;
    return serverSource(flags.server, variable, io.env);
  }
  if (flags['token-env'] !== undefined) throw new UsageError('--token-env applies only with --server.');
  const url = typeof flags.store === 'string' ? flags.store : io.env.TOOLPACT_STORE;
  if (!url) {
    throw new UsageError(
      `Give --server <MCP endpoint URL> (with the credential in ${TOKEN_VARIABLE}), or --store <postgres URL> (or set TOOLPACT_STORE).`,
    );
  }
  return storeSource(url);
}

function printList(io: CliIo, list: readonly Approval[], format: string | boolean): void {
  if (format === 'json') {
    io.stdout(`${JSON.stringify(list, null, 2)}\n`);
    return;
  }
  if (list.length === 0) {
    io.stdout('No approvals match.\n');
    return;
  }
  io.stdout(
    renderTable(
      ['id', 'status', 'tool', 'principal', 'rule', 'asked', 'expires'],
      list.map((each) => [
        each.id,
        each.status,
        each.tool,
        each.principal,
        each.rule ?? '-',
        each.createdAt,
        each.expiresAt,
      ]),
    ),
  );
}

function describe(approval: Approval): string {
  const lines = [
    `${approval.id}: ${approval.status}`,
    `  tool:       ${approval.tool}`,
    `  arguments:  ${JSON.stringify(approval.arguments)}`,
    `  digest:     ${approval.argumentsDigest}`,
    `  principal:  ${approval.principal}`,
    `  rule:       ${approval.rule ?? '-'}${approval.reason ? ` (${approval.reason})` : ''}`,
    `  asked:      ${approval.createdAt}`,
    `  expires:    ${approval.expiresAt}`,
  ];
  if (approval.decidedBy) {
    lines.push(
      `  decided:    ${approval.decidedAt} by ${approval.decidedBy}${approval.decisionReason ? `: ${approval.decisionReason}` : ''}`,
    );
  }
  if (approval.usedAt) lines.push(`  ran:        ${approval.usedAt}`);
  return `${lines.join('\n')}\n`;
}
