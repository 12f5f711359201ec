import type { Registry } from '../registry/registry.js';
import type { ToolIndex } from '../search/create-tool-index.js';

/** How a text query was answered: by the `toolpact/search` index, or by plain text filtering. */
export type SearchEngine = 'index' | 'text';

/** The tools a text query found, best first. */
export interface StudioSearchResult {
  readonly engine: SearchEngine;
  readonly names: readonly string[];
}

// The index is loaded with the first query, so a studio that is never searched never builds one.
let searchModule: Promise<typeof import('../search/create-tool-index.js') | undefined> | undefined;
const indexes = new WeakMap<Registry, Promise<ToolIndex | undefined>>();

/**
 * Finds tools by text: with `toolpact/search`'s index when that entry exists (ranked, following the
 * registry as it changes), else every tool whose name, title, description or parameter names hold
 * every word of the query, names first.
 *
 * @example
 * await searchStudioTools(registry, 'read file'); // { engine: 'text', names: ['read_file', 'grep'] }
 */
export async function searchStudioTools(registry: Registry, query: string): Promise<StudioSearchResult> {
  const text = query.trim().slice(0, 500);
  if (text === '') return { engine: 'text', names: registry.list().map((tool) => tool.contract.name) };
  const index = await indexOf(registry);
  if (index) {
    try {
      const names = index.search(text, { k: registry.size }).map((hit) => hit.name);
      return { engine: 'index', names };
    } catch {
      // An index that fails answers as if it were absent.
    }
  }
  return { engine: 'text', names: filterByText(registry, text) };
}

/**
 * True when `toolpact/search` is installed beside the studio.
 *
 * @example
 * const placeholder = (await hasSearchIndex()) ? 'Search tools (index)…' : 'Filter by text…';
 */
export async function hasSearchIndex(): Promise<boolean> {
  return (await loadSearch()) !== undefined;
}

function loadSearch(): Promise<typeof import('../search/create-tool-index.js') | undefined> {
  searchModule ??= import('../search/create-tool-index.js').catch(() => undefined);
  return searchModule;
}

async function indexOf(registry: Registry): Promise<ToolIndex | undefined> {
  const module = await loadSearch();
  if (!module) return undefined;
  let index = indexes.get(registry);
  if (!index) {
    // An index that cannot be built is remembered as absent: the text filter answers instead.
    index = Promise.resolve()
      .then(() => module.createToolIndex(registry))
      .catch(() => undefined);
    indexes.set(registry, index);
  }
  return index;
}

function filterByText(registry: Registry, query: string): string[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const scored: [string, number][] = [];
  for (const tool of registry.list()) {
    const contract = tool.contract;
    const name = `${contract.name} ${contract.title ?? ''}`.toLowerCase();
    const properties = Object.keys((contract.parameters.properties ?? {}) as object).join(' ');
    const haystack = `${name} ${contract.description} ${properties}`.toLowerCase();
    if (!words.every((word) => haystack.includes(word))) continue;
    scored.push([contract.name, words.filter((word) => name.includes(word)).length]);
  }
  return scored.sort((a, b) => b[1] - a[1]).map(([name]) => name);
}
