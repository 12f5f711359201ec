// Text from an MCP server, made safe and short for an operator's terminal.

/**
 * `text` cut to about `limit` characters, at a line end when there is one late enough, with `…`.
 *
 * @example
 * cap('one two three', 8); // 'one two…'
 */
export function cap(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit - 1);
  const newline = cut.lastIndexOf('\n');
  return `${newline > limit / 2 ? cut.slice(0, newline + 1) : cut}…`;
}

/**
 * Control, zero-width, bidirectional and tag characters as `\u{…}`, so nothing is hidden from or
 * interpreted by a terminal.
 *
 * @example
 * visible('a\u200bb'); // 'a\\u{200b}b'
 */
export function visible(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\u{e0000}|[\u{e0001}-\u{e007f}]/gu,
    (character) => `\\u{${character.codePointAt(0)!.toString(16)}}`,
  );
}

/**
 * The last `count` lines of a text, trailing white space dropped.
 *
 * @example
 * lastLines('a\nb\nc\n', 2); // 'b\nc'
 */
export function lastLines(text: string, count: number): string {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

/**
 * Each line indented by four spaces, for a block under a message.
 *
 * @example
 * indentLines('a\nb'); // '    a\n    b'
 */
export function indentLines(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
