import { lstat, mkdir, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep, win32 } from 'node:path';
import { ToolError } from '../../src/index.js';

/**
 * Resolves a workspace-relative path the model sent to a real path inside the workspace, or throws a
 * ToolError that tells the model what to send instead.
 *
 * Refused: an empty path, a NUL byte, an absolute path (POSIX, drive or UNC), any `..` segment, and any
 * path that, once symbolic links are followed, lands outside the workspace. Containment is decided with
 * `path.relative` on real paths, never with a string prefix, so a sibling folder whose name starts with
 * the workspace's name (`/data/ws-evil` beside `/data/ws`, CVE-2025-53110) is outside, and a symlink
 * inside the workspace that points out (CVE-2025-53109) is refused.
 */
export async function resolveInWorkspace(
  root: string,
  userPath: string,
  options: { mustExist: boolean } = { mustExist: true },
): Promise<string> {
  if (userPath.includes('\0')) {
    throw invalidPath('The path contains a NUL byte. Send a plain relative path such as "docs/notes.md".');
  }
  const trimmed = userPath.trim();
  if (trimmed === '') throw invalidPath('The path is empty. Use "." for the workspace root.');
  if (isAbsolute(trimmed) || win32.isAbsolute(trimmed) || /^[A-Za-z]:/.test(trimmed)) {
    throw outside(
      `"${trimmed}" is an absolute path. Paths are relative to the workspace root, e.g. "docs/notes.md".`,
    );
  }
  if (trimmed.split(/[\\/]+/).includes('..')) {
    throw outside(
      `"${trimmed}" contains "..". Paths must stay inside the workspace; name the file from the workspace root.`,
    );
  }
  const rootReal = await realpath(root);
  const target = resolve(rootReal, trimmed);
  assertInside(rootReal, target, trimmed);

  // Follow links: the real path of the target (or of its nearest existing ancestor) must be inside too.
  let existing = target;
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch {
      if (options.mustExist && existing === target) {
        throw new ToolError(`There is no file or folder "${trimmed}" in the workspace.`, {
          type: 'not_found',
          hint: 'Call list_dir to see what exists, or grep to find a file by its contents.',
        });
      }
      const parent = dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  let real: string;
  try {
    real = await realpath(existing);
  } catch {
    throw outside(`"${trimmed}" goes through a broken symbolic link.`);
  }
  assertInside(rootReal, real, trimmed, true);
  return existing === target ? real : resolve(real, relative(existing, target));
}

/** Creates the folders above `target` (already checked to be inside the workspace) and checks them again. */
export async function ensureParent(root: string, target: string, shown: string): Promise<void> {
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  assertInside(await realpath(root), await realpath(parent), shown, true);
}

function assertInside(rootReal: string, target: string, shown: string, viaLink = false): void {
  const rel = relative(rootReal, target);
  if (rel === '') return;
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw outside(
      viaLink
        ? `"${shown}" is a symbolic link (or goes through one) that points outside the workspace.`
        : `"${shown}" is outside the workspace.`,
    );
  }
}

function outside(message: string): ToolError {
  return new ToolError(message, {
    type: 'path_outside_workspace',
    hint: 'Use a path relative to the workspace root, without "..", that stays inside it. Call list_dir with "." to see the root.',
  });
}

function invalidPath(message: string): ToolError {
  return new ToolError(message, { type: 'invalid_path' });
}
