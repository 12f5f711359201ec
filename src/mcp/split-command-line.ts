/**
 * Splits a command line into words the way a POSIX shell would for simple cases: whitespace separates
 * words, single quotes keep everything literal, double quotes keep spaces (with `\"` and `\\`), and a
 * backslash outside quotes escapes the next character. No variables, globs or pipes: the command is
 * started directly, never through a shell. An unclosed quote throws.
 *
 * @example
 * splitCommandLine(`node server.js --root "My Notes"`); // ['node', 'server.js', '--root', 'My Notes']
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < line.length; index++) {
    const ch = line[index]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && (line[index + 1] === '"' || line[index + 1] === '\\')) word += line[++index];
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && index + 1 < line.length) {
      word += line[++index];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`The command line has an unclosed ${quote} quote: ${line}`);
  if (inWord) words.push(word);
  return words;
}
