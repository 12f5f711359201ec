const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'vs', 'cf', 'approx', 'no', 'dr', 'mr', 'ms', 'fig']);
const CHINESE_STOPS = new Set(['。', '！', '？', '；', '…']);

/**
 * Splits a description into sentences, for English and Chinese alike: after `.`, `!` or `?` followed
 * by a space (not after "e.g." and other abbreviations, not inside "1.5" or "guide.md"), after
 * `。！？；`, and at every line break. Empty pieces are dropped.
 *
 * @example
 * splitSentences('Read a file. Use it for text.\n\n不要用它读二进制文件。');
 * // ['Read a file.', 'Use it for text.', '不要用它读二进制文件。']
 */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  const push = (end: number) => {
    const piece = text.slice(start, end).trim();
    if (piece !== '') sentences.push(piece);
    start = end;
  };
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (char === '\n') {
      push(index + 1);
    } else if (CHINESE_STOPS.has(char)) {
      push(index + 1);
    } else if ((char === '.' || char === '!' || char === '?') && /\s/.test(text[index + 1] ?? ' ')) {
      if (char === '.') {
        const word = /([A-Za-z.]+)$/.exec(text.slice(Math.max(start, index - 8), index))?.[1] ?? '';
        if (ABBREVIATIONS.has(word.toLowerCase())) continue;
      }
      push(index + 1);
    }
  }
  push(text.length);
  return sentences;
}
