/**
 * The package as a consumer installs it: built, laid out in a temporary project's node_modules beside
 * its dependencies, TypeScript and @types/node, and none of its optional peers. Its types check with
 * `skipLibCheck: false`, every entry loads or names the peer it lacks, `require()` of every entry says
 * what to do, and token counts say they are estimates without the tokenizer.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
};

// The entries whose public types are built on a peer's types, and the modules they may miss: such an
// entry is used with its peer installed. Every other entry's types must check without any.
const TYPES_FROM_PEER: Record<string, RegExp> = {
  'ai-sdk': /^ai$/,
  langchain: /^@langchain\/core\//,
  'openai-agents': /^@openai\/agents$/,
  otel: /^@opentelemetry\/(api|api-logs)$/,
  store: /^pg$/,
};

let project: string;
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'toolpact-package-'));
  project = join(work, 'consumer');
  const installed = join(project, 'node_modules', 'toolpact');
  mkdirSync(installed, { recursive: true });
  for (const entry of [...manifest.files, 'package.json']) {
    if (entry !== 'dist') cpSync(join(root, entry), join(installed, entry), { recursive: true });
  }
  // Types and JavaScript as `npm run build` makes them, without re-checking what the type-check checks.
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(root, 'tsconfig.build.json'),
      '--noCheck',
      '--outDir',
      join(installed, 'dist'),
    ],
    { cwd: root, stdio: 'pipe' },
  );
  for (const name of [...Object.keys(manifest.dependencies), 'typescript', '@types/node']) {
    const link = join(project, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), link, 'dir');
  }
  writeFileSync(join(project, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the package holds none of its optional peers as dependencies', () => {
  const optional = Object.keys(manifest.peerDependenciesMeta).filter(
    (name) => manifest.peerDependenciesMeta[name]?.optional,
  );
  expect(optional).toContain('gpt-tokenizer');
  for (const name of optional) expect(Object.keys(manifest.dependencies)).not.toContain(name);
});

test('with skipLibCheck: false and no optional peer, an entry misses only the types of its own peer', () => {
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
  writeFileSync(
    join(project, 'entries.ts'),
    `${specifiers.map((specifier, index) => `import * as entry${index} from '${specifier}';`).join('\n')}\nexport const entries = [${specifiers.map((_, index) => `entry${index}`).join(', ')}];\n`,
  );
  const result = spawnSync(
    process.execPath,
    [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project],
    { cwd: project, encoding: 'utf8' },
  );
  const errors = (result.stdout + result.stderr).split('\n').filter((line) => line.trim() !== '');
  const stray = errors.filter((line) => {
    const match =
      /^node_modules\/toolpact\/dist\/([^/]+)\/[^(]+\.d\.ts\(\d+,\d+\): error TS2307: Cannot find module '([^']+)'/.exec(
        line,
      );
    return !match || !TYPES_FROM_PEER[match[1]!]?.test(match[2]!);
  });
  expect(stray).toEqual([]);
  // The check ran: the entries built on peers did miss them (an empty run would pass the line above).
  expect(errors.length).toBeGreaterThan(0);
}, 120_000);

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

test('the installed CLI loads a TypeScript module on this Node and says its token counts are estimates', () => {
  writeFileSync(
    join(project, 'tools.ts'),
    `import { createTool } from 'toolpact';
interface Args { readonly n: number }
const effects = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const;
export const square = createTool<Args>(
  { name: 'square', description: 'Square a number n; returns n times n.', category: 'read', effects,
    parameters: { type: 'object', properties: { n: { type: 'number', description: 'The number to square.' } }, required: ['n'] } },
  { execute: ({ n }: Args): number => n * n },
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
    },
  );
  expect(schemas.stderr).toContain('Token counts are estimates');
  expect(schemas.stderr).toContain('install gpt-tokenizer');
  expect(schemas.status).toBe(0);
  const call = spawnSync(process.execPath, [cli, 'call', 'tools.ts', 'square', '{"n":7}'], {
    cwd: project,
    encoding: 'utf8',
  });
  expect(JSON.parse(call.stdout)).toMatchObject({ ok: true });
  expect(call.stdout).toContain('49');
});
