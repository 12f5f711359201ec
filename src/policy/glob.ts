/** A compiled glob: a test on one string. */
export type GlobMatcher = (value: string) => boolean;

/** True when `pattern` contains a wildcard (`*` or `?`). */
export function hasWildcard(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

/**
 * Compiles a glob. `?` is one character, `*` any run of characters except `/`, `**` any run
 * including `/`. Nothing else is special, so a pattern can never backtrack catastrophically: the
 * match runs in O(pattern × value) with no regular expression.
 *
 * @example
 * compileGlob('mcp:*')('mcp:files'); // true
 * compileGlob('docs/**')('docs/a/b.md'); // true
 */
export function compileGlob(pattern: string): GlobMatcher {
  let matcher = cache.get(pattern);
  if (!matcher) {
    const tokens = tokenize(pattern);
    matcher = (value) => matchTokens(tokens, value);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(pattern, matcher);
  }
  return matcher;
}

// Policies hold few patterns, and the gate runs on every call: compile each once.
const MAX_CACHED = 1_000;
const cache = new Map<string, GlobMatcher>();

type Token = { kind: 'text'; char: string } | { kind: 'one' } | { kind: 'star' } | { kind: 'globstar' };

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  const chars = [...pattern];
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index]!;
    if (char === '*') {
      if (chars[index + 1] === '*') {
        index++;
        while (chars[index + 1] === '*') index++;
        tokens.push({ kind: 'globstar' });
      } else tokens.push({ kind: 'star' });
    } else if (char === '?') tokens.push({ kind: 'one' });
    else tokens.push({ kind: 'text', char });
  }
  return tokens;
}

// Dynamic programming over (token, position): reachable[i] says the tokens so far can end before value[i].
function matchTokens(tokens: readonly Token[], value: string): boolean {
  const chars = [...value];
  let reachable = new Array<boolean>(chars.length + 1).fill(false);
  reachable[0] = true;
  for (const token of tokens) {
    const next = new Array<boolean>(chars.length + 1).fill(false);
    for (let at = 0; at <= chars.length; at++) {
      if (!reachable[at]) continue;
      switch (token.kind) {
        case 'text':
          if (chars[at] === token.char) next[at + 1] = true;
          break;
        case 'one':
          if (at < chars.length) next[at + 1] = true;
          break;
        case 'star': {
          next[at] = true;
          for (let end = at; end < chars.length && chars[end] !== '/'; end++) next[end + 1] = true;
          break;
        }
        case 'globstar':
          for (let end = at; end <= chars.length; end++) next[end] = true;
          break;
        default: {
          const exhaustive: never = token;
          return exhaustive;
        }
      }
    }
    reachable = next;
  }
  return reachable[chars.length] === true;
}
