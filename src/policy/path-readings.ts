/** One way a tool might read a path argument, as workspace-relative segments. */
export interface PathReading {
  /** The segments after `.` and `..` are resolved. */
  readonly segments: readonly string[];
  /** True when the path is absolute or climbs above the workspace root with `..`. */
  readonly escapes: boolean;
}

// Characters that render as a slash or backslash; NFKC maps the full-width ones but not these.
const SLASH_LIKE = /[\u2215\u2044\u29F8\uFF0F\uFF3C\\]/g;
const MAX_DECODE_ROUNDS = 3;
const PLAIN = /^[\x20-\x24\x26-\x5B\x5D-\x7E]*$/;

/**
 * Every reading of a path string that a tool could plausibly act on: as written, percent-decoded
 * (once and repeatedly, so `%252e%252e%252f` is `../`), NFKC-normalized (full-width `．．／`), and
 * with backslashes and slash look-alikes as separators. A policy test on a path is applied to all
 * of them, so no spelling of `..` or of a separator can slip past a path rule.
 *
 * @example
 * pathReadings('docs%2F..%2F..%2Fetc').some((reading) => reading.escapes); // true
 */
export function pathReadings(value: string): readonly PathReading[] {
  // Several rules often test the same argument of one call: the last answer is kept.
  if (value === lastValue && lastReadings) return lastReadings;
  const readings = Object.freeze(computeReadings(value));
  lastValue = value;
  lastReadings = readings;
  return readings;
}

let lastValue: string | undefined;
let lastReadings: readonly PathReading[] | undefined;

function computeReadings(value: string): PathReading[] {
  // Printable ASCII without %, \\ or a NUL has one reading only: the common case, kept cheap.
  if (PLAIN.test(value)) return [resolveSegments(value)];
  const spellings = new Set<string>([value]);
  let current = value;
  for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
    const decoded = percentDecode(current);
    if (decoded === current) break;
    spellings.add(decoded);
    current = decoded;
  }
  for (const spelling of [...spellings]) {
    const normalized = spelling.normalize('NFKC');
    spellings.add(normalized);
    spellings.add(normalized.replace(SLASH_LIKE, '/'));
    spellings.add(spelling.replace(SLASH_LIKE, '/'));
  }
  // A NUL byte ends the path for C-level file APIs, while a JavaScript tool sees all of it: read both.
  for (const spelling of [...spellings]) {
    if (spelling.includes('\0')) spellings.add(spelling.slice(0, spelling.indexOf('\0')));
  }
  const readings = new Map<string, PathReading>();
  for (const spelling of spellings) {
    const reading = resolveSegments(spelling);
    readings.set(`${reading.escapes}:${reading.segments.join('/')}`, reading);
  }
  return [...readings.values()];
}

/**
 * Splits a relative folder such as `"docs/api"` (as written in a policy) into its segments.
 *
 * @example
 * folderSegments('./docs/api/'); // ['docs', 'api']
 */
export function folderSegments(folder: string): string[] {
  return folder.split('/').filter((segment) => segment !== '' && segment !== '.');
}

function resolveSegments(spelling: string): PathReading {
  const absolute = spelling.startsWith('/') || /^[A-Za-z]:/.test(spelling) || spelling.startsWith('~');
  const segments: string[] = [];
  let escapes = absolute;
  for (const segment of spelling.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) escapes = true;
      else segments.pop();
      continue;
    }
    segments.push(segment);
  }
  return Object.freeze({ segments: Object.freeze(segments), escapes });
}

function percentDecode(text: string): string {
  // Byte by byte, so a malformed sequence elsewhere does not stop `%2F` from being read.
  return text.replace(/%([0-9A-Fa-f]{2})/g, (whole, hex: string) => {
    const code = Number.parseInt(hex, 16);
    return code < 0x80 ? String.fromCharCode(code) : whole;
  });
}
