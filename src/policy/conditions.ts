import { compileGlob, type GlobMatcher } from './glob.js';
import {
  absoluteSegments,
  defaultReadingContext,
  folderReadings,
  pathReadings,
  type ReadingContext,
  trimInvisible,
} from './path-readings.js';
import type { ArgumentCondition, JsonScalar } from './policy.js';

/**
 * How an ambiguous value is read: `every` (an allow rule: the test must hold however a tool reads
 * the value) or `any` (a deny or ask rule: it holds if some reading, in any letter case, passes).
 */
export type ReadingMode = 'every' | 'any';

/**
 * Tests one condition against the validated arguments; `path` is dotted (`"options.target"`) or
 * already split into keys. A missing argument, or one of the wrong type, fails the test. An array
 * argument is tested element by element (every element for `every`, some element for `any`). Path
 * tests read the value in `context` (see {@link pathReadings}): relative paths against its roots.
 *
 * @example
 * const context = { roots: ['/work'], home: '/home/ada' };
 * testCondition({ path: 'docs/a.md' }, 'path', { under: 'docs' }, 'every', context); // true
 * testCondition({ path: '/work/docs/a.md' }, 'path', { under: 'docs' }, 'every', context); // true
 * testCondition({ path: 'docs/../a.md' }, 'path', { under: 'docs' }, 'every', context); // false
 */
export function testCondition(
  args: unknown,
  path: string | readonly string[],
  condition: ArgumentCondition,
  mode: ReadingMode,
  context: ReadingContext = fallbackContext(),
): boolean {
  const found = lookUp(args, typeof path === 'string' ? path.split('.') : path);
  if (!found.present) return false;
  const test = compileCondition(condition, context);
  if (!Array.isArray(found.value)) return test(found.value, mode);
  const values: unknown[] = found.value;
  if (values.length === 0) return false;
  return mode === 'every'
    ? values.every((value) => test(value, mode))
    : values.some((value) => test(value, mode));
}

let fallback: ReadingContext | undefined;
function fallbackContext(): ReadingContext {
  fallback ??= defaultReadingContext();
  return fallback;
}

type ValueTest = (value: unknown, mode: ReadingMode) => boolean;

// Conditions are frozen data from a policy, and contexts are made once per gate or per tool: each
// pair is compiled once.
const compiled = new WeakMap<ArgumentCondition, WeakMap<ReadingContext, ValueTest>>();

function compileCondition(condition: ArgumentCondition, context: ReadingContext): ValueTest {
  let byContext = compiled.get(condition);
  if (!byContext) {
    byContext = new WeakMap();
    compiled.set(condition, byContext);
  }
  let test = byContext.get(context);
  if (!test) {
    test = buildTest(condition, context);
    byContext.set(context, test);
  }
  return test;
}

function buildTest(condition: ArgumentCondition, context: ReadingContext): ValueTest {
  if ('under' in condition) {
    const folders = list(condition.under).flatMap((folder) => folderReadings(folder, context));
    const lowered = folders.map((folder) => folder.map((part) => part.toLowerCase()));
    return (value, mode) => {
      if (typeof value !== 'string') return false;
      const readings = pathReadings(value, context);
      return mode === 'every'
        ? readings.every((reading) => folders.some((folder) => startsWith(reading.segments, folder, false)))
        : readings.some((reading) => lowered.some((folder) => startsWith(reading.segments, folder, true)));
    };
  }
  if ('glob' in condition) {
    const globs = list(condition.glob).flatMap((pattern) => placeGlob(pattern, context));
    return (value, mode) => {
      if (typeof value !== 'string') return false;
      const readings = pathReadings(value, context);
      return mode === 'every'
        ? readings.every((reading) => globs.some((glob) => glob.test(reading.segments, false, context)))
        : readings.some((reading) => globs.some((glob) => glob.test(reading.segments, true, context)));
    };
  }
  if ('equals' in condition) {
    const expected = condition.equals;
    return (value, mode) => sameScalar(value, expected, mode, context);
  }
  if ('oneOf' in condition) {
    return (value, mode) => condition.oneOf.some((option) => sameScalar(value, option, mode, context));
  }
  return () => false;
}

/** A glob from a policy placed in a context: an absolute pattern, or one read from each root. */
interface PlacedGlob {
  test(segments: readonly string[], broad: boolean, context: ReadingContext): boolean;
}

function placeGlob(pattern: string, context: ReadingContext): PlacedGlob[] {
  const spelling = pattern.normalize('NFC');
  if (spelling.startsWith('/') || spelling === '~' || spelling.startsWith('~/')) {
    const absolute = spelling.startsWith('/') ? spelling : `${context.home}${spelling.slice(1)}`;
    const exact = compileGlob(absolute);
    const folded = compileGlob(absolute.toLowerCase());
    return [
      {
        test: (segments, broad) => {
          const path = `/${segments.join('/')}`;
          return broad ? folded(path.toLowerCase()) : exact(path);
        },
      },
    ];
  }
  const exact = compileGlob(spelling);
  const folded = compileGlob(spelling.toLowerCase());
  // A pattern that starts with `**` names a file anywhere: a deny reads it outside the roots too.
  const anywhere = spelling.startsWith('**');
  const roots = context.roots.map((root) => absoluteSegments(root));
  return [
    {
      test: (segments, broad) => {
        const match: GlobMatcher = broad ? folded : exact;
        for (const root of roots) {
          if (!startsWith(segments, root, false)) continue;
          const relative = segments.slice(root.length).join('/');
          if (match(broad ? relative.toLowerCase() : relative)) return true;
        }
        if (broad && anywhere) return match(segments.join('/').toLowerCase());
        return false;
      },
    },
  ];
}

// `folder` is already lower-cased when `fold` is set.
function startsWith(segments: readonly string[], folder: readonly string[], fold: boolean): boolean {
  if (folder.length > segments.length) return false;
  for (let index = 0; index < folder.length; index++) {
    const segment = segments[index]!;
    if (folder[index] !== (fold ? segment.toLowerCase() : segment)) return false;
  }
  return true;
}

const PATH_LIKE = /[/\\%~]|^\./;

function sameScalar(
  value: unknown,
  expected: JsonScalar,
  mode: ReadingMode,
  context: ReadingContext,
): boolean {
  if (value === expected) return true;
  if (mode === 'every' || typeof value !== 'string' || typeof expected !== 'string') return false;
  const fold = (text: string) => trimInvisible(text.normalize('NFKC')).toLowerCase();
  if (fold(value) === fold(expected)) return true;
  // A path named by `equals` is the same file however it is spelled.
  if (!PATH_LIKE.test(expected) && !PATH_LIKE.test(value)) return false;
  const targets = new Set(
    folderReadings(expected, context).map((segments) => segments.join('/').toLowerCase()),
  );
  return pathReadings(value, context).some((reading) =>
    targets.has(reading.segments.join('/').toLowerCase()),
  );
}

function list<T>(value: T | readonly T[]): readonly T[] {
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

function lookUp(args: unknown, keys: readonly string[]): { present: boolean; value?: unknown } {
  let current: unknown = args;
  for (const key of keys) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return { present: false };
    if (!Object.hasOwn(current, key)) return { present: false };
    current = (current as Record<string, unknown>)[key];
  }
  return current === undefined ? { present: false } : { present: true, value: current };
}
