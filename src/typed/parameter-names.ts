/**
 * The parameter list of a function as its source text shows it at run time: each parameter's name,
 * `{…}` or `[…]` for a destructuring pattern, `...name` for a rest parameter. `undefined` when the text
 * cannot be read (a native or bound function), so a caller never fails on what it cannot see.
 *
 * @example
 * parameterNames(function read_file(path, range = {}) {}); // ['path', 'range']
 */
export function parameterNames(fn: (...args: never[]) => unknown): string[] | undefined {
  let text: string;
  try {
    text = Function.prototype.toString.call(fn);
  } catch {
    return undefined;
  }
  if (text.includes('[native code]')) return undefined;
  const list = parameterListText(stripComments(text));
  if (list === undefined) return undefined;
  return splitTopLevel(list)
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(parameterName);
}

function parameterListText(text: string): string | undefined {
  const open = text.indexOf('(');
  const arrow = text.indexOf('=>');
  // `x => …`: a single parameter without parentheses.
  if (arrow >= 0 && (open < 0 || open > arrow)) {
    const head = text
      .slice(0, arrow)
      .replace(/^async\s+/, '')
      .trim();
    return /^[A-Za-z_$][\w$]*$/.test(head) ? head : undefined;
  }
  if (open < 0) return undefined;
  let depth = 0;
  let quote: string | undefined;
  for (let index = open; index < text.length; index++) {
    const ch = text[index]!;
    if (quote) {
      if (ch === '\\') index++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') {
      depth--;
      if (depth === 0) return text.slice(open + 1, index);
    }
  }
  return undefined;
}

function splitTopLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let index = 0; index < list.length; index++) {
    const ch = list[index]!;
    if (quote) {
      if (ch === '\\') index++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(list.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(list.slice(start));
  return parts;
}

function parameterName(part: string): string {
  if (part.startsWith('{')) return '{…}';
  if (part.startsWith('[')) return '[…]';
  const match = /^(\.\.\.)?\s*([A-Za-z_$][\w$]*)/.exec(part);
  return match ? `${match[1] ?? ''}${match[2]}` : part;
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
}
