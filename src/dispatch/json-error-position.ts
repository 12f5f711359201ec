/**
 * The offset of the first syntax error in `text`, read by a small scanner of the JSON grammar (RFC 8259).
 * Used only after `JSON.parse` has failed, because V8's messages do not always carry a position.
 * Iterative, so hostile nesting cannot overflow the stack.
 */
export function jsonErrorPosition(text: string): { position: number; detail: string } {
  let index = 0;
  const stack: ('object' | 'array')[] = [];
  const fail = (detail: string) => ({ position: Math.min(index, text.length), detail });
  const skipSpace = () => {
    while (index < text.length && ' \t\n\r'.includes(text[index]!)) index++;
  };
  const found = () =>
    index < text.length ? `unexpected ${JSON.stringify(text[index])}` : 'unexpected end of input';

  const scanString = (): string | undefined => {
    index++; // opening quote
    while (index < text.length) {
      const ch = text.charCodeAt(index);
      if (ch === 0x22) {
        index++;
        return undefined;
      }
      if (ch < 0x20) return 'control character in a string (escape it, e.g. \\n)';
      if (ch === 0x5c) {
        const next = text[index + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) return 'invalid \\u escape';
          index += 6;
          continue;
        }
        if (next === undefined || !'"\\/bfnrt'.includes(next)) return 'invalid escape in a string';
        index += 2;
        continue;
      }
      index++;
    }
    return 'unterminated string';
  };

  const scanValue = (): string | undefined => {
    skipSpace();
    const ch = text[index];
    if (ch === '"') return scanString();
    if (ch === '{' || ch === '[') return undefined; // opened by the caller's loop
    const literal = /^(?:true|false|null)/.exec(text.slice(index, index + 5));
    if (literal) {
      index += literal[0].length;
      return undefined;
    }
    const number = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(index, index + 400));
    if (number && number[0] !== '-') {
      index += number[0].length;
      return undefined;
    }
    return `${found()} where a value belongs`;
  };

  skipSpace();
  // Each step: read a value (opening containers pushes them), then what may follow it.
  for (;;) {
    skipSpace();
    const opener = text[index];
    if (opener === '{' || opener === '[') {
      stack.push(opener === '{' ? 'object' : 'array');
      index++;
      skipSpace();
      if (text[index] === (opener === '{' ? '}' : ']')) {
        index++;
        stack.pop();
      } else if (opener === '{') {
        if (text[index] !== '"') return fail(`${found()} where a double-quoted key belongs`);
        const problem = scanString();
        if (problem) return fail(problem);
        skipSpace();
        if (text[index] !== ':') return fail(`${found()} where ":" belongs`);
        index++;
        continue;
      } else {
        continue;
      }
    } else {
      const problem = scanValue();
      if (problem) return fail(problem);
    }
    // After a value: close containers or move to the next element.
    for (;;) {
      skipSpace();
      const top = stack[stack.length - 1];
      if (!top) {
        return index < text.length ? fail(`${found()} after the end of the value`) : fail('no error found');
      }
      const closer = top === 'object' ? '}' : ']';
      if (text[index] === closer) {
        index++;
        stack.pop();
        continue;
      }
      if (text[index] !== ',') return fail(`${found()} where "," or "${closer}" belongs`);
      index++;
      skipSpace();
      if (top === 'object') {
        if (text[index] !== '"')
          return fail(`${found()} where a double-quoted key belongs (no trailing commas)`);
        const problem = scanString();
        if (problem) return fail(problem);
        skipSpace();
        if (text[index] !== ':') return fail(`${found()} where ":" belongs`);
        index++;
      } else if (text[index] === ']') {
        return fail('unexpected "]" after "," (no trailing commas)');
      }
      break;
    }
  }
}
