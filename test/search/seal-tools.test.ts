import { describe, expect, it } from 'vitest';
import { Registry } from '../../src/index.js';
import { createToolIndex } from '../../src/search/index.js';
import { loadSealDev, loadSealTools, measureRecall, sealTool } from '../support/seal-tools.js';

// The dev split only; Seal-Tools' test splits are held out and never read here. Every fourth dev
// query keeps the test within seconds; `npm run bench -- search` measures all 700.
describe('retrieval on Seal-Tools dev (4,076 tools, every fourth of the 700 queries)', () => {
  const registry = new Registry().register(loadSealTools().map(sealTool));
  const dev = loadSealDev().filter((_, position) => position % 4 === 0);

  it('reaches recall@5 and all-found@10 of 0.9 or more, above the plain-BM25 floor', () => {
    const index = createToolIndex(registry);
    const ours = measureRecall(dev, (query) => index.search(query, { k: 10 }).map((hit) => hit.name));
    const plain = createToolIndex(registry, {
      stopWords: false,
      stem: false,
      clauses: false,
      weights: { name: 1, title: 0, description: 1, parameters: 1, parameterText: 1, enums: 0 },
    });
    const floor = measureRecall(dev, (query) => plain.search(query, { k: 10 }).map((hit) => hit.name));
    expect(index.size).toBe(4_076);
    expect(ours.all.queries).toBe(175);
    expect(ours.all.recallAt5).toBeGreaterThanOrEqual(0.9);
    expect(ours.all.allFoundAt10).toBeGreaterThanOrEqual(0.9);
    expect(ours.all.recallAt5).toBeGreaterThan(floor.all.recallAt5);
    expect(ours.multi.allFoundAt10).toBeGreaterThan(floor.multi.allFoundAt10);
    expect(ours.single.recallAt5).toBeGreaterThanOrEqual(floor.single.recallAt5);
  }, 120_000);
});
