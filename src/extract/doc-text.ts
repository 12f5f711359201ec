/**
 * A doc comment's text as the model should read it: every paragraph kept, lines of one paragraph joined
 * with a space (a single newline in a comment is line wrapping), list items, fenced code and blank-line
 * paragraph breaks kept as they are.
 *
 * @example
 * docText('Read a file.\nWrapped line.\n\nSecond paragraph.'); // 'Read a file. Wrapped line.\n\nSecond paragraph.'
 */
export function docText(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let fenced = false;
  for (const raw of lines) {
    const line = raw.replace(/\s+$/, '');
    const trimmed = line.trim();
    if (trimmed.startsWith('```')) {
      fenced = !fenced;
      out.push(line);
      continue;
    }
    if (fenced) {
      out.push(line);
      continue;
    }
    const previous = out.length ? out[out.length - 1]! : undefined;
    const startsBlock = /^([-*+]\s|\d+[.)]\s|#|>|\|)/.test(trimmed);
    if (
      trimmed === '' ||
      previous === undefined ||
      previous.trim() === '' ||
      startsBlock ||
      previous.trim().startsWith('```')
    ) {
      out.push(trimmed === '' ? '' : startsBlock ? line.trimStart() : trimmed);
    } else {
      out[out.length - 1] = `${previous} ${trimmed}`;
    }
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
