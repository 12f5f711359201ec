import type { Approval, PostgresStore } from '../../store/index.js';
import { parseArgs } from '../args.js';
import type { CliIo, Command } from '../io.js';
import { UsageError } from '../io.js';
import { renderTable } from '../table.js';

const STATUSES = ['pending', 'approved', 'denied', 'expired', 'used', 'all'] as const;

/**
 * `toolpact approvals`: the queue of out-of-band approvals in a fleet's store, and the decisions on it.
 *
 * @example
 * // toolpact approvals approve apr_x1 --reason "release window" --store postgres://…
 * await execute(['approvals', 'approve', 'apr_x1', '--store', url], io);
 */
export const command: Command = {
  name: 'approvals',
  summary: "list, show, approve or deny the calls waiting in a fleet's approval queue",
  usage: [
    'toolpact approvals list [--status pending|approved|denied|expired|used|all] [--limit <n>] [--format table|json] --store <url>',
    'toolpact approvals show <id> [--format table|json] --store <url>',
    'toolpact approvals approve <id> [--reason <text>] [--by <name>] --store <url>',
    'toolpact approvals deny <id> [--reason <text>] [--by <name>] --store <url>',
    '',
    '  --store <url>  the postgres:// URL of the store the servers share (default: TOOLPACT_STORE)',
    '  --by <name>    who decides, recorded with the decision (default: the USER variable)',
    '',
    'A call whose rule sends its ask to the queue ("approver": "queue") answers approval_pending with the',
    "approval's id. Once approved here, the same call by the same client runs once, on whichever replica",
    'it reaches; a denial is told to the next such call. Decisions are final. Exit 0, 1 when the approval',
    'cannot be decided (not found, no longer pending), 2 for usage errors.',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, {
      store: 'string',
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
    const url = typeof flags.store === 'string' ? flags.store : io.env.TOOLPACT_STORE;
    if (!url) throw new UsageError('Give the store with --store <postgres URL>, or set TOOLPACT_STORE.');
    const { openPostgresStore, StoreError } = await import('../../store/index.js');
    let store: PostgresStore | undefined;
    try {
      store = await openPostgresStore(url, { poolSize: 1 });
      if (action === 'list') {
        const list = await store.approvals.list({
          status: status as (typeof STATUSES)[number],
          limit: Number(limitText),
        });
        printList(io, list, format);
        return 0;
      }
      const approvalId = id as string;
      if (action === 'show') {
        const found = await store.approvals.get(approvalId);
        if (!found) {
          io.stderr(`toolpact approvals: there is no approval "${approvalId}".\n`);
          return 1;
        }
        io.stdout(format === 'json' ? `${JSON.stringify(found, null, 2)}\n` : describe(found));
        return 0;
      }
      const decision = {
        by: typeof flags.by === 'string' ? flags.by : (io.env.USER ?? io.env.LOGNAME ?? 'unknown'),
        ...(typeof flags.reason === 'string' ? { reason: flags.reason } : {}),
      };
      try {
        const decided =
          action === 'approve'
            ? await store.approvals.approve(approvalId, decision)
            : await store.approvals.deny(approvalId, decision);
        io.stdout(
          format === 'json'
            ? `${JSON.stringify(decided, null, 2)}\n`
            : `${decided.status === 'approved' ? 'Approved' : 'Denied'} ${decided.id} (${decided.tool}) as ${decided.decidedBy}.${
                decided.status === 'approved' ? ' The same call, made again, runs once.' : ''
              }\n`,
        );
        return 0;
      } catch (error) {
        // The CLI decides as the local process; an approval whose rule names its deciders refuses it.
        if (
          error instanceof StoreError &&
          (error.code === 'not_found' || error.code === 'not_pending' || error.code === 'not_allowed')
        ) {
          io.stderr(`toolpact approvals: ${error.message}\n`);
          return 1;
        }
        throw error;
      }
    } catch (error) {
      if (error instanceof StoreError) throw new UsageError(error.message);
      throw error;
    } finally {
      await store?.close();
    }
  },
};

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
