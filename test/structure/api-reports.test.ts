import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { apiReports, exportedNames } from './api-report.js';
import { entryFiles } from './layers.js';

const root = resolve(import.meta.dirname, '../..');
const folder = join(root, 'api');
/** `TOOLPACT_UPDATE_API=1` rewrites the reports (`npm run api:update`); review the diff, then commit it. */
const update = process.env.TOOLPACT_UPDATE_API === '1';

/** `src/index.ts` is `toolpact.api.md`; `src/gateway/index.ts` is `gateway.api.md`. */
function reportName(entry: string): string {
  const path = relative(join(root, 'src'), entry).split(/[\\/]/);
  return `${path.length === 1 ? 'toolpact' : path[0]}.api.md`;
}

test('each entry exports what its committed API report says, names and types', () => {
  const entries = entryFiles(root);
  expect(entries).toHaveLength(16);
  const reports = apiReports(join(root, 'tsconfig.json'), entries);
  if (update) mkdirSync(folder, { recursive: true });
  const stale: string[] = [];
  for (const entry of entries) {
    const report = reports.get(entry)!;
    expect(exportedNames(report).length, `${entry} exports nothing`).toBeGreaterThan(0);
    const file = join(folder, reportName(entry));
    if (update) writeFileSync(file, report);
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (committed !== report) stale.push(`api/${reportName(entry)}`);
    expect(report, `api/${reportName(entry)} differs: run npm run api:update and review the diff`).toBe(
      committed,
    );
  }
  // A report whose entry is gone is stale too.
  const expected = new Set(entries.map(reportName));
  const orphans = readdirSync(folder).filter((name) => !expected.has(name));
  expect(orphans, 'reports without an entry in package.json exports').toEqual([]);
  expect(stale).toEqual([]);
}, 180_000);

test('the gateway entry exports at most fifteen names', () => {
  const report = readFileSync(join(folder, 'gateway.api.md'), 'utf8');
  expect(exportedNames(report).length).toBeLessThanOrEqual(15);
});
