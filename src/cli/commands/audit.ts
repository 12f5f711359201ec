import { resolve } from 'node:path';
import type { AuditEntry } from '../../audit/audit-log.js';
import type { AuditQuery } from '../../audit/audit-query.js';
import { AuditSinkError } from '../../audit/audit-sink.js';
import { queryAuditLog } from '../../audit/query-audit-log.js';
import { parseArgs } from '../args.js';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { renderTable } from '../table.js';

const DECISIONS = ['allow', 'deny', 'ask', 'none'] as const;

/**
 * `toolpact audit query <file>`: the calls an audit log (JSON Lines or SQLite) recorded, filtered.
 *
 * @example
 * // toolpact audit query audit.db --tool write_file --since 1h
 * await execute(['audit', 'query', 'audit.db', '--tool', 'write_file', '--since', '1h'], io);
 */
export const command: Command = {
  name: 'audit',
  summary: 'query an audit log (JSON Lines or SQLite) by tool, time, outcome, decision and caller',
  usage: [
    'toolpact audit query <file> [--tool <name,...>] [--since <when>] [--until <when>] [--outcome <type>]',
    '                            [--decision allow|deny|ask|none] [--principal <subject>|auth:<key>|local]',
    '                            [--limit <n>] [--format table|json]',
    'toolpact audit query --store <postgres URL> [the same filters]',
    '',
    '  <file>       an audit log written by --audit, openAuditLog or openSqliteAuditLog',
    '  --store      the shared store of a fleet (or TOOLPACT_STORE): its audit_log table answers the same',
    '  --tool       only calls to these tools, comma-separated',
    '  --since      only calls started since: a duration back from now (90s, 15m, 1h, 7d, 2w) or an',
    '               ISO 8601 time (2026-05-01T12:00:00Z)',
    '  --until      only calls started before (the same forms)',
    '  --outcome    only calls with this outcome: ok, or an error type such as permission_denied',
    '  --decision   only calls the gate decided so (none: ended before the gate)',
    '  --principal  only calls by this caller: a subject (alice: its calls from any issuer), a key as the',
    '               approvals queue spells it (auth:alice@https://id.example, or auth:<client id> from an',
    '               authenticator of your own), or local for the local process (in-process, stdio, or',
    '               HTTP nothing authenticated); entries written before the caller was recorded match none',
    '  --limit <n>  only the latest n calls (default 100)',
    '  --format     table (default) or json (every field of each entry)',
    '',
    'Prints the selected calls oldest first. Exit 0 (also when none match), 2 for usage errors.',
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, {
      tool: 'string',
      since: 'string',
      until: 'string',
      outcome: 'string',
      decision: 'string',
      principal: 'string',
      limit: 'string',
      format: 'string',
      store: 'string',
    });
    const [action, file, ...extra] = positionals;
    if (action !== 'query') {
      throw new UsageError(
        action === undefined
          ? 'Give a subcommand: query.'
          : `Unknown subcommand "${action}"; the one there is: query.`,
      );
    }
    const storeUrl = typeof flags.store === 'string' ? flags.store : file ? undefined : io.env.TOOLPACT_STORE;
    if (storeUrl && file) throw new UsageError('Give an audit log file or --store, not both.');
    if (!file && !storeUrl)
      throw new UsageError(
        "Give the audit log file to query. (A fleet's store is queried with --store <postgres URL>.)",
      );
    if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(' ')}.`);
    const format = flags.format ?? 'table';
    if (format !== 'table' && format !== 'json') {
      throw new UsageError(`--format takes table or json, received "${String(format)}".`);
    }
    const decision = flags.decision;
    if (decision !== undefined && !DECISIONS.includes(decision as never)) {
      throw new UsageError(
        `--decision takes one of ${DECISIONS.join(', ')}, received "${String(decision)}".`,
      );
    }
    const limitText = flags.limit ?? '100';
    if (typeof limitText !== 'string' || !/^[1-9]\d*$/.test(limitText)) {
      throw new UsageError(`--limit needs a positive whole number, received "${String(limitText)}".`);
    }
    const query: AuditQuery = {
      ...(typeof flags.tool === 'string' ? { tool: flags.tool.split(',').map((name) => name.trim()) } : {}),
      ...(typeof flags.since === 'string' ? { since: flags.since } : {}),
      ...(typeof flags.until === 'string' ? { until: flags.until } : {}),
      ...(typeof flags.outcome === 'string' ? { outcome: flags.outcome } : {}),
      ...(decision ? { decision: decision as AuditQuery['decision'] } : {}),
      ...(typeof flags.principal === 'string' ? { principal: flags.principal } : {}),
      limit: Number(limitText),
    };
    let entries: AuditEntry[];
    if (storeUrl) {
      entries = await queryStore(storeUrl, query);
    } else {
      const path = file as string;
      try {
        entries = queryAuditLog(resolve(io.cwd, path), query);
      } catch (error) {
        if (error instanceof AuditSinkError)
          throw new UsageError(error.message.replace(resolve(io.cwd, path), path));
        throw error;
      }
    }
    if (format === 'json') {
      io.stdout(`${JSON.stringify(entries, null, 2)}\n`);
      return 0;
    }
    if (entries.length === 0) {
      io.stdout('No calls match.\n');
      return 0;
    }
    io.stdout(
      renderTable(
        ['time', 'tool', 'decision', 'rule', 'outcome', 'ms', 'call id'],
        entries.map((entry) => [
          entry.time,
          entry.tool,
          entry.decision?.action ?? '-',
          entry.decision?.rule ?? '-',
          entry.outcome,
          String(Math.round(entry.durationMs)),
          entry.callId ?? '-',
        ]),
      ),
    );
    io.stdout(`${entries.length} ${entries.length === 1 ? 'call' : 'calls'}\n`);
    return 0;
  },
};

/** The audit entries of the shared store; a store that cannot be reached is a usage error naming its host. */
async function queryStore(url: string, query: AuditQuery): Promise<AuditEntry[]> {
  const { openPostgresStore, StoreError } = await import('../../store/index.js');
  let store: Awaited<ReturnType<typeof openPostgresStore>> | undefined;
  try {
    store = await openPostgresStore(url, { poolSize: 1 });
    return await store.queryAudit(query);
  } catch (error) {
    if (error instanceof StoreError || error instanceof AuditSinkError) throw new UsageError(error.message);
    throw error;
  } finally {
    await store?.close();
  }
}
