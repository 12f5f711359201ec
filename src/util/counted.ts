/**
 * A count with its noun, singular for one: `1 tool`, `3 tools`, `0 tools`. Give the plural when it is
 * not the noun with an `s`.
 *
 * @example
 * counted(1, 'tool'); // '1 tool'
 * counted(2, 'entry', 'entries'); // '2 entries'
 */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
