import { readFileSync } from 'node:fs';
import type { AuditEntry } from './audit-log.js';

/** What {@link readAuditLog} found. */
export interface AuditLogContents {
  readonly entries: AuditEntry[];
  /** 1-based numbers of lines that are not a JSON object (a line torn by a crash). */
  readonly damagedLines: number[];
}

/**
 * Reads an audit log written by `openAuditLog`: every complete line, and the numbers of lines that
 * do not parse, which are skipped rather than failing the whole read. A line written before the
 * principal was recorded reads back with `principal: null`.
 *
 * @example
 * const { entries, damagedLines } = readAuditLog('audit.jsonl');
 */
export function readAuditLog(file: string): AuditLogContents {
  const entries: AuditEntry[] = [];
  const damagedLines: number[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      const value: unknown = JSON.parse(line);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        // Lines written before the principal was recorded read back with it null.
        entries.push(('principal' in value ? value : { ...value, principal: null }) as AuditEntry);
      } else damagedLines.push(index + 1);
    } catch {
      damagedLines.push(index + 1);
    }
  });
  return { entries, damagedLines };
}
