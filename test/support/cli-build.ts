import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { inject } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of the build that {@link buildSource} made for this run, if one was made. */
    toolpactBuild: string | undefined;
  }
}

/**
 * Builds `src/` once for the whole run, file by file with esbuild (the transform tsx applies, without
 * bundling), into a fresh folder under `node_modules/.cache` (where the packages resolve and the
 * checkout's package.json is found above it), with the files the modules read beside them (the
 * studio's UI). Answers the folder and a function that removes it.
 */
export async function buildSource(): Promise<{ folder: string; remove: () => void }> {
  const cache = join(ROOT, 'node_modules', '.cache', 'toolpact-test-build');
  mkdirSync(cache, { recursive: true });
  const folder = mkdtempSync(join(cache, 'run-'));
  // The test modules too (the fixtures and the support files they import; not the tests), beside it
  // as in the checkout, so that a fixture server's `../../../src/…` is the build's (see fixtureArgs).
  const typescript = (file: string) => /\.[cm]?ts$/.test(file) && !file.endsWith('.d.ts');
  const filesOf = (tree: string) =>
    readdirSync(join(ROOT, tree), { recursive: true, encoding: 'utf8' })
      .filter((file) => statSync(join(ROOT, tree, file)).isFile())
      .map((file) => join(tree, file));
  const source = filesOf('src');
  const tests = filesOf('test');
  const testModules = tests.filter((file) => typescript(file) && !file.endsWith('.test.ts'));
  const fixtures = tests.filter((file) => file.startsWith(join('test', 'fixtures', '')));
  await build({
    entryPoints: [...source.filter(typescript), ...testModules].map((file) => join(ROOT, file)),
    outdir: folder,
    outbase: ROOT,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  // What the modules read beside them: the studio's UI, the fixtures' data and plain JavaScript servers.
  for (const file of [...source, ...fixtures].filter((file) => !typescript(file))) {
    cpSync(join(ROOT, file), join(folder, file));
  }
  // Under node_modules a .js file is CommonJS unless its own package.json says otherwise.
  writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n');
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/**
 * The arguments of `node` that run `toolpact <args>`: the CLI of the run's build when the system
 * project made one, as a published copy runs (about half the start-up of the checkout's
 * `bin/toolpact.js`, which loads tsx and compiles `src/` through it), else `bin/toolpact.js`. The
 * commands are the same code either way; `bin/toolpact.js` itself is tested in test/cli/bin.test.ts.
 */
export function toolpactArgs(...args: string[]): string[] {
  const folder = inject('toolpactBuild');
  return [
    folder === undefined ? join(ROOT, 'bin', 'toolpact.js') : join(folder, 'src', 'cli', 'bin.js'),
    ...args,
  ];
}

/**
 * The arguments of `node` that import one module of the CLI (a path under `src/`, such as
 * `cli/stop-signal.ts`) and then run `script` (ES module text that finds it as `MODULE`): from the
 * run's build as {@link toolpactArgs} does, else from the checkout through tsx.
 */
export function cliModuleArgs(path: string, script: string): string[] {
  const folder = inject('toolpactBuild');
  const file =
    folder === undefined ? join(ROOT, 'src', path) : join(folder, 'src', path.replace(/\.ts$/, '.js'));
  const source = `const MODULE = await import(${JSON.stringify(pathToFileURL(file).href)});\n${script}`;
  return [...(folder === undefined ? ['--import', 'tsx'] : []), '--input-type=module', '-e', source];
}

/**
 * The arguments of `node` that run the TypeScript fixture `path` (a file under `test/fixtures/`): its
 * JavaScript in the run's build when there is one (a plain `node` start, about a third of the CPU of
 * compiling it and the `src/` it imports through tsx), else the file itself through tsx.
 */
export function fixtureArgs(path: string): string[] {
  const folder = inject('toolpactBuild');
  const inFixtures = relative(join(ROOT, 'test', 'fixtures'), path);
  if (folder === undefined || inFixtures.startsWith('..') || !/\.ts$/.test(path))
    return ['--import', 'tsx', path];
  return [join(folder, 'test', 'fixtures', inFixtures.replace(/\.ts$/, '.js'))];
}
