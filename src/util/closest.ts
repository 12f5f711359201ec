/** Edit distance between two strings (insert, delete, substitute), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  if (left === right) return 0;
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[right.length]!;
}

/**
 * The `limit` candidates closest to `name`, nearest first (ties in alphabetical order). A candidate
 * that contains the name, or is contained in it, counts as close whatever its length.
 */
export function closestNames(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const probe = name.slice(0, 128);
  const lower = probe.toLowerCase();
  const scored: { candidate: string; score: number }[] = [];
  for (const candidate of candidates) {
    const other = candidate.toLowerCase();
    const contains = lower.length >= 3 && (other.includes(lower) || lower.includes(other));
    const distance = editDistance(probe, candidate);
    scored.push({ candidate, score: contains ? Math.min(distance, 1.5) : distance });
  }
  scored.sort((x, y) => x.score - y.score || (x.candidate < y.candidate ? -1 : 1));
  return scored.slice(0, limit).map((entry) => entry.candidate);
}

/**
 * The allowed key that `key` is plausibly a typo of, for "did you mean": the closest one, when it
 * contains the key or is contained in it (three letters or more), or is a few edits away (a third of
 * the shorter length, at least one). Case is ignored. `undefined` when none is that near.
 *
 * @example
 * typoOf('comand', ['command', 'args', 'env']); // 'command'
 * typoOf('timeout', ['command', 'args', 'env']); // undefined
 */
export function typoOf(key: string, allowed: Iterable<string>): string | undefined {
  const [closest] = closestNames(key, allowed, 1);
  if (closest === undefined) return undefined;
  const a = key.toLowerCase();
  const b = closest.toLowerCase();
  if (a.length >= 3 && (a.includes(b) || b.includes(a))) return closest;
  return editDistance(a, b) <= Math.max(1, Math.floor(Math.min(a.length, b.length) / 3))
    ? closest
    : undefined;
}
