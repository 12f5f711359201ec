import { compileGlob } from './glob.js';
import { folderSegments, pathReadings } from './path-readings.js';
import type { ArgumentCondition, JsonScalar } from './policy.js';

/**
 * How an ambiguous value is read: `every` (an allow rule: the test must hold however a tool reads
 * the value) or `any` (a deny or ask rule: it holds if some reading, in any letter case, passes).
 */
export type ReadingMode = 'every' | 'any';

/**
 * Tests one condition against the validated arguments. A missing argument, or one of the wrong
 * type, fails the test. An array argument is tested element by element (every element for `every`,
 * some element for `any`).
 *
 * @example
 * testCondition({ path: 'docs/a.md' }, 'path', { under: 'docs' }, 'every'); // true
 * testCondition({ path: 'docs/../a.md' }, 'path', { under: 'docs' }, 'every'); // false
 */
export function testCondition(
  args: unknown,
  path: string,
  condition: ArgumentCondition,
  mode: ReadingMode,
): boolean {
  const found = lookUp(args, path);
  if (!found.present) return false;
  const values = Array.isArray(found.value) ? found.value : [found.value];
  if (values.length === 0) return false;
  const one = (value: unknown) => testValue(value, condition, mode);
  return mode === 'every' ? values.every(one) : values.some(one);
}

function testValue(value: unknown, condition: ArgumentCondition, mode: ReadingMode): boolean {
  if ('under' in condition) {
    if (typeof value !== 'string') return false;
    const folders = list(condition.under).map((folder) => folderSegments(folder));
    return testReadings(value, mode, (segments, fold) =>
      folders.some((folder) => startsWith(segments, folder, fold)),
    );
  }
  if ('glob' in condition) {
    if (typeof value !== 'string') return false;
    const patterns = list(condition.glob);
    const exact = patterns.map((pattern) => compileGlob(pattern));
    const folded = patterns.map((pattern) => compileGlob(pattern.toLowerCase()));
    return testReadings(value, mode, (segments, fold) => {
      const joined = segments.join('/');
      return fold
        ? folded.some((match) => match(joined.toLowerCase()))
        : exact.some((match) => match(joined));
    });
  }
  if ('equals' in condition) return sameScalar(value, condition.equals, mode);
  if ('oneOf' in condition) return condition.oneOf.some((option) => sameScalar(value, option, mode));
  return false;
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

function startsWith(segments: readonly string[], folder: readonly string[], fold: boolean): boolean {
  if (folder.length > segments.length) return false;
  return folder.every((part, index) =>
    fold ? part.toLowerCase() === segments[index]!.toLowerCase() : part === segments[index],
  );
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

function lookUp(args: unknown, path: string): { present: boolean; value?: unknown } {
  let current: unknown = args;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return { present: false };
    if (!Object.hasOwn(current, key)) return { present: false };
    current = (current as Record<string, unknown>)[key];
  }
  return current === undefined ? { present: false } : { present: true, value: current };
}
