import { jsonErrorPosition } from '../../dispatch/json-error-position.js';
import { GatewayConfigError } from './error.js';

/** A configuration's text parsed: the value, and whether it needed JSONC (comments, trailing commas). */
export interface ParsedText {
  readonly value: unknown;
  readonly jsonc: boolean;
}

/**
 * Parses a configuration's text as JSON, falling back to JSONC (comments and trailing commas, as VS Code's
 * `mcp.json` allows). When neither parses, throws `invalid_json` with the line and column: of the JSONC
 * reading when `preferJsonc` (a file VS Code owns), else of the strict one.
 */
export function parseConfigText(text: string, file: string, preferJsonc: boolean): ParsedText {
  // A byte-order mark becomes a space, so every offset still points at the same character.
  const source = text.startsWith('\uFEFF') ? ` ${text.slice(1)}` : text;
  try {
    return { value: JSON.parse(source), jsonc: false };
  } catch {
    // Fall through to JSONC, then to the position of the error.
  }
  const stripped = stripJsonc(source);
  try {
    return { value: JSON.parse(stripped), jsonc: true };
  } catch {
    throw syntaxError(preferJsonc ? stripped : source, file, preferJsonc ? ' (JSONC)' : '');
  }
}

/** The `invalid_json` error for `text`, at its first syntax error. */
export function syntaxError(text: string, file: string, flavour = '', note = ''): GatewayConfigError {
  const { position, detail } = jsonErrorPosition(text);
  const { line, column } = lineColumn(text, position);
  return new GatewayConfigError(
    'invalid_json',
    `${file} is not valid JSON${flavour} at line ${line}, column ${column}: ${detail}.${note}`,
    { file, line, column },
  );
}

/** 1-based line and column of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index++) {
    if (text[index] === '\n') {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * JSONC to JSON with every offset kept: `//` and `/* *\/` comments and trailing commas become spaces
 * (line breaks inside block comments stay). Strings are left alone. An unterminated block comment is
 * left as it is, so the JSON parser reports it where it starts.
 */
export function stripJsonc(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number) => {
    for (let index = from; index < to; index++)
      if (out[index] !== '\n' && out[index] !== '\r') out[index] = ' ';
  };
  // Pass 1: comments.
  for (let index = 0; index < text.length; index++) {
    const ch = text[index];
    if (ch === '"') {
      index = endOfString(text, index);
    } else if (ch === '/' && text[index + 1] === '/') {
      const end = text.indexOf('\n', index);
      const stop = end < 0 ? text.length : end;
      blank(index, stop);
      index = stop - 1;
    } else if (ch === '/' && text[index + 1] === '*') {
      const end = text.indexOf('*/', index + 2);
      if (end < 0) break;
      blank(index, end + 2);
      index = end + 1;
    }
  }
  // Pass 2: a comma after a value whose next non-space character closes an object or an array.
  const commentless = out.join('');
  for (let index = 0; index < commentless.length; index++) {
    const ch = commentless[index];
    if (ch === '"') {
      index = endOfString(commentless, index);
    } else if (ch === ',') {
      let next = index + 1;
      while (next < commentless.length && ' \t\r\n'.includes(commentless[next]!)) next++;
      let previous = index - 1;
      while (previous >= 0 && ' \t\r\n'.includes(commentless[previous]!)) previous--;
      // Only a comma after a value is trailing; `[,]` or `,,}` stay, for the parser to report.
      const afterValue = previous >= 0 && !'{[,:'.includes(commentless[previous]!);
      if (afterValue && (commentless[next] === '}' || commentless[next] === ']')) out[index] = ' ';
    }
  }
  return out.join('');
}

// The index of the closing quote of the string opening at `start` (or the last index when unterminated).
function endOfString(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === '"') return index;
  }
  return text.length - 1;
}
