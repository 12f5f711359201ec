/** A compiled glob: a test on one string. */
export type GlobMatcher = (value: string) => boolean;

/**
 * True when `pattern` contains a wildcard (`*` or `?`).
 *
 * @example
 * hasWildcard('mcp:*'); // true
 */
export function hasWildcard(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

/**
 * Compiles a glob. `?` is one character, `*` any run of characters except `/`. `**` as a whole
 * path segment matches zero or more whole segments (`**\/.ssh/**` matches `.ssh/id_rsa` and
 * `a/b/.ssh`; `docs/**` matches `docs` itself); elsewhere `**` is any run including `/`. Nothing
 * else is special, so a pattern can never backtrack catastrophically: the match runs in
 * O(pattern × value) with no regular expression.
 *
 * @example
 * compileGlob('mcp:*')('mcp:files'); // true
 * compileGlob('docs/**')('docs/a/b.md'); // true
 * compileGlob('**\/.ssh/**')('.ssh/id_rsa'); // true
 */
export function compileGlob(pattern: string): GlobMatcher {
  let matcher = cache.get(pattern);
  if (!matcher) {
    matcher = build(pattern);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(pattern, matcher);
  }
  return matcher;
}

// Policies hold few patterns, and the gate runs on every call: compile each once.
const MAX_CACHED = 1_000;
const cache = new Map<string, GlobMatcher>();

/**
 * `dirs` is `**\/` at a segment's start: zero or more whole segments, each with its slash. `tail`
 * is a final `/**`: nothing, or a slash and anything after it.
 */
type Token =
  | { kind: 'text'; code: number }
  | { kind: 'one' }
  | { kind: 'star' }
  | { kind: 'globstar' }
  | { kind: 'dirs' }
  | { kind: 'tail' };

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '*') {
      if (pattern[index + 1] === '*') {
        const start = index;
        index++;
        while (pattern[index + 1] === '*') index++;
        const atSegmentStart = start === 0 || pattern[start - 1] === '/';
        const next = pattern[index + 1];
        if (atSegmentStart && next === '/') {
          tokens.push({ kind: 'dirs' });
          index++;
        } else if (start > 0 && pattern[start - 1] === '/' && next === undefined) {
          tokens.pop();
          tokens.push({ kind: 'tail' });
        } else tokens.push({ kind: 'globstar' });
      } else tokens.push({ kind: 'star' });
    } else if (char === '?') tokens.push({ kind: 'one' });
    else tokens.push({ kind: 'text', code: pattern.charCodeAt(index) });
  }
  return tokens;
}

const SLASH = 0x2f;

function build(pattern: string): GlobMatcher {
  if (!hasWildcard(pattern)) return (value) => value === pattern;
  // `prefix*` and `prefix**`, the usual shapes of a tool or source glob, need no table.
  const star = pattern.indexOf('*');
  const prefix = pattern.slice(0, star);
  const rest = pattern.slice(star);
  if (!hasWildcard(prefix) && (rest === '*' || /^\*{2,}$/.test(rest))) {
    if (rest === '*') return (value) => value.startsWith(prefix) && value.indexOf('/', prefix.length) < 0;
    // `folder/**` is the folder itself or anything below it.
    if (prefix.endsWith('/')) {
      const folder = prefix.slice(0, -1);
      return (value) => value.startsWith(prefix) || value === folder;
    }
    return (value) => value.startsWith(prefix);
  }
  // The literal text before the first wildcard and after the last one must be there: a cheap
  // necessary test that turns most values away before the table is built.
  const last = Math.max(pattern.lastIndexOf('*'), pattern.lastIndexOf('?'));
  const tokens = tokenize(pattern);
  // A leading `**/` or a final `/**` can match nothing, taking its slash with it.
  const head = tokens[0]?.kind === 'dirs' ? '' : prefix.split('?')[0]!.replace(/\/$/, '');
  const tail = tokens.at(-1)?.kind === 'tail' ? '' : pattern.slice(last + 1);
  return (value) => value.startsWith(head) && value.endsWith(tail) && matchTokens(tokens, value);
}

// Two rows reused across matches (the gate is synchronous, so no two matches overlap).
let rowA = new Uint8Array(256);
let rowB = new Uint8Array(256);

// Dynamic programming over (token, position): reach[i] says the tokens so far can end just before
// value[i]. Each token is one linear pass, so a match costs O(tokens × length), whatever the pattern.
function matchTokens(tokens: readonly Token[], value: string): boolean {
  const length = value.length;
  if (rowA.length < length + 1) {
    rowA = new Uint8Array(2 * (length + 1));
    rowB = new Uint8Array(2 * (length + 1));
  }
  let reach = rowA;
  let next = rowB;
  reach.fill(0, 0, length + 1);
  reach[0] = 1;
  for (const token of tokens) {
    next.fill(0, 0, length + 1);
    switch (token.kind) {
      case 'text':
        for (let at = 0; at < length; at++)
          if (reach[at] && value.charCodeAt(at) === token.code) next[at + 1] = 1;
        break;
      case 'one':
        for (let at = 0; at < length; at++) if (reach[at]) next[at + 1] = 1;
        break;
      case 'star': {
        let open = false;
        for (let at = 0; at <= length; at++) {
          if (reach[at]) open = true;
          if (open) next[at] = 1;
          if (at < length && value.charCodeAt(at) === SLASH) open = false;
        }
        break;
      }
      case 'globstar': {
        let open = false;
        for (let at = 0; at <= length; at++) {
          if (reach[at]) open = true;
          if (open) next[at] = 1;
        }
        break;
      }
      case 'dirs': {
        // Nothing, or whole segments: any later position just past a slash.
        let open = false;
        for (let at = 0; at <= length; at++) {
          if (reach[at]) {
            open = true;
            next[at] = 1;
          } else if (open && value.charCodeAt(at - 1) === SLASH) next[at] = 1;
        }
        break;
      }
      case 'tail': {
        // Nothing, or a slash and the rest of the value.
        if (reach[length]) next[length] = 1;
        for (let at = 0; at < length; at++) {
          if (reach[at] && value.charCodeAt(at) === SLASH) {
            next[length] = 1;
            break;
          }
        }
        break;
      }
      default: {
        const exhaustive: never = token;
        return exhaustive;
      }
    }
    [reach, next] = [next, reach];
  }
  return reach[length] === 1;
}
