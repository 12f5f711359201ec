import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkLayers, entryFiles, FLOORS, formatViolation } from './layers.js';
import { edgeCount, readModuleGraph } from './module-graph.js';

const root = resolve(import.meta.dirname, '../..');

test('every import in src/ points down the floors, type-only imports counted, and none reaches mcp from search, store, integrations or otel', () => {
  const graph = readModuleGraph(join(root, 'tsconfig.json'), join(root, 'src'));
  const entries = entryFiles(root);
  expect(entries).toHaveLength(16);
  const { violations, unplaced, checked } = checkLayers(graph, join(root, 'src'), entries);
  expect(unplaced, 'folders of src/ that FLOORS does not place').toEqual([]);
  expect(checked).toBe(edgeCount(graph));
  expect(checked).toBeGreaterThan(1000);
  const lines = violations.map(formatViolation);
  expect(lines, `imports against the floors:\n${lines.join('\n')}`).toEqual([]);
});

describe('the floor check', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'toolpact-layers-'));
    const files: Record<string, string> = {
      'package.json': JSON.stringify({
        type: 'module',
        exports: { '.': { import: './dist/index.js' }, './store': { import: './dist/store/index.js' } },
      }),
      'tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
        include: ['src'],
      }),
      // Up the floors through a type-only import: contract may not know the registry.
      'src/contract/tool.ts': `import type { Registry } from '../registry/registry.js';\nexport type T = Registry;\n`,
      'src/registry/registry.ts': `import type { T } from '../contract/tool.js';\nexport interface Registry { t?: T }\n`,
      // Across one floor: define and schema share a floor.
      'src/schema/format.ts': `export type { Tool } from '../define/tool.js';\n`,
      'src/define/tool.ts': `export type Tool = string;\n`,
      // Down the floors, but into mcp from store.
      'src/mcp/context.ts': `export type Context = string;\n`,
      'src/store/store.ts': `export type Context = import('../mcp/context.js').Context;\n`,
      // Into an entry from below it.
      'src/store/index.ts': `export type { Context } from './store.js';\n`,
      'src/mcp/uses-entry.ts': `export const load = () => import('../store/index.js');\n`,
      // An entry importing down is fine, and so is the root entry.
      'src/index.ts': `export type { Registry } from './registry/registry.js';\n`,
      'src/nowhere/file.ts': `export const x = 1;\n`,
    };
    for (const [name, text] of Object.entries(files)) {
      await mkdir(dirname(join(folder, name)), { recursive: true });
      await writeFile(join(folder, name), text);
    }
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test('reports an upward type import, a sideways import, mcp from store, an import of an entry, and an unplaced folder', () => {
    const graph = readModuleGraph(join(folder, 'tsconfig.json'), join(folder, 'src'));
    const result = checkLayers(graph, join(folder, 'src'), entryFiles(folder), FLOORS);
    expect(result.violations.map(formatViolation).sort()).toEqual([
      'src/contract/tool.ts → src/registry/registry.ts: contract (floor 1) imports registry (floor 4), above it',
      'src/mcp/uses-entry.ts → src/store/index.ts: mcp (floor 7) imports (entries) (floor 11), above it',
      'src/schema/format.ts → src/define/tool.ts: schema and define share floor 3; one must go below the other',
      'src/store/store.ts → src/mcp/context.ts: store must not import mcp',
    ]);
    expect(result.unplaced).toEqual(['nowhere']);
  });
});
