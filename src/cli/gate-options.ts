/** The `--policy`, `--audit` and `--store` options that `call`, `serve`, `gateway` and `studio` share. */
import { resolve } from 'node:path';
import { openAuditLog } from '../audit/audit-log.js';
import { type AuditSink, AuditSinkError } from '../audit/audit-sink.js';
import { openSqliteAuditLog } from '../audit/sqlite-audit-log.js';
import { definePolicy } from '../policy/define-policy.js';
import { loadPolicyFile, loadPolicyFromConfig } from '../policy/load-policy.js';
import type { Policy } from '../policy/policy.js';
import { PolicyError } from '../policy/policy-error.js';
import type { PostgresStore } from '../store/index.js';
import { type CliIo, InputError, UsageError } from './io.js';

/**
 * Opens the audit log an `--audit <file>` option names, or nothing: a SQLite database for a `.db`,
 * `.sqlite` or `.sqlite3` file, else JSON Lines. A file that cannot be opened is an input error.
 */
export function openAuditOption(file: string | boolean | undefined, cwd: string): AuditSink | undefined {
  if (typeof file !== 'string') return undefined;
  try {
    if (/\.(?:db|sqlite3?)$/i.test(file)) return openSqliteAuditLog(resolve(cwd, file));
    return openAuditLog(resolve(cwd, file));
  } catch (error) {
    if (error instanceof AuditSinkError)
      throw new InputError(error.message.replace(resolve(cwd, file), file));
    throw new InputError(
      `Cannot open the audit log "${file}": ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
    );
  }
}

/**
 * The policy a command gates with: the file `--policy` names, else the `policy` section of
 * `toolpact.config.*`, else the category defaults. An invalid policy is an input error naming the bad rule.
 */
export async function choosePolicy(file: string | undefined, cwd: string): Promise<Policy> {
  try {
    if (file !== undefined) return loadPolicyFile(resolve(cwd, file));
    return (await loadPolicyFromConfig(cwd)) ?? definePolicy({ rules: [] });
  } catch (error) {
    if (error instanceof PolicyError) throw new InputError(error.message);
    throw error;
  }
}

/**
 * The shared store `--store` (or `TOOLPACT_STORE`) names, opened and migrated; an unreachable server
 * is a usage error (exit 2) naming the host it tried. The `pg` driver loads only here.
 */
export async function openStoreOption(
  flag: string | boolean | undefined,
  io: Pick<CliIo, 'env' | 'stderr'>,
  command: string,
  policy: Policy,
): Promise<PostgresStore | undefined> {
  const url = typeof flag === 'string' ? flag : io.env.TOOLPACT_STORE;
  if (url === undefined || url === '') return undefined;
  const { openPostgresStore, StoreError } = await import('../store/index.js');
  try {
    return await openPostgresStore(url, {
      auditFailure: policy.auditFailure ?? 'fail',
      onWarning: (message) => io.stderr(`toolpact ${command}: ${message}\n`),
    });
  } catch (error) {
    if (error instanceof StoreError) throw new UsageError(error.message);
    throw error;
  }
}
