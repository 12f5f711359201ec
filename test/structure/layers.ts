import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { ModuleGraph } from './module-graph.js';

/**
 * The floors of src/, bottom to top. A file may import files of its own folder and of any floor
 * below its own, never one above nor another folder of its own floor. The entries (each `index.ts`
 * that package.json `exports` names, and `src/index.ts`) form their own floor just under the CLI:
 * they are the public surface, and nothing below them imports one.
 */
export const FLOORS: readonly (readonly string[])[] = [
  ['util', 'errors', 'config', 'content'],
  ['contract'],
  ['dispatch'],
  ['define', 'schema'],
  ['typed', 'registry'],
  ['calls', 'policy', 'lint', 'search', 'extract'],
  ['audit', 'sandbox', 'auth'],
  ['mcp'],
  ['gateway', 'store', 'agent', 'integrations'],
  ['otel', 'ai-sdk', 'langchain', 'openai-agents'],
  ['studio'],
  [ENTRIES()],
  ['cli'],
];

function ENTRIES(): string {
  return '(entries)';
}

/** Folders that must not import `mcp` (and so never load the MCP SDK through it), whatever their floor. */
export const KEPT_FROM_MCP: readonly string[] = ['search', 'store', 'integrations', 'otel'];

/** One import that breaks the floors. */
export interface LayerViolation {
  readonly from: string;
  readonly to: string;
  readonly reason: string;
}

/**
 * The entry files of a package: the `.ts` source of each `import` in package.json `exports`
 * (`./dist/x/index.js` is `src/x/index.ts`).
 */
export function entryFiles(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import?: string }>;
  };
  return Object.values(manifest.exports)
    .map((target) => (typeof target === 'string' ? undefined : target.import))
    .filter((target): target is string => target?.startsWith('./dist/') === true)
    .map((target) => join(root, 'src', target.slice('./dist/'.length).replace(/\.js$/, '.ts')))
    .sort();
}

/**
 * Checks every edge of the graph against the floors: the folder of a file under `source` is its
 * first path segment (a file directly in `source` is an entry). Answers the edges that run up, or
 * across a floor, or into `mcp` from a folder kept from it, and the files whose folder has no floor.
 */
export function checkLayers(
  graph: ModuleGraph,
  source: string,
  entries: readonly string[],
  floors: readonly (readonly string[])[] = FLOORS,
  keptFromMcp: readonly string[] = KEPT_FROM_MCP,
): { readonly violations: LayerViolation[]; readonly unplaced: string[]; readonly checked: number } {
  const entrySet = new Set(entries);
  const floorOf = new Map<string, number>();
  floors.forEach((folders, index) => {
    for (const folder of folders) floorOf.set(folder, index);
  });
  const folderOf = (file: string): string => {
    if (entrySet.has(file)) return ENTRIES();
    const parts = relative(source, file).split(sep);
    return parts.length === 1 ? ENTRIES() : parts[0]!;
  };
  const name = (file: string) => relative(source, file).split(sep).join('/');
  const violations: LayerViolation[] = [];
  const unplaced = new Set<string>();
  let checked = 0;
  for (const [file, targets] of graph.edges) {
    const from = folderOf(file);
    const fromFloor = floorOf.get(from);
    if (fromFloor === undefined) unplaced.add(from);
    for (const target of targets) {
      checked++;
      const to = folderOf(target);
      const toFloor = floorOf.get(to);
      if (toFloor === undefined) unplaced.add(to);
      if (fromFloor === undefined || toFloor === undefined) continue;
      const edge = { from: name(file), to: name(target) };
      if (to === 'mcp' && keptFromMcp.includes(from)) {
        violations.push({ ...edge, reason: `${from} must not import mcp` });
      } else if (from === to) {
      } else if (toFloor > fromFloor) {
        violations.push({
          ...edge,
          reason: `${from} (floor ${fromFloor}) imports ${to} (floor ${toFloor}), above it`,
        });
      } else if (toFloor === fromFloor && from !== ENTRIES()) {
        violations.push({
          ...edge,
          reason: `${from} and ${to} share floor ${fromFloor}; one must go below the other`,
        });
      }
    }
  }
  return { violations, unplaced: [...unplaced].sort(), checked };
}

/** A violation as one readable line. */
export function formatViolation(violation: LayerViolation): string {
  return `src/${violation.from} → src/${violation.to}: ${violation.reason}`;
}
