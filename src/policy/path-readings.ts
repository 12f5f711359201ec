import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';

/**
 * Where relative paths are read from, and what `~` means: the one context every path test of the
 * gate reads a value in. `roots` are absolute host folders (for a local tool the workspace, for an
 * imported tool the roots its server's configuration declares); `home` is the home folder of the
 * user the gate runs as.
 */
export interface ReadingContext {
  readonly roots: readonly string[];
  readonly home: string;
  /**
   * Also read each path through the symbolic links on the way to it (default true): a link in a
   * root that points at `~/.ssh` is read as `~/.ssh` too.
   */
  readonly realPaths?: boolean;
}

/** One way a tool might read a path argument: an absolute path, resolved lexically. */
export interface PathReading {
  /** The segments of the absolute path after `.` and `..` are resolved (`/a/b` is `['a', 'b']`). */
  readonly segments: readonly string[];
}

// Characters that render as a slash or backslash; NFKC maps the full-width ones but not these.
const SLASH_LIKE = /[\u2215\u2044\u29F8\uFF0F\uFF3C\\]/g;
const MAX_DECODE_ROUNDS = 3;
// Unicode White_Space (JavaScript's \s plus NEL), the byte-order mark and the zero-width characters:
// a tool that trims its argument reads the path without them, so the gate reads it both ways.
const EDGE_INVISIBLE =
  /^[\s\u0085\u180E\u200B-\u200D\u2060\uFEFF]+|[\s\u0085\u180E\u200B-\u200D\u2060\uFEFF]+$/g;
/**
 * The value without white space, a byte-order mark or zero-width characters at either end: what a
 * tool that trims its argument acts on.
 *
 * @example
 * trimInvisible('\ufeff docs/a.md\u200b'); // 'docs/a.md'
 */
export function trimInvisible(value: string): string {
  return value.replace(EDGE_INVISIBLE, '');
}

// Printable ASCII without %, \\, ~, a NUL or white space at either end: one spelling only.
const PLAIN =
  /^[\x21-\x24\x26-\x5B\x5D-\x7D](?:[\x20-\x24\x26-\x5B\x5D-\x7D]*[\x21-\x24\x26-\x5B\x5D-\x7D])?$/;

/**
 * The context of a gate that reads relative paths against the current folder and `~` as the
 * current user's home.
 *
 * @example
 * pathReadings('notes/a.md', defaultReadingContext());
 */
export function defaultReadingContext(roots: readonly string[] = [process.cwd()]): ReadingContext {
  // A root given through a symbolic link is also read at its real path, so the real path of a file
  // under it (a reading of its own) stays under the root.
  const placed = new Set<string>();
  for (const root of roots) {
    const absolute = joinAbsolute(absoluteSegments(root));
    placed.add(absolute);
    try {
      placed.add(joinAbsolute(absoluteSegments(realpathSync.native(absolute))));
    } catch {
      // A root that does not exist (yet) is read as written.
    }
  }
  return { roots: [...placed], home: homedir() };
}

/**
 * Every reading of a path string that a tool could plausibly act on, as absolute paths: as written
 * and with white space and invisible characters trimmed from its ends; percent-decoded (once and
 * repeatedly, so `%252e%252e%252f` is `../`); NFKC-normalized (full-width `．．／`); with
 * backslashes and slash look-alikes as separators; cut at a NUL byte; `~` as the home folder; a
 * relative path against each root; `.` and `..` resolved lexically; and, where the path or a folder
 * above it exists, through its symbolic links. A policy test on a path runs on all of them: an allow
 * rule's must hold for every reading, a deny or ask rule's for any.
 *
 * @example
 * const context = { roots: ['/work'], home: '/home/ada' };
 * pathReadings(' ~/.ssh/id_rsa', context).some((reading) => reading.segments[2] === '.ssh'); // true
 */
export function pathReadings(value: string, context: ReadingContext): readonly PathReading[] {
  // Several rules often test the same argument of one call: the last answer is kept.
  if (value === lastValue && context === lastContext && lastReadings) return lastReadings;
  const readings = Object.freeze(computeReadings(value, context));
  lastValue = value;
  lastContext = context;
  lastReadings = readings;
  return readings;
}

let lastValue: string | undefined;
let lastContext: ReadingContext | undefined;
let lastReadings: readonly PathReading[] | undefined;

/**
 * The spellings of a value a tool might act on, before they are placed against the roots.
 *
 * @example
 * pathSpellings('docs%2Fa.md'); // ['docs%2Fa.md', 'docs/a.md']
 */
export function pathSpellings(value: string): readonly string[] {
  if (PLAIN.test(value)) return [value];
  const spellings = new Set<string>([value]);
  const trimmed = trimInvisible(value);
  spellings.add(trimmed);
  for (const start of [value, trimmed]) {
    let current = start;
    for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
      const decoded = percentDecode(current);
      if (decoded === current) break;
      spellings.add(decoded);
      // A decoded value can carry its own white space (`%20docs`): trim that too.
      spellings.add(trimInvisible(decoded));
      current = decoded;
    }
  }
  for (const spelling of [...spellings]) {
    const normalized = spelling.normalize('NFKC');
    spellings.add(normalized);
    spellings.add(normalized.replace(SLASH_LIKE, '/'));
    spellings.add(spelling.replace(SLASH_LIKE, '/'));
    spellings.add(trimInvisible(normalized));
  }
  // A NUL byte ends the path for C-level file APIs, while a JavaScript tool sees all of it: read both.
  for (const spelling of [...spellings]) {
    if (spelling.includes('\0')) spellings.add(spelling.slice(0, spelling.indexOf('\0')));
  }
  spellings.delete('');
  return [...spellings];
}

function computeReadings(value: string, context: ReadingContext): PathReading[] {
  const readings = new Map<string, PathReading>();
  const add = (segments: string[]) => {
    const key = segments.join('/');
    if (!readings.has(key)) readings.set(key, Object.freeze({ segments: Object.freeze(segments) }));
  };
  const climbing: string[] = [];
  for (const spelling of pathSpellings(value)) {
    for (const segments of placeSpelling(spelling, context)) add(segments);
    if (/(^|\/)\.\.(\/|$)/.test(spelling)) climbing.push(spelling);
  }
  if (context.realPaths !== false) {
    for (const reading of [...readings.values()]) {
      const real = realSegments(reading.segments);
      if (real) add(real);
    }
    // The kernel resolves `..` after a symbolic link from where the link points, not from the text:
    // `link-to-ssh/../.aws` is `~/.aws`. Such a spelling is also walked on disk, one segment at a time.
    for (const spelling of climbing) {
      for (const start of startsOf(spelling, context)) add(physicalSegments(start));
    }
  }
  return [...readings.values()];
}

// One spelling as absolute segments: itself when absolute, `~` as home, else once against each root.
function placeSpelling(spelling: string, context: ReadingContext): string[][] {
  if (/^file:\/\//i.test(spelling)) {
    const rest = spelling.slice('file://'.length);
    const path = rest.startsWith('/') ? rest : rest.slice(Math.max(0, rest.indexOf('/')));
    return [absoluteSegments(path)];
  }
  return startsOf(spelling, context).map(({ prefix, rest }) => absoluteSegments(`${prefix}/${rest}`));
}

// Where a spelling is read from: `/`, the home folder, or each root.
function startsOf(spelling: string, context: ReadingContext): { prefix: string; rest: string }[] {
  if (spelling.startsWith('/')) return [{ prefix: '/', rest: spelling }];
  if (spelling === '~' || spelling.startsWith('~/'))
    return [{ prefix: context.home, rest: spelling.slice(1) }];
  return context.roots.map((root) => ({ prefix: root, rest: spelling }));
}

function physicalSegments(start: { prefix: string; rest: string }): string[] {
  let current = absoluteSegments(start.prefix);
  let onDisk = true;
  for (const segment of start.rest.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      current.pop();
      continue;
    }
    current.push(segment);
    if (!onDisk) continue;
    try {
      current = absoluteSegments(realpathSync.native(joinAbsolute(current)));
    } catch {
      // Past the part that exists, the rest is read as written.
      onDisk = false;
    }
  }
  return current;
}

/**
 * An absolute path's segments, with `.`, `..`, empty segments and a trailing slash resolved
 * lexically (`..` stops at `/`).
 *
 * @example
 * absoluteSegments('/work//docs/../a/./b/'); // ['work', 'a', 'b']
 */
export function absoluteSegments(path: string): string[] {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments;
}

/** `/` and the segments joined. */
export function joinAbsolute(segments: readonly string[]): string {
  return `/${segments.join('/')}`;
}

// The path through its symbolic links: the longest part of it that exists is resolved by the file
// system, and the rest appended, so a file about to be written under a linked folder is read too.
function realSegments(segments: readonly string[]): string[] | undefined {
  for (let length = segments.length; length > 0; length--) {
    let real: string;
    try {
      real = realpathSync.native(joinAbsolute(segments.slice(0, length)));
    } catch {
      continue;
    }
    const resolved = [...absoluteSegments(real), ...segments.slice(length)];
    return resolved.join('/') === segments.join('/') ? undefined : resolved;
  }
  return undefined;
}

/**
 * Splits a folder as written in a policy into absolute segments, once for each root when it is
 * relative (`docs` is `<root>/docs` for every root), as itself when absolute, under home for `~/`.
 *
 * @example
 * folderReadings('docs', { roots: ['/a', '/b'], home: '/home/u' }); // [['a','docs'], ['b','docs']]
 */
export function folderReadings(folder: string, context: ReadingContext): string[][] {
  const spelling = folder.normalize('NFC');
  return placeSpelling(spelling, context);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function percentDecode(text: string): string {
  // Run by run, so a malformed sequence elsewhere does not stop `%2F` from being read: a run of
  // escapes that is valid UTF-8 (`cl%C3%A9s`) is decoded as such, else its ASCII bytes alone.
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    const bytes = Uint8Array.from(run.slice(1).split('%'), (hex) => Number.parseInt(hex, 16));
    try {
      return UTF8.decode(bytes);
    } catch {
      return run.replace(/%([0-9A-Fa-f]{2})/g, (whole, hex: string) => {
        const code = Number.parseInt(hex, 16);
        return code < 0x80 ? String.fromCharCode(code) : whole;
      });
    }
  });
}
