/**
 * `npm run bench -- search`: tool retrieval on Seal-Tools (test/corpora/seal-tools).
 *
 * 1. Recall on the 700 dev queries over all 4,076 tools: recall@5 and @10 over all gold tools, the
 *    share of queries whose every gold tool is in the top 10, for single-tool and multi-tool queries
 *    apart. The first row is the plain-BM25 floor, reproduced in this run with the same index
 *    on plain settings: name (camelCase and `_ . -` split), description, parameter names
 *    and parameter descriptions, every field weighed 1, no stop-words, no stemming, the query searched
 *    whole. Each next row adds one step of the default index.
 * 2. Speed and memory on 10,000 tools (Seal-Tools' tools, repeated under new names), default index
 *    beside the plain floor: time to index, median time of a dev query, heap per indexed tool.
 * 3. Tokens of one request for the workspace tools plus 500 Seal-Tools tools: everything, against
 *    withToolSearch with the workspace tools always loaded (before any search, and with 20 loaded).
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import MiniSearch from 'minisearch';
import workspace from '../examples/workspace/index.js';
import type { ToolContract } from '../src/index.js';
import { Registry } from '../src/index.js';
import { tokenReport } from '../src/schema/index.js';
import { createContractIndex, type ToolIndexOptions, withToolSearch } from '../src/search/index.js';
import {
  loadSealDev,
  loadSealTools,
  measureRecall,
  type RecallRow,
  sealTool,
} from '../test/support/seal-tools.js';
import { printRows } from './measure.js';

const PLAIN: ToolIndexOptions = {
  stopWords: false,
  stem: false,
  clauses: false,
  weights: { name: 1, title: 0, description: 1, parameters: 1, parameterText: 1, enums: 0 },
};
const STEPS: readonly [string, ToolIndexOptions][] = [
  ['plain BM25 (floor)', PLAIN],
  ['+ stop-words, stemming', { ...PLAIN, stopWords: true, stem: true }],
  ['+ field weights', { clauses: false }],
  ['+ request split into steps (default)', {}],
];

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export default async function run(): Promise<void> {
  const sealTools = loadSealTools().map(sealTool);
  const contracts = new Registry().register(sealTools).schemas();
  const dev = loadSealDev();

  process.stdout.write(`Recall on Seal-Tools dev (${dev.length} queries, ${contracts.length} tools):\n`);
  const header = [
    'index',
    'r@5',
    'r@10',
    'all@10',
    'single r@5',
    'single all@10',
    'multi r@5',
    'multi all@10',
  ];
  const rows: string[][] = [];
  for (const [label, options] of STEPS) {
    const index = createContractIndex(options);
    index.sync(contracts);
    const recall = measureRecall(dev, (query) => index.search(query, { k: 10 }).map((hit) => hit.name));
    const cells = (row: RecallRow) =>
      [row.recallAt5, row.recallAt10, row.allFoundAt10].map((value) => value.toFixed(3));
    const [r5, r10, all10] = cells(recall.all);
    rows.push([
      label,
      r5!,
      r10!,
      all10!,
      cells(recall.single)[0]!,
      cells(recall.single)[2]!,
      cells(recall.multi)[0]!,
      cells(recall.multi)[2]!,
    ]);
  }
  const peer = miniSearchPeer(contracts);
  const peerRecall = measureRecall(dev, peer);
  const peerCells = (row: RecallRow) =>
    [row.recallAt5, row.recallAt10, row.allFoundAt10].map((value) => value.toFixed(3));
  rows.unshift([
    'peer: MiniSearch, plain BM25, one text field',
    ...peerCells(peerRecall.all),
    peerCells(peerRecall.single)[0]!,
    peerCells(peerRecall.single)[2]!,
    peerCells(peerRecall.multi)[0]!,
    peerCells(peerRecall.multi)[2]!,
  ]);
  printRows(header, rows);

  const large = tenThousand(contracts);
  process.stdout.write(
    `\nSpeed and memory on ${large.length} tools (median of 5 builds; ${dev.length} dev queries):\n`,
  );
  const speed: string[][] = [];
  for (const [label, options] of [STEPS[0]!, STEPS[3]!] as const) {
    const builds: number[] = [];
    let bytesPerTool = 0;
    for (let round = 0; round < 5; round++) {
      gc();
      const before = process.memoryUsage().heapUsed;
      const started = performance.now();
      const index = createContractIndex(options);
      index.sync(large);
      builds.push(performance.now() - started);
      gc();
      bytesPerTool = (process.memoryUsage().heapUsed - before) / large.length;
      if (round === 4) {
        for (const query of dev.slice(0, 50)) index.search(query.query);
        const times = dev.map((query) => {
          const start = performance.now();
          index.search(query.query, { k: 10 });
          return performance.now() - start;
        });
        speed.push([
          label,
          `${median(builds).toFixed(0)} ms`,
          `${median(times).toFixed(3)} ms`,
          `${quantile(times, 0.9).toFixed(3)} ms`,
          `${(bytesPerTool / 1024).toFixed(1)} KiB`,
        ]);
      }
    }
  }
  {
    const builds: number[] = [];
    let bytesPerTool = 0;
    let rank: ((query: string) => readonly string[]) | undefined;
    for (let round = 0; round < 5; round++) {
      rank = undefined;
      gc();
      const before = process.memoryUsage().heapUsed;
      const started = performance.now();
      rank = miniSearchPeer(large);
      builds.push(performance.now() - started);
      gc();
      bytesPerTool = (process.memoryUsage().heapUsed - before) / large.length;
    }
    for (const query of dev.slice(0, 50)) rank!(query.query);
    const times = dev.map((query) => {
      const start = performance.now();
      rank!(query.query);
      return performance.now() - start;
    });
    speed.unshift([
      'peer: MiniSearch, plain BM25',
      `${median(builds).toFixed(0)} ms`,
      `${median(times).toFixed(3)} ms`,
      `${quantile(times, 0.9).toFixed(3)} ms`,
      `${(bytesPerTool / 1024).toFixed(1)} KiB`,
    ]);
  }
  printRows(['index', 'index 10,000', 'query median', 'query p90', 'heap per tool'], speed);

  const mixed = new Registry().register(workspace.list(), sealTools.slice(0, 500));
  const always = workspace.list().map((tool) => tool.contract.name);
  const search = withToolSearch(mixed, { alwaysLoaded: always, maxLoaded: 20 });
  const before = search.schemas();
  search.load(
    mixed
      .list()
      .slice(always.length, always.length + 20)
      .map((tool) => tool.contract.name),
  );
  const loaded = search.schemas();
  const all = mixed.schemas().filter((contract) => contract.name !== 'search_tools');
  process.stdout.write(
    `\nTokens per request (o200k_base over the tools JSON), ${always.length} workspace tools + 500 Seal-Tools tools:\n`,
  );
  const formats = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const;
  printRows(
    [
      'format',
      `all ${all.length} tools`,
      `search, ${before.length} sent`,
      'saved',
      `search, ${loaded.length} sent`,
      'saved',
    ],
    formats.map((format) => {
      const full = tokenReport(all, format).total;
      const first = tokenReport(before, format).total;
      const bounded = tokenReport(loaded, format).total;
      return [
        format,
        String(full),
        String(first),
        percent(first, full),
        String(bounded),
        percent(bounded, full),
      ];
    }),
  );
}

/**
 * The peer a user would reach for: MiniSearch's BM25 over one text field holding the name (camelCase
 * and `_ . -` split), the description, and the parameters' names and descriptions; no field weights,
 * no stop-words, no stemming, the request searched whole. Answers the top 10 names.
 */
function miniSearchPeer(contracts: readonly ToolContract[]): (query: string) => readonly string[] {
  const split = (identifier: string) =>
    identifier.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_.-]+/g, ' ');
  const engine = new MiniSearch<{ id: number; name: string; text: string }>({
    fields: ['text'],
    storeFields: ['name'],
  });
  engine.addAll(
    contracts.map((contract, id) => {
      const properties = Object.entries(
        (contract.parameters.properties ?? {}) as Record<string, { description?: string }>,
      );
      const parameters = properties.map(([name, schema]) => `${split(name)} ${schema.description ?? ''}`);
      return {
        id,
        name: contract.name,
        text: [split(contract.name), contract.description, ...parameters].join(' '),
      };
    }),
  );
  return (query) =>
    engine
      .search(query)
      .slice(0, 10)
      .map((hit) => hit.name as string);
}

/** 10,000 contracts: the corpus, then again under new names, until there are enough. */
function tenThousand(contracts: readonly ToolContract[]): ToolContract[] {
  const result: ToolContract[] = [];
  for (let index = 0; result.length < 10_000; index++) {
    const contract = contracts[index % contracts.length]!;
    const round = Math.floor(index / contracts.length);
    result.push(round === 0 ? contract : { ...contract, name: `${contract.name}_${round}` });
  }
  return result;
}

function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function percent(part: number, whole: number): string {
  return `${Math.round((1 - part / whole) * 100)}%`;
}
