const CJK_RUN = /[\u3400-\u4dbf\u4e00-\u9fff]+/g;

/**
 * The words of a tool or parameter name, lower-cased: `read_file`, `readFile`, `read-file` and
 * `fs.readFile` all give `read`, `file` (with `fs` first in the last case).
 *
 * @example
 * nameWords('getHTTPStatus_code'); // ['get', 'http', 'status', 'code']
 */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '')
    .map((word) => word.toLowerCase());
}

/** The lower-case ASCII words of a text (letters and digits). */
export function asciiWords(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** The runs of Chinese characters in a text. */
export function cjkRuns(text: string): string[] {
  return text.match(CJK_RUN) ?? [];
}

/**
 * The word set used to compare two descriptions: ASCII words (stemmed) plus the character bigrams
 * of every Chinese run (a run of one character counts as itself), since Chinese has no spaces.
 *
 * @example
 * textWords('Reads files 读取文件'); // Set { 'read', 'file', '读取', '取文', '文件' }
 */
export function textWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const word of asciiWords(text)) words.add(stem(word));
  for (const run of cjkRuns(text)) {
    if (run.length === 1) words.add(run);
    for (let index = 0; index + 1 < run.length; index++) words.add(run.slice(index, index + 2));
  }
  return words;
}

/**
 * A light English stemmer, enough to match "reads", "reading" and "read" to a name's words; it is not
 * a dictionary stemmer and does not try to be.
 *
 * @example
 * stem('files'); // 'file'
 */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed') && !word.endsWith('eed')) return word.slice(0, -2);
  if (word.length > 4 && /(?:ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us'))
    return word.slice(0, -1);
  return word;
}

/** True when the text contains Chinese characters. */
export function hasChinese(text: string): boolean {
  return /[\u3400-\u4dbf\u4e00-\u9fff]/.test(text);
}

/** Escapes a string for use inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** True when `name` occurs in `text` as a whole identifier (not inside a longer one). */
export function mentions(text: string, name: string): boolean {
  if (name === '') return false;
  return new RegExp(`(?<![A-Za-z0-9_.-])${escapeRegExp(name)}(?![A-Za-z0-9_])`, 'i').test(text);
}
