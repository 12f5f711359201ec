import { realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';

/** Folders below the top level that many programs share (see {@link isSharedFolder}). */
export const SHARED_FOLDERS: ReadonlySet<string> = new Set([
  '/var/tmp',
  '/var/cache',
  '/var/lib',
  '/var/local',
  '/var/spool',
  '/dev/shm',
  '/run/shm',
  '/run/user',
  '/usr/local',
  '/usr/local/lib',
  '/usr/local/share',
  '/usr/lib',
  '/usr/share',
]);

/**
 * A folder other programs and users keep their own files in, too much to give a server for its
 * package or runtime: `/` and every top-level folder (`/tmp`, `/home`, `/opt`…), the home folder,
 * the temporary folder and the folders above them, any user's home under `/home`, and the shared
 * folders of {@link SHARED_FOLDERS}. A sandbox shows a program its own package folder, never one of these.
 *
 * @example
 * isSharedFolder('/tmp'); // true
 * isSharedFolder('/srv/mcp/notes-server'); // false
 */
export function isSharedFolder(folder: string, home: string = homedir()): boolean {
  const dir = resolve(folder);
  const parent = dirname(dir);
  if (parent === dir || dirname(parent) === parent) return true;
  if (isWithin(resolve(home), dir) || isWithin(tmpdir(), dir) || isWithin(realTmpdir(), dir)) return true;
  return parent === '/home' || parent === '/run/user' || SHARED_FOLDERS.has(dir);
}

function realTmpdir(): string {
  try {
    return realpathSync(tmpdir());
  } catch {
    return tmpdir();
  }
}

/** Whether `path` is `dir` or lies inside it (both normalised, absolute). */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}
