import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'golden');

/** JSON with object keys sorted at every level, so a golden comparison ignores key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/**
 * The golden text of `name`, canonicalized; with UPDATE_GOLDEN=1 the file is (re)written from `actual`
 * first. A missing file is an error that says how to create it.
 */
export function golden(name: string, actual: unknown): { expected: string; actual: string } {
  const file = join(GOLDEN_DIR, `${name}.json`);
  const text = `${canonicalJson(actual)}\n`;
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  if (!existsSync(file))
    throw new Error(
      `No golden file test/golden/${name}.json; run the tests with UPDATE_GOLDEN=1 to write it, then review it.`,
    );
  return { expected: `${canonicalJson(JSON.parse(readFileSync(file, 'utf8')))}\n`, actual: text };
}
