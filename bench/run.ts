/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or only those whose name contains an argument),
 * each exporting `default async function run()`, one after another in this process.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => filters.length === 0 || filters.some((filter) => name.includes(filter)))
  .sort();

for (const name of files) {
  process.stdout.write(`\n== ${name.replace(/\.bench\.ts$/, '')} ==\n`);
  const module = (await import(pathToFileURL(join(here, name)).href)) as { default: () => Promise<void> };
  await module.default();
}
