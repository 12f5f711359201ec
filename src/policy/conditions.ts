import { compileGlob } from './glob.js';
import { folderSegments, pathReadings } from './path-readings.js';
import type { ArgumentCondition, JsonScalar } from './policy.js';

/**
 * How an ambiguous value is read: `every` (an allow rule: the test must hold however a tool reads
 * the value) or `any` (a deny or ask rule: it holds if some reading, in any letter case, passes).
 */
export type ReadingMode = 'every' | 'any';

/**
 * Tests one condition against the validated arguments; `path` is dotted (`"options.target"`) or
 * already split into keys. A missing argument, or one of the wrong
 * type, fails the test. An array argument is tested element by element (every element for `every`,
 * some element for `any`).
 *
 * @example
 * testCondition({ path: 'docs/a.md' }, 'path', { under: 'docs' }, 'every'); // true
 * testCondition({ path: 'docs/../a.md' }, 'path', { under: 'docs' }, 'every'); // false
 */
export function testCondition(
  args: unknown,
  path: string | readonly string[],
  condition: ArgumentCondition,
  mode: ReadingMode,
): boolean {
  const found = lookUp(args, typeof path === 'string' ? path.split('.') : path);
  if (!found.present) return false;
  const test = compileCondition(condition);
  if (!Array.isArray(found.value)) return test(found.value, mode);
  const values: unknown[] = found.value;
  if (values.length === 0) return false;
  return mode === 'every'
    ? values.every((value) => test(value, mode))
    : values.some((value) => test(value, mode));
}

type ValueTest = (value: unknown, mode: ReadingMode) => boolean;

// Conditions are frozen data from a policy: each is compiled once.
const compiled = new WeakMap<ArgumentCondition, ValueTest>();

function compileCondition(condition: ArgumentCondition): ValueTest {
  let test = compiled.get(condition);
  if (!test) {
    test = buildTest(condition);
    compiled.set(condition, test);
  }
  return test;
}

function buildTest(condition: ArgumentCondition): ValueTest {
  if ('under' in condition) {
    const folders = list(condition.under).map((folder) => folderSegments(folder));
    const lowered = folders.map((folder) => folder.map((part) => part.toLowerCase()));
    return (value, mode) =>
      typeof value === 'string' &&
      testReadings(value, mode, (segments, fold) =>
        fold
          ? lowered.some((folder) => startsWith(segments, folder, true))
          : folders.some((folder) => startsWith(segments, folder, false)),
      );
  }
  if ('glob' in condition) {
    const patterns = list(condition.glob);
    const exact = patterns.map((pattern) => compileGlob(pattern));
    const folded = patterns.map((pattern) => compileGlob(pattern.toLowerCase()));
    return (value, mode) =>
      typeof value === 'string' &&
      testReadings(value, mode, (segments, fold) => {
        const joined = segments.join('/');
        return fold
          ? folded.some((match) => match(joined.toLowerCase()))
          : exact.some((match) => match(joined));
      });
  }
  if ('equals' in condition) return (value, mode) => sameScalar(value, condition.equals, mode);
  if ('oneOf' in condition) {
    return (value, mode) => condition.oneOf.some((option) => sameScalar(value, option, mode));
  }
  return () => false;
}

function testReadings(
  value: string,
  mode: ReadingMode,
  test: (segments: readonly string[], fold: boolean) => boolean,
): boolean {
  const readings = pathReadings(value);
  if (mode === 'every') return readings.every((reading) => !reading.escapes && test(reading.segments, false));
  return readings.some((reading) => !reading.escapes && test(reading.segments, true));
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

function sameScalar(value: unknown, expected: JsonScalar, mode: ReadingMode): boolean {
  if (value === expected) return true;
  if (mode === 'any' && typeof value === 'string' && typeof expected === 'string') {
    return value.normalize('NFKC').trim().toLowerCase() === expected.normalize('NFKC').trim().toLowerCase();
  }
  return false;
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
