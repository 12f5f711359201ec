import { readdirSync, readFileSync } from 'node:fs';

/** Host processes whose command line contains `marker` (read from /proc). */
export function processesWith(marker: string): number {
  let count = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) count++;
    } catch {
      // The process ended while we looked.
    }
  }
  return count;
}
