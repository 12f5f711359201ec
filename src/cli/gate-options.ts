/** The `--policy` and `--audit` options that `toolpact call` and `toolpact serve` share. */
import { resolve } from 'node:path';
import { openAuditLog } from '../audit/audit-log.js';
import { type AuditSink, AuditSinkError } from '../audit/audit-sink.js';
import { openSqliteAuditLog } from '../audit/sqlite-audit-log.js';
import { definePolicy } from '../policy/define-policy.js';
import { loadPolicyFile, loadPolicyFromConfig } from '../policy/load-policy.js';
import type { Policy } from '../policy/policy.js';
import { PolicyError } from '../policy/policy-error.js';
import { InputError } from './io.js';

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
