import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type AnyTool, isTool } from '../../src/index.js';

export const PROJECT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES_DIR = join(PROJECT_DIR, 'test', 'fixtures', 'extract');
export const GENERATED = join(FIXTURES_DIR, 'contracts.generated.ts');

/** The fixture sources (one per type or tag family), sorted. */
export function fixtureNames(): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.generated.ts'))
    .map((name) => name.replace(/\.ts$/, ''))
    .sort();
}

/**
 * Loads a module with tsx, as `toolpact` loads tool modules: vitest's own transform does not yet
 * compile standard (TC39) decorators, which tsx (esbuild) does.
 */
export async function loadWithTsx(file: string): Promise<Record<string, unknown>> {
  const { tsImport } = await import('tsx/esm/api');
  return (await tsImport(pathToFileURL(file).href, import.meta.url)) as Record<string, unknown>;
}

/** The tools a fixture module exports (and those of its `…Tools()` factories). */
export function toolsIn(exports: Record<string, unknown>): AnyTool[] {
  const tools: AnyTool[] = [];
  for (const [key, value] of Object.entries(exports)) {
    if (isTool(value)) tools.push(value);
    else if (typeof value === 'function' && /Tools$/.test(key)) tools.push(...(value as () => AnyTool[])());
  }
  return tools;
}

/** A copy of `value` with `at` set to `change.value`, or deleted. */
export function mutate(
  value: unknown,
  at: readonly (string | number)[],
  change: { value?: unknown; delete?: boolean },
) {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const segment of at.slice(0, -1)) node = node[segment] as Record<string | number, unknown>;
  const last = at[at.length - 1]!;
  if (change.delete) delete node[last];
  else node[last] = change.value;
  return copy;
}

/** A module of type-first tools (`tools`) importing `tool` from the source and the generated contracts beside it. */
export function typeFirstSource(tools: string): string {
  return [
    `import { tool } from ${JSON.stringify(join(PROJECT_DIR, 'src', 'index.js'))};`,
    "import contracts from './contracts.generated.js';",
    '',
    tools,
  ].join('\n');
}

/** One type-first tool, `read_file`, with its doc comment. */
export const READ_FILE = `
/**
 * Read one text file.
 *
 * @category read
 * @param path File path relative to the root.
 */
export function read_file(path: string) {
  return path.length;
}
export const readFile = tool(read_file, { contracts });
`;
