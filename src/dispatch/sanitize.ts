import { homedir, tmpdir } from 'node:os';

const MAX_MESSAGE = 2_000;

/**
 * Makes a message safe for the model: no stack trace, no host path, bounded length.
 * Absolute file-system paths are shortened to their last segment (`…/notes.md`), because the model
 * works with workspace-relative paths and must never learn where the host keeps things.
 */
export function sanitizeMessage(message: string): string {
  let text = message;
  const stackAt = text.search(/\n\s+at\s/);
  if (stackAt >= 0) text = text.slice(0, stackAt);
  for (const root of hostRoots()) {
    if (root.length > 1) text = text.split(root).join('…');
  }
  text = text.replace(/file:\/\/\/[^\s'"`)]+/g, (url) => `…/${lastSegment(url)}`);
  // POSIX absolute paths with at least two segments, not part of a URL (`http://host/a/b`).
  text = text.replace(
    /(^|[\s'"`(=:,[])(\/(?:[^\s/'"`()<>,;]+\/)+[^\s/'"`()<>,;]*)/g,
    (_, lead: string, path: string) => {
      return `${lead}…/${lastSegment(path)}`;
    },
  );
  // Windows drive paths.
  text = text.replace(
    /\b[A-Za-z]:\\(?:[^\s\\'"`]+\\)+[^\s\\'"`]*/g,
    (path) => `…\\${path.split('\\').pop() ?? ''}`,
  );
  if (text.length > MAX_MESSAGE) text = `${text.slice(0, MAX_MESSAGE)}… (message shortened)`;
  return text.trim();
}

function lastSegment(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts[parts.length - 1] ?? '';
}

let roots: string[] | undefined;
function hostRoots(): string[] {
  if (!roots) {
    roots = [process.cwd(), homedir(), tmpdir()]
      .filter((root) => root && root !== '/')
      .sort((a, b) => b.length - a.length);
  }
  return roots;
}
