import type { ArgumentPath } from './generated-contracts.js';

/**
 * Replaces the `date-time` strings at `paths` inside validated arguments with `Date` objects, in place
 * (the registry validates a copy it owns, never the caller's object). A value that is not a string (an
 * absent optional field, a `null`) is left as it is.
 *
 * @example
 * reviveDates({ since: '2026-01-01T00:00:00Z' }, [['since']]); // { since: Date }
 */
export function reviveDates(value: unknown, paths: readonly ArgumentPath[]): void {
  for (const path of paths) visit(value, path, 0);
}

function visit(node: unknown, path: ArgumentPath, depth: number): void {
  if (node === null || typeof node !== 'object') return;
  const segment = path[depth];
  const last = depth === path.length - 1;
  const container = node as Record<string | number, unknown>;
  const keys =
    segment === null
      ? Array.isArray(node)
        ? node.map((_, index) => index)
        : Object.keys(node)
      : Object.hasOwn(node, segment as string | number)
        ? [segment as string | number]
        : [];
  for (const key of keys) {
    const child = container[key];
    if (!last) visit(child, path, depth + 1);
    else if (typeof child === 'string') container[key] = new Date(child);
  }
}
