/**
 * bench/extract: `toolpact gen` on 100 type-first tools across 10 files against ts-json-schema-generator
 * on the same types, and registry start-up with 100 generated contracts against 100 zod-defined tools.
 * Start-up is measured in fresh Node processes (what a server pays once), and warm in this process.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { createGenerator } from 'ts-json-schema-generator';
import * as z from 'zod';
import { extractContracts, renderModule } from '../src/extract/index.js';
import { type AnyTool, defineTool, Registry, tool } from '../src/index.js';
import type { GeneratedContracts } from '../src/typed/index.js';
import { measure, printTable } from './measure.js';

const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FILES = 10;
const PER_FILE = 10;
const ROUNDS = 3;
const EXTRACT_ROUNDS = 3;

function toolName(file: number, index: number): string {
  return `tool_${file}_${index}`;
}

/** One source file of 10 tools, each with an exported parameter interface the peer can read too. */
function sourceFile(file: number): string {
  const lines = [
    `import { tool } from ${JSON.stringify(join(PROJECT, 'src', 'index.js'))};`,
    "import contracts from './contracts.generated.js';",
    '',
  ];
  for (let index = 0; index < PER_FILE; index++) {
    const name = toolName(file, index);
    lines.push(
      `/** A nested range. */`,
      `export interface Range_${file}_${index} {`,
      '  /** First line, from 1. @minimum 1 */',
      '  start: number;',
      '  /** Last line. */',
      '  end?: number;',
      '}',
      `/** The parameters of ${name}. */`,
      `export interface Input_${file}_${index} {`,
      `  /** The file path relative to the root of group ${file}, item ${index}. @minLength 1 */`,
      '  path: string;',
      '  /** How to read it. */',
      "  mode: 'text' | 'lines' | 'bytes';",
      '  /** Lines to read. */',
      `  range?: Range_${file}_${index};`,
      '  /** Labels to attach. @maxItems 10 */',
      '  labels?: string[];',
      '  /** Follow links. */',
      '  follow: boolean;',
      '}',
      '/**',
      ` * Do thing ${index} of group ${file} with a file.`,
      ' *',
      ' * Use it for that one thing; for anything else call another tool.',
      ' *',
      ' * @category read',
      ' */',
      `export function ${name}(input: Input_${file}_${index}) {`,
      '  return input.path;',
      '}',
      `export const t_${file}_${index} = tool(${name}, { contracts });`,
      '',
    );
  }
  return lines.join('\n');
}

/** The same tools defined with zod; self-contained, so a fresh process can run its source text too. */
function zodTools(zod: typeof z, define: typeof defineTool, files: number, perFile: number): AnyTool[] {
  const tools: AnyTool[] = [];
  for (let file = 0; file < files; file++) {
    for (let index = 0; index < perFile; index++) {
      tools.push(
        define({
          name: `tool_${file}_${index}`,
          category: 'read',
          description: `Do thing ${index} of group ${file} with a file.\n\nUse it for that one thing; for anything else call another tool.`,
          input: zod.object({
            path: zod
              .string()
              .min(1)
              .describe(`The file path relative to the root of group ${file}, item ${index}.`),
            mode: zod.enum(['text', 'lines', 'bytes']).describe('How to read it.'),
            range: zod
              .object({
                start: zod.number().min(1).describe('First line, from 1.'),
                end: zod.number().optional().describe('Last line.'),
              })
              .optional()
              .describe('Lines to read.'),
            labels: zod.array(zod.string()).max(10).optional().describe('Labels to attach.'),
            follow: zod.boolean().describe('Follow links.'),
          }),
          execute: (input) => input.path,
        }),
      );
    }
  }
  return tools;
}

// The same factory as source text, for the fresh process (a function's own toString carries the
// transpiler's helpers).
const ZOD_TOOLS_SOURCE = `(zod, define, files, perFile) => {
  const tools = [];
  for (let file = 0; file < files; file++) {
    for (let index = 0; index < perFile; index++) {
      tools.push(define({
        name: \`tool_\${file}_\${index}\`,
        category: 'read',
        description: \`Do thing \${index} of group \${file} with a file.\\n\\nUse it for that one thing; for anything else call another tool.\`,
        input: zod.object({
          path: zod.string().min(1).describe(\`The file path relative to the root of group \${file}, item \${index}.\`),
          mode: zod.enum(['text', 'lines', 'bytes']).describe('How to read it.'),
          range: zod.object({
            start: zod.number().min(1).describe('First line, from 1.'),
            end: zod.number().optional().describe('Last line.'),
          }).optional().describe('Lines to read.'),
          labels: zod.array(zod.string()).max(10).optional().describe('Labels to attach.'),
          follow: zod.boolean().describe('Follow links.'),
        }),
        execute: (input) => input.path,
      }));
    }
  }
  return tools;
}`;

function typedTools(contracts: GeneratedContracts): AnyTool[] {
  const tools: AnyTool[] = [];
  for (const name of Object.keys(contracts.tools)) {
    // A function with the declared name and one parameter, as the source declares it.
    const fn = { [name]: (input: { path: string }) => input.path }[name]!;
    tools.push(tool(fn, { contracts }));
  }
  return tools;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timeMs(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

/** Milliseconds a fresh Node process spends in `script` (timed inside it, so process start is not counted). */
function childMs(script: string, cwd: string): number {
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd,
    encoding: 'utf8',
    // The generated standalone validators require ajv's runtime from a temporary folder.
    env: { ...process.env, NODE_PATH: join(PROJECT, 'node_modules') },
  });
  return Number(output.trim().split('\n').pop());
}

export default async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'toolpact-bench-extract-'));
  try {
    mkdirSync(join(dir, 'src'));
    const files: string[] = [];
    for (let file = 0; file < FILES; file++) {
      const path = join(dir, 'src', `tools-${file}.ts`);
      writeFileSync(path, sourceFile(file));
      files.push(path);
    }
    const tsconfig = join(dir, 'tsconfig.json');
    writeFileSync(
      tsconfig,
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          skipLibCheck: true,
          types: [],
        },
        include: ['src/*.ts'],
      }),
    );
    const output = join(dir, 'src', 'contracts.generated.ts');

    // 1. Extraction: toolpact gen against ts-json-schema-generator, each building its own program.
    let contracts: GeneratedContracts | undefined;
    const ours: number[] = [];
    const peer: number[] = [];
    let peerSchemas = 0;
    for (let round = 0; round < EXTRACT_ROUNDS; round++) {
      ours.push(
        timeMs(() => {
          const result = extractContracts({ project: tsconfig, output });
          if (!result.ok) throw new Error(`extraction failed: ${result.diagnostics[0]?.message}`);
          contracts = result.contracts;
          writeFileSync(output, renderModule(result.contracts, result.typesFrom));
        }),
      );
      peer.push(
        timeMs(() => {
          const schema = createGenerator({
            path: join(dir, 'src', 'tools-*.ts'),
            tsconfig,
            type: '*',
            skipTypeCheck: true,
            expose: 'export',
          }).createSchema('*');
          peerSchemas = Object.keys(schema.definitions ?? {}).length;
        }),
      );
    }
    const toolCount = Object.keys(contracts!.tools).length;
    process.stdout.write(
      `extraction (${toolCount} tools in ${FILES} files; peer: ${peerSchemas} definitions, median of ${EXTRACT_ROUNDS}):\n` +
        `  toolpact gen               ${median(ours).toFixed(0).padStart(6)} ms\n` +
        `  ts-json-schema-generator   ${median(peer).toFixed(0).padStart(6)} ms\n` +
        `  ratio gen / peer           ${(median(ours) / median(peer)).toFixed(2)}x\n`,
    );

    // 2. Start-up in fresh processes: load the definitions, make the tools, register them.
    const typedModule = join(dir, 'typed-start.mts');
    writeFileSync(join(dir, 'contracts.mjs'), `export default ${JSON.stringify(contracts)};\n`);
    writeFileSync(
      typedModule,
      [
        `import { Registry, tool } from ${JSON.stringify(pathToFileURL(join(PROJECT, 'src', 'index.ts')).href)};`,
        "import contracts from './contracts.mjs';",
        'const tools = Object.keys(contracts.tools).map((name) => tool({ [name]: (input) => input.path }[name], { contracts }));',
        'export const registry = new Registry().register(tools);',
        'registry.schemas();',
      ].join('\n'),
    );
    const zodModule = join(dir, 'zod-start.mts');
    writeFileSync(
      zodModule,
      [
        `import * as z from ${JSON.stringify(import.meta.resolve('zod'))};`,
        `import { defineTool, Registry } from ${JSON.stringify(pathToFileURL(join(PROJECT, 'src', 'index.ts')).href)};`,
        `const zodTools = ${ZOD_TOOLS_SOURCE};`,
        `export const registry = new Registry().register(zodTools(z, defineTool, ${FILES}, ${PER_FILE}));`,
        'registry.schemas();',
      ].join('\n'),
    );
    const timed = (module: string) =>
      `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(module).href)}); console.log(performance.now() - t);`;
    const coldTyped: number[] = [];
    const coldZod: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      coldTyped.push(childMs(timed(typedModule), PROJECT));
      coldZod.push(childMs(timed(zodModule), PROJECT));
    }
    process.stdout.write(
      `\nregistry start-up, fresh process (import, make ${toolCount} tools, register; median of ${ROUNDS}):\n` +
        `  generated contracts        ${median(coldTyped).toFixed(1).padStart(7)} ms\n` +
        `  zod-defined tools          ${median(coldZod).toFixed(1).padStart(7)} ms\n` +
        `  ratio generated / zod      ${(median(coldTyped) / median(coldZod)).toFixed(2)}x\n`,
    );

    // 3. Warm, in this process: make and register the tools, and make them and call each once
    //    (the first call compiles the ajv validator of a type-first tool; zod validates directly).
    const generated = contracts!;
    const sample = { path: 'a.txt', mode: 'text', follow: false };
    const copies = Array.from({ length: 20 }, () => structuredClone(generated));
    const warm = [
      await measure(
        'generated: make + register',
        () => new Registry().register(typedTools(generated)).schemas(),
        {
          iterations: 20,
          warmup: 5,
        },
      ),
      await measure(
        'zod: make + register',
        () => new Registry().register(zodTools(z, defineTool, FILES, PER_FILE)).schemas(),
        {
          iterations: 20,
          warmup: 5,
        },
      ),
      // Fresh contract objects each time, so ajv compiles every validator instead of finding it cached.
      await measure(
        'generated: + first call of each',
        async () => {
          const registry = new Registry().register(typedTools(copies.pop() ?? structuredClone(generated)));
          for (const name of Object.keys(generated.tools)) await registry.call(name, sample);
        },
        { iterations: 3, warmup: 1, rounds: 5 },
      ),
      await measure(
        'zod: + first call of each',
        async () => {
          const registry = new Registry().register(zodTools(z, defineTool, FILES, PER_FILE));
          for (const name of Object.keys(generated.tools)) await registry.call(name, sample);
        },
        { iterations: 3, warmup: 1, rounds: 5 },
      ),
    ];
    process.stdout.write('\nwarm, in process:\n');
    printTable(warm, warm[1]!);

    // 4. Would ajv standalone code in the generated module start faster than compiling on first call?
    const standaloneFile = join(dir, 'validators.cjs');
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const addFormats = (await import('ajv-formats')).default as unknown as (
      ajv: InstanceType<typeof Ajv2020>,
    ) => void;
    const ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults: true, code: { source: true } });
    addFormats(ajv);
    const exported: Record<string, string> = {};
    for (const [name, entry] of Object.entries(generated.tools)) {
      ajv.addSchema(entry.contract.parameters as object, name);
      exported[name] = name;
    }
    writeFileSync(
      standaloneFile,
      (standaloneCode as unknown as typeof standaloneCode.default).call(null, ajv, exported),
    );
    const schemasFile = join(dir, 'schemas.mjs');
    writeFileSync(
      schemasFile,
      `export default ${JSON.stringify(Object.values(generated.tools).map((entry) => entry.contract.parameters))};`,
    );
    const loadStandalone = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(standaloneFile).href)}); console.log(performance.now() - t);`;
    const compileAll = [
      'const t = performance.now();',
      "const { Ajv2020 } = await import('ajv/dist/2020.js');",
      "const addFormats = (await import('ajv-formats')).default;",
      `const schemas = (await import(${JSON.stringify(pathToFileURL(schemasFile).href)})).default;`,
      'const ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults: true }); addFormats(ajv);',
      'for (const schema of schemas) ajv.compile(schema);',
      'console.log(performance.now() - t);',
    ].join('\n');
    const standalone: number[] = [];
    const compiled: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      standalone.push(childMs(loadStandalone, PROJECT));
      compiled.push(childMs(compileAll, PROJECT));
    }
    process.stdout.write(
      `\n${toolCount} validators in a fresh process (median of ${ROUNDS}):\n` +
        `  load ajv standalone code   ${median(standalone).toFixed(1).padStart(7)} ms\n` +
        `  load ajv, compile all      ${median(compiled).toFixed(1).padStart(7)} ms\n` +
        `  ratio standalone / compile ${(median(standalone) / median(compiled)).toFixed(2)}x\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
