import { mkdirSync, rmSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** Longest wait for another process to let go, in milliseconds (default 10,000). */
  readonly waitMs?: number;
  /**
   * A lock older than this, in milliseconds, was left by a process that died holding it and is
   * taken over (default 5,000: a holder keeps it only for one read and one rename).
   */
  readonly staleMs?: number;
}

/**
 * Runs `action` while holding `<file>.lock`, a folder made atomically, so that read-modify-write
 * cycles of several processes on one file do not lose each other's changes. Answers `{ done: false, lock }` without
 * running `action` when the lock stays held longer than `waitMs`.
 */
export async function withFileLock<T>(
  file: string,
  action: () => T,
  options: FileLockOptions = {},
): Promise<{ readonly done: true; readonly value: T } | { readonly done: false; readonly lock: string }> {
  const lock = `${file}.lock`;
  const waitMs = options.waitMs ?? 10_000;
  const staleMs = options.staleMs ?? 5_000;
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock, { mode: 0o700 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (ageOf(lock) > staleMs) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() - started > waitMs) return { done: false, lock };
    // Jittered, so that waiting processes do not retry in step.
    await sleep(2 + Math.random() * 10);
  }
  try {
    return { done: true, value: action() };
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** How long ago the lock was taken; 0 when it is already gone. */
function ageOf(lock: string): number {
  try {
    return Date.now() - statSync(lock).mtimeMs;
  } catch {
    return 0;
  }
}
