import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';
import { PROJECT_DIR } from './support.js';

/** The CommonJS modules (typescript is one) loaded after importing `entry` in a fresh Node process. */
function loadedPackages(entry: string): string[] {
  const script = [
    "import { createRequire } from 'node:module';",
    `await import(${JSON.stringify(pathToFileURL(join(PROJECT_DIR, entry)).href)});`,
    'const cache = createRequire(import.meta.url).cache;',
    'console.log(JSON.stringify(Object.keys(cache)));',
  ].join('\n');
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: PROJECT_DIR,
    encoding: 'utf8',
  });
  return (JSON.parse(output.trim().split('\n').pop()!) as string[]).filter((file) =>
    file.includes(`${join('node_modules', 'typescript')}`),
  );
}

test('importing the root entry, with tool() and toolsOf(), does not load the TypeScript compiler', () => {
  expect(loadedPackages('src/index.ts')).toEqual([]);
});

test('importing toolpact/extract does load it (so the check above can fail)', () => {
  expect(loadedPackages('src/extract/index.ts').length).toBeGreaterThan(0);
});
