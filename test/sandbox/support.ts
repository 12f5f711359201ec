import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/** The unprivileged user the root-run tests switch to. */
export const NOBODY = 65534;

/**
 * Runs a TypeScript module as the user "nobody" (the caller must be root) and returns what it wrote
 * to stdout; a non-zero exit rejects with its stderr. The module is written to a folder of its own,
 * readable by nobody, and removed after.
 */
export async function runAsNobody(source: string, cwd: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'toolpact-as-nobody-'));
  chmodSync(dir, 0o755);
  const script = join(dir, 'run.mts');
  writeFileSync(script, source);
  try {
    return await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd,
        uid: NOBODY,
        gid: NOBODY,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`)),
      );
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
