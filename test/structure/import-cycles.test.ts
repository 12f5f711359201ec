import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { edgeCount, findCycles, formatCycle, type ModuleGraph, readModuleGraph } from './module-graph.js';

const root = resolve(import.meta.dirname, '../..');

test('no import cycle among the files of src/, type-only imports counted', () => {
  const graph = readModuleGraph(join(root, 'tsconfig.json'), join(root, 'src'));
  // An empty or thinned graph would have no cycles either: src/ has well over two hundred imports.
  expect(graph.files.length).toBeGreaterThan(100);
  expect(edgeCount(graph)).toBeGreaterThan(200);
  expect(graph.unresolved).toEqual([]);
  const cycles = findCycles(graph).map((cycle) => formatCycle(cycle, root));
  expect(cycles, `import cycles in src/:\n${cycles.join('\n')}`).toEqual([]);
});

describe('the cycle finder', () => {
  let folder: string;
  let graph: ModuleGraph;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'toolpact-import-cycles-'));
    const files: Record<string, string> = {
      'package.json': JSON.stringify({ type: 'module' }),
      'tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
        include: ['src'],
      }),
      // The cycle, through type-only imports alone.
      'src/a.ts': `import type { B } from './b.js';\nexport interface A { readonly b?: B }\n`,
      'src/b.ts': `import type { A } from './a.js';\nexport interface B { readonly a?: A }\n`,
      // Every other form of import makes an edge too, none of them a cycle.
      'src/c.ts': `export type { A } from './a.js';\nexport type D = import('./d.js').D;\n`,
      'src/d.ts': `export type D = string;\nexport const load = () => import('./b.js');\n`,
      'src/e.ts': `import './c.js';\nimport * as path from 'node:path';\nexport const join = path.join;\n`,
      'outside.ts': `import type { A } from './src/a.js';\nexport type O = A;\n`,
    };
    for (const [name, text] of Object.entries(files)) {
      await mkdir(dirname(join(folder, name)), { recursive: true });
      await writeFile(join(folder, name), text);
    }
    graph = readModuleGraph(join(folder, 'tsconfig.json'), join(folder, 'src'));
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test('resolves every form of import to the .ts file, and keeps only files under the folder', () => {
    const edges = Object.fromEntries(
      [...graph.edges].map(([file, targets]) => [
        formatCycle([file], folder),
        [...targets].map((target) => formatCycle([target], folder)).sort(),
      ]),
    );
    expect(edges).toEqual({
      'src/a.ts': ['src/b.ts'],
      'src/b.ts': ['src/a.ts'],
      'src/c.ts': ['src/a.ts', 'src/d.ts'],
      'src/d.ts': ['src/b.ts'],
      'src/e.ts': ['src/c.ts'],
    });
    expect(graph.unresolved).toEqual([]);
  });

  test('reports the cycle of two files that import each other with import type', () => {
    expect(findCycles(graph).map((cycle) => formatCycle(cycle, folder))).toEqual([
      'src/a.ts → src/b.ts → src/a.ts',
    ]);
  });

  test('reports a longer cycle, and a file that imports itself, each once', () => {
    const file = (name: string) => join(folder, 'src', name);
    const looped: ModuleGraph = {
      files: [file('x.ts'), file('y.ts'), file('z.ts'), file('self.ts')],
      edges: new Map([
        [file('x.ts'), new Set([file('y.ts')])],
        [file('y.ts'), new Set([file('z.ts')])],
        [file('z.ts'), new Set([file('x.ts')])],
        [file('self.ts'), new Set([file('self.ts')])],
      ]),
      unresolved: [],
    };
    expect(findCycles(looped).map((cycle) => formatCycle(cycle, folder))).toEqual([
      'src/self.ts → src/self.ts',
      'src/x.ts → src/y.ts → src/z.ts → src/x.ts',
    ]);
  });
});
