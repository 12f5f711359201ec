/**
 * The package as a consumer installs it: built as `npm run build` builds it, laid out in a temporary
 * project's node_modules beside its dependencies, zod and @types/node, and none of its optional peers
 * (not even TypeScript: the compiler runs from outside the project). Its types check with
 * `skipLibCheck: false`, every entry loads or names the peer it lacks, `require()` of every entry says
 * what to do, token counts say they are estimates without the tokenizer, and the CLI loads a TypeScript
 * module (one with a standard decorator where the project has the TypeScript compiler).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  files: string[];
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const specifiers = Object.keys(manifest.exports)
  .filter((key) => key !== './package.json')
  .map((key) => (key === '.' ? 'toolpact' : `toolpact/${key.slice(2)}`));

// Which entry needs which optional peer at load time; every other entry loads with none installed.
const NEEDS_PEER: Record<string, string> = {
  'toolpact/ai-sdk': 'ai',
  'toolpact/langchain': '@langchain/core',
  'toolpact/openai-agents': '@openai/agents',
  'toolpact/otel': '@opentelemetry/api',
  'toolpact/extract': 'typescript',
};

let project: string;
let work: string;
/** The consumer's type-check, started once the package is laid out and awaited by its test. */
let typeCheck: Promise<{ status: number | null; output: string }>;

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/** The environment of a CLI that loads TypeScript: a compile cache of the test's own. */
const withCache = (cache = join(work, 'typescript-cache')) => ({ ...process.env, TOOLPACT_CACHE_DIR: cache });

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'toolpact-package-'));
  project = join(work, 'consumer');
  const installed = join(project, 'node_modules', 'toolpact');
  mkdirSync(installed, { recursive: true });
  for (const entry of [...manifest.files, 'package.json']) {
    if (entry !== 'dist') cpSync(join(root, entry), join(installed, entry), { recursive: true });
  }
  // Types and JavaScript as `npm run build` makes them, without re-checking what the type-check checks,
  // and the declarations made to compile without the optional peers, as the build does.
  execFileSync(
    process.execPath,
    [tsc, '-p', join(root, 'tsconfig.build.json'), '--noCheck', '--outDir', join(installed, 'dist')],
    { cwd: root, stdio: 'pipe' },
  );
  execFileSync(process.execPath, [join(root, 'scripts', 'peer-types.mjs'), join(installed, 'dist')], {
    cwd: root,
    stdio: 'pipe',
  });
  for (const name of [...Object.keys(manifest.dependencies), 'zod', '@types/node']) {
    const link = join(project, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), link, 'dir');
  }
  writeFileSync(join(project, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        types: ['node'],
      },
      files: ['entries.ts'],
    }),
  );
  // Every entry, and one misuse that only real types catch: were toolpact's types `any` (unresolved,
  // or never checked), the expected error would be missing and tsc would say so.
  writeFileSync(
    join(project, 'entries.ts'),
    [
      ...specifiers.map((specifier, index) => `import * as entry${index} from '${specifier}';`),
      `export const entries = [${specifiers.map((_, index) => `entry${index}`).join(', ')}];`,
      '// @ts-expect-error createTool takes a definition and its handlers',
      'entry0.createTool();',
      '',
    ].join('\n'),
  );
  // The slowest step runs beside the tests that only load the package.
  typeCheck = new Promise((resolveCheck, reject) => {
    const child = spawn(process.execPath, [tsc, '-p', project], { cwd: project });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (status) => resolveCheck({ status, output }));
  });
}, 240_000);

afterAll(async () => {
  await typeCheck?.catch(() => undefined);
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the package holds none of its optional peers as dependencies', () => {
  const optional = Object.keys(manifest.peerDependenciesMeta).filter(
    (name) => manifest.peerDependenciesMeta[name]?.optional,
  );
  expect(optional).toContain('gpt-tokenizer');
  for (const name of optional) expect(Object.keys(manifest.dependencies)).not.toContain(name);
});

test("the published types of an entry built on a peer are the peer's own", () => {
  const dist = join(project, 'node_modules', 'toolpact', 'dist');
  const declarations: Record<string, RegExp> = {
    'ai-sdk/to-ai-sdk-tools.d.ts': /import type \{ ToolSet \} from 'ai';/,
    'langchain/to-langchain-tools.d.ts': /from '@langchain\/core\/tools';/,
    'openai-agents/to-openai-agents-tools.d.ts':
      /import type \{ FunctionTool, RunContext \} from '@openai\/agents';/,
    'otel/start-telemetry.d.ts': /import type \{ Meter, Tracer \} from '@opentelemetry\/api';/,
    'store/event-bus.d.ts': /import type \{ Client \} from 'pg';/,
    'extract/schema-node.d.ts': /from 'typescript';/,
  };
  for (const [file, reference] of Object.entries(declarations)) {
    const lines = readFileSync(join(dist, file), 'utf8').split('\n');
    const at = lines.findIndex((line) => reference.test(line));
    expect(at, file).toBeGreaterThan(0);
    expect(lines[at - 1], file).toMatch(/^\/\/ @ts-ignore optional peer "/);
  }
});

/** Runs an ES module in the consumer project and returns what it printed as JSON. */
function run(source: string, flags: string[] = []): unknown {
  const file = join(project, `probe-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, source);
  const output = execFileSync(process.execPath, [...flags, file], { cwd: project, encoding: 'utf8' });
  return JSON.parse(output);
}

test('every entry loads without the optional peers, or names the one it needs and how to install it', () => {
  const outcomes = run(`
    const outcomes = {};
    for (const specifier of ${JSON.stringify(specifiers)}) {
      try {
        await import(specifier);
        outcomes[specifier] = 'loaded';
      } catch (error) {
        outcomes[specifier] = { code: error.code, message: error.message };
      }
    }
    console.log(JSON.stringify(outcomes));
  `) as Record<string, 'loaded' | { code: string; message: string }>;
  for (const specifier of specifiers) {
    const peer = NEEDS_PEER[specifier];
    if (peer === undefined) {
      expect(outcomes[specifier], specifier).toBe('loaded');
      continue;
    }
    expect(outcomes[specifier], specifier).toMatchObject({ code: 'ERR_TOOLPACT_MISSING_PEER' });
    const { message } = outcomes[specifier] as { message: string };
    expect(message).toContain(specifier);
    expect(message).toContain(`npm install ${peer}`);
  }
});

test('require() of every entry gives the module where Node can, and otherwise says to use import', () => {
  const probe = `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const outcomes = {};
    for (const specifier of ${JSON.stringify(specifiers)}) {
      try {
        const loaded = require(specifier);
        outcomes[specifier] = Object.keys(loaded).length > 0 ? 'loaded' : 'empty';
      } catch (error) {
        outcomes[specifier] = { code: error.code, message: error.message };
      }
    }
    console.log(JSON.stringify(outcomes));
  `;
  type Outcome = 'loaded' | 'empty' | { code: string; message: string };
  // Node without require(esm) (before 20.19, or with it turned off): every entry explains.
  const without = run(probe, ['--no-experimental-require-module']) as Record<string, Outcome>;
  for (const specifier of specifiers) {
    expect(without[specifier], specifier).toMatchObject({ code: 'ERR_TOOLPACT_ESM_ONLY' });
    const { message } = without[specifier] as { message: string };
    expect(message).toContain(`import { … } from '${specifier}'`);
    expect(message).toContain(`await import('${specifier}')`);
  }
  // Node with require(esm): the module itself, except an entry that waits for a peer at load.
  const withRequire = run(probe) as Record<string, Outcome>;
  for (const specifier of specifiers) {
    if (NEEDS_PEER[specifier] === undefined) {
      expect(withRequire[specifier], specifier).toBe('loaded');
    } else {
      expect(withRequire[specifier], specifier).toMatchObject({ code: 'ERR_TOOLPACT_ESM_ONLY' });
    }
  }
});

test('without gpt-tokenizer, token counts and the token-budget rule say they are estimates', () => {
  const result = run(`
    const { countTokens, tokenCounting, tokenReport } = await import('toolpact/schema');
    const { createTool } = await import('toolpact');
    const { lint } = await import('toolpact/lint');
    const tool = createTool(
      { name: 'read_file', description: 'Read one UTF-8 file; returns its text.', category: 'read',
        effects: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
        parameters: { type: 'object', properties: { path: { type: 'string', description: 'Path of the file.' } }, required: ['path'] } },
      { execute: () => '' },
    );
    const budget = lint([tool], { config: { rules: { 'token-budget': ['error', { perTool: 5, perSet: 5 }] } } });
    console.log(JSON.stringify({
      counting: tokenCounting(),
      count: countTokens('{"name":"read_file","description":"Read one UTF-8 file."}'),
      report: tokenReport([], 'openai').counting,
      lint: budget.findings.filter((finding) => finding.rule === 'token-budget').map((finding) => finding.message),
    }));
  `);
  expect(result).toMatchObject({ counting: 'estimated', count: expect.any(Number), report: 'estimated' });
  const { lint } = result as { lint: string[] };
  expect(lint.length).toBe(2);
  for (const message of lint) expect(message).toMatch(/costs about \d+ \(estimated\) tokens/);
  expect((result as { count: number }).count).toBeGreaterThan(5);
});

const DECORATED = `import { createTool } from 'toolpact';
import { Unit } from './units.js';
interface Args { readonly n: number }
const initialized: string[] = [];
function counted<This, F extends (this: This, ...args: never[]) => unknown>(method: F, context: ClassMethodDecoratorContext<This, F>): F {
  context.addInitializer(() => { initialized.push(String(context.name)); });
  return method;
}
class Squares {
  @counted times(n: number): number { return n * n * Unit.One; }
}
const squares = new Squares();
const effects = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const;
export const square = createTool<Args>(
  { name: 'square', description: 'Square a number n; returns n times n.', category: 'read', effects,
    parameters: { type: 'object', properties: { n: { type: 'number', description: 'The number to square.' } }, required: ['n'] } },
  { execute: ({ n }: Args): string => \`\${squares.times(n)} by \${initialized.join(',')}\` },
);
`;
const UNITS = 'export enum Unit { One = 1, Two }\n';

test('the installed CLI loads a TypeScript module on this Node, an enum, a type imported without `type`, a .js import of a .ts file and imports without an extension included, and says its token counts are estimates', () => {
  writeFileSync(join(project, 'units.ts'), UNITS);
  mkdirSync(join(project, 'lib'), { recursive: true });
  writeFileSync(join(project, 'lib', 'index.ts'), "export { Unit as Units } from '../units';\n");
  writeFileSync(
    join(project, 'tools.ts'),
    `import { createTool, ToolExecuteContext } from 'toolpact';
import { Unit } from './units.js';
import { Units } from './lib';
interface Args { readonly n: number }
export function callIdOf(context: ToolExecuteContext): string | undefined { return context.callId; }
const effects = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const;
export const square = createTool<Args>(
  { name: 'square', description: 'Square a number n; returns n times n.', category: 'read', effects,
    parameters: { type: 'object', properties: { n: { type: 'number', description: 'The number to square.' } }, required: ['n'] } },
  { execute: ({ n }: Args): number => n * n * Unit.One * Units.One },
);
`,
  );
  const cli = join(project, 'node_modules', 'toolpact', 'bin', 'toolpact.js');
  const schemas = spawnSync(
    process.execPath,
    [cli, 'schemas', 'tools.ts', '--format', 'openai', '--tokens'],
    {
      cwd: project,
      encoding: 'utf8',
      env: withCache(),
    },
  );
  expect(schemas.stderr).toContain('Token counts are estimates');
  expect(schemas.stderr).toContain('install gpt-tokenizer');
  expect(schemas.status).toBe(0);
  const call = spawnSync(process.execPath, [cli, 'call', 'tools.ts', 'square', '{"n":7}'], {
    cwd: project,
    encoding: 'utf8',
    env: withCache(),
  });
  expect(JSON.parse(call.stdout)).toMatchObject({ ok: true, result: 49 });
  // A syntax error names the file, the line and the column, with the line itself.
  writeFileSync(join(project, 'broken.ts'), 'export const x = (a: number => a;\n');
  const broken = spawnSync(process.execPath, [cli, 'call', 'broken.ts', 'x', '{}'], {
    cwd: project,
    encoding: 'utf8',
    env: withCache(),
  });
  expect(broken.status).toBe(2);
  expect(broken.stderr).toContain(`${join(project, 'broken.ts')}:1:33: Expected ','`);
  expect(broken.stderr).not.toContain('    at ');
});

test('a standard decorator, which Node 20 cannot run, is lowered by the TypeScript compiler of the project, and named as missing where the project has none', () => {
  // \`@counted\` is a TC39 method decorator: \`addInitializer\` exists only in the standard's semantics
  // (the older experimental ones lack it).
  const cli = join(project, 'node_modules', 'toolpact', 'bin', 'toolpact.js');
  writeFileSync(join(project, 'units.ts'), UNITS);
  writeFileSync(join(project, 'decorated.ts'), DECORATED);
  const callDecorated = (cwd: string) =>
    spawnSync(process.execPath, [cli, 'call', 'decorated.ts', 'square', '{"n":7}'], {
      cwd,
      encoding: 'utf8',
      env: withCache(),
    });
  const without = callDecorated(project);
  expect(without.status).toBe(2);
  expect(without.stderr).toContain('Cannot load "decorated.ts"');
  expect(without.stderr).toContain('npm install --save-dev typescript');
  expect(without.stderr).not.toContain('    at ');
  // A second project, beside the first, whose developer installed TypeScript (as \`toolpact gen\` needs).
  const typed = join(work, 'typed-consumer');
  mkdirSync(join(typed, 'node_modules'), { recursive: true });
  writeFileSync(
    join(typed, 'package.json'),
    '{ "name": "typed-consumer", "private": true, "type": "module" }\n',
  );
  for (const [name, target] of [
    ['toolpact', join(project, 'node_modules', 'toolpact')],
    ['typescript', join(root, 'node_modules', 'typescript')],
  ] as const) {
    symlinkSync(target, join(typed, 'node_modules', name), 'dir');
  }
  writeFileSync(join(typed, 'units.ts'), UNITS);
  writeFileSync(join(typed, 'decorated.ts'), DECORATED);
  const call = callDecorated(typed);
  expect(call.stderr).toBe('');
  expect(JSON.parse(call.stdout)).toMatchObject({ ok: true, result: '49 by times' });
  // The first project installs TypeScript in its turn: the same file, unchanged, now loads (what was
  // compiled without the compiler was not kept for it).
  const installedTypescript = join(project, 'node_modules', 'typescript');
  symlinkSync(join(root, 'node_modules', 'typescript'), installedTypescript, 'dir');
  try {
    const after = callDecorated(project);
    expect(after.stderr).toBe('');
    expect(JSON.parse(after.stdout)).toMatchObject({ ok: true, result: '49 by times' });
  } finally {
    rmSync(installedTypescript);
  }
});

test('compiled modules are kept in a cache that only its user can write, an edit is compiled afresh, and a folder others can write to is never read', () => {
  const cli = join(project, 'node_modules', 'toolpact', 'bin', 'toolpact.js');
  const folder = join(work, 'cache-project');
  mkdirSync(folder);
  writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(folder, 'factor.ts'), 'export const FACTOR: number = 2;\n');
  writeFileSync(
    join(folder, 'doubled.ts'),
    `import { defineTool } from ${JSON.stringify(join(project, 'node_modules', 'toolpact', 'dist', 'index.js'))};
import { FACTOR } from './factor.js';
export const seven = defineTool({ name: 'seven', description: 'Seven times the factor.', category: 'read',
  execute: (): number => 7 * FACTOR });
`,
  );
  const cache = join(work, 'cache-of-its-own');
  const call = (cacheFolder: string) => {
    const run = spawnSync(process.execPath, [cli, 'call', 'doubled.ts', 'seven'], {
      cwd: folder,
      encoding: 'utf8',
      env: withCache(cacheFolder),
    });
    return run.status === 0
      ? (JSON.parse(run.stdout) as { result: unknown }).result
      : run.stdout + run.stderr;
  };
  const entries = (cacheFolder: string) => readdirSync(cacheFolder).filter((name) => name.endsWith('.mjs'));
  expect(call(cache)).toBe(14);
  expect(statSync(cache).mode & 0o777).toBe(0o700);
  expect(entries(cache)).toHaveLength(2);
  // An entry not written for over 30 days goes at the next write, once the last pruning is a day old.
  const stale = join(cache, `${'0'.repeat(64)}.mjs`);
  writeFileSync(stale, 'export {};\n');
  const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000);
  utimesSync(stale, daysAgo(31), daysAgo(31));
  utimesSync(join(cache, 'pruned'), daysAgo(2), daysAgo(2));
  // An edit is a new entry, never the old output.
  writeFileSync(join(folder, 'factor.ts'), 'export const FACTOR: number = 3;\n');
  expect(call(cache)).toBe(21);
  expect(existsSync(stale)).toBe(false);
  expect(entries(cache)).toHaveLength(3);
  // What the folder holds runs as the module: an entry planted there is what a load would run...
  for (const name of entries(cache)) {
    const path = join(cache, name);
    if (readFileSync(path, 'utf8').includes('FACTOR = 3'))
      writeFileSync(path, 'export const FACTOR = 1000;\n');
  }
  expect(call(cache)).toBe(7000);
  // ...so a folder that another user could have written to is not read, nor written.
  chmodSync(cache, 0o777);
  expect(call(cache)).toBe(21);
  chmodSync(cache, 0o775);
  expect(call(cache)).toBe(21);
  // Nor one reached through a link, where the link's target could change under it.
  const linked = join(work, 'cache-link');
  chmodSync(cache, 0o700);
  symlinkSync(cache, linked, 'dir');
  expect(call(linked)).toBe(21);
  // Off, the module compiles every time and nothing is written.
  expect(call('off')).toBe(21);
  expect(existsSync(join(folder, 'off'))).toBe(false);
});

test('toolpact gen without TypeScript installed names the package to install', () => {
  writeFileSync(join(project, 'typed.ts'), 'export function echo(text: string): string { return text; }\n');
  const cli = join(project, 'node_modules', 'toolpact', 'bin', 'toolpact.js');
  const gen = spawnSync(process.execPath, [cli, 'gen', 'typed.ts'], { cwd: project, encoding: 'utf8' });
  expect(gen.stderr).toContain('toolpact/extract needs the package "typescript"');
  expect(gen.stderr).toContain('npm install typescript');
  expect(gen.stderr).not.toContain('    at ');
  expect(gen.status).not.toBe(0);
});

// Last, so the tests above run while the type-check started in beforeAll works.
test('with skipLibCheck: false, strict and no optional peer installed, every entry type-checks', async () => {
  const { status, output } = await typeCheck;
  expect(output.split('\n').filter((line) => line.trim() !== '')).toEqual([]);
  expect(status).toBe(0);
}, 180_000);
