import type { ToolCategory, ToolContract } from '../contract/index.js';
import { ToolDefinitionError } from '../errors/index.js';
import type { Registry } from '../registry/registry.js';
import { type AnalyzeOptions, analyze } from './analyze.js';
import { queryClauses } from './query-clauses.js';
import { type TermHit, TermIndex } from './term-index.js';
import { TOOL_FIELDS, type ToolField, toolDocument } from './tool-document.js';

/** Options of {@link createToolIndex}. */
export interface ToolIndexOptions extends AnalyzeOptions {
  /** Weight of each field in the score; a field weighed 0 is not searched. Defaults: {@link DEFAULT_FIELD_WEIGHTS}. */
  readonly weights?: Partial<Record<ToolField, number>>;
  /** Search each step of a multi-step request on its own too, and merge the rankings; default true. */
  readonly clauses?: boolean;
  /** Tool names left out of the index (`withToolSearch` leaves out `search_tools` itself). */
  readonly exclude?: readonly string[];
  /** BM25 parameters; defaults k1 1.2, b 0.7. */
  readonly bm25?: { readonly k1?: number; readonly b?: number };
}

/**
 * Field weights measured on Seal-Tools' dev queries: the name says what the tool is for, the
 * description how, and parameter text adds the nouns a request mentions.
 *
 * @example
 * createToolIndex(registry, { weights: { ...DEFAULT_FIELD_WEIGHTS, enums: 0 } });
 */
export const DEFAULT_FIELD_WEIGHTS: Readonly<Record<ToolField, number>> = Object.freeze({
  name: 3,
  title: 2,
  description: 2,
  parameters: 1,
  parameterText: 0.5,
  enums: 0.5,
});

/** Options of one search. */
export interface SearchOptions {
  /** How many tools at most (default 10). */
  readonly k?: number;
  /** Only tools of these categories. */
  readonly categories?: readonly ToolCategory[];
  /** Only tools for which this answers true. */
  readonly filter?: (contract: ToolContract) => boolean;
}

/** One ranked tool. */
export interface ToolHit {
  readonly name: string;
  /** Higher is better; comparable within one search only. */
  readonly score: number;
  /** The fields that matched a query term, in {@link TOOL_FIELDS} order. */
  readonly fields: readonly ToolField[];
  /** The query terms (after analysis) that matched. */
  readonly terms: readonly string[];
  readonly contract: ToolContract;
}

/** A search index over a registry's tools. */
export interface ToolIndex {
  /** The best tools for a request, best first. */
  search(query: string, options?: SearchOptions): ToolHit[];
  /** How many tools are indexed. */
  readonly size: number;
  /** Stops following the registry's changes. */
  close(): void;
}

const DEFAULT_K = 10;
// Each step's ranking is cut here before merging: deeper ranks never reach a top 10 anyway.
const CLAUSE_DEPTH = 30;
// What a second ranking's agreement adds to a tool's best scaled score.
const AGREEMENT = 0.1;

/**
 * Indexes every tool of a registry by name (split at `_ . -` and camelCase), title, description,
 * parameter names, parameter descriptions and enum values, each with its weight, and keeps the index
 * current as tools are registered and removed. Scoring is BM25 over a flat inverted index; a request
 * of several steps is searched whole and step by step, the rankings merged.
 *
 * @example
 * const index = createToolIndex(registry);
 * index.search('what is the weather in Paris', { k: 5 });
 * // [{ name: 'get_weather', score: 12.3, fields: ['name', 'description'], terms: ['weather'], … }]
 */
export function createToolIndex(registry: Registry, options: ToolIndexOptions = {}): ToolIndex {
  const index = createContractIndex(options);
  const sync = () => index.sync(registry.schemas());
  sync();
  const unsubscribe = registry.onChange(sync);
  return {
    get size() {
      return index.size;
    },
    search: index.search,
    close: unsubscribe,
  };
}

/** The index behind {@link createToolIndex}, fed contracts instead of following a registry. */
export interface ContractIndex {
  /** Makes the index hold exactly these contracts (unchanged ones are not indexed again). */
  sync(contracts: readonly ToolContract[]): void;
  search(query: string, options?: SearchOptions): ToolHit[];
  readonly size: number;
}

/**
 * An index over contracts given to it, for a retriever or a caller without a registry.
 *
 * @example
 * const index = createContractIndex();
 * index.sync(registry.schemas());
 * index.search('resize an image');
 */
export function createContractIndex(options: ToolIndexOptions = {}): ContractIndex {
  const weights = { ...DEFAULT_FIELD_WEIGHTS, ...options.weights };
  for (const field of TOOL_FIELDS) {
    const weight = weights[field];
    if (!(Number.isFinite(weight) && weight >= 0)) {
      throw new ToolDefinitionError(
        'invalid_option',
        `The weight of the field "${field}" is ${String(weight)}; give a number of 0 or more (0 leaves the field out).`,
      );
    }
  }
  const fields = TOOL_FIELDS.filter((field) => weights[field] > 0);
  if (fields.length === 0) {
    throw new ToolDefinitionError(
      'invalid_option',
      'Every field weight is 0; give at least one field a weight.',
    );
  }
  const analyzeOptions: AnalyzeOptions = { stopWords: options.stopWords, stem: options.stem };
  const tokenize = (text: string): string[] => analyze(text, analyzeOptions);
  const excluded = new Set(options.exclude ?? []);
  const useClauses = options.clauses !== false;
  const bm25 = { k1: options.bm25?.k1 ?? 1.2, b: options.bm25?.b ?? 0.7 };

  const engine = new TermIndex(
    fields.length,
    fields.map((field) => weights[field]),
    bm25,
  );
  /** The indexed contract of each document id, and the id of each indexed name. */
  const contracts = new Map<number, ToolContract>();
  const ids = new Map<string, number>();
  let nextId = 0;

  function sync(list: readonly ToolContract[]): void {
    const current = new Map<string, ToolContract>();
    for (const contract of list) if (!excluded.has(contract.name)) current.set(contract.name, contract);
    for (const [name, id] of ids) {
      if (current.get(name) !== contracts.get(id)) {
        engine.remove(id);
        contracts.delete(id);
        ids.delete(name);
      }
    }
    for (const [name, contract] of current) {
      if (ids.has(name)) continue;
      const id = nextId++;
      ids.set(name, id);
      contracts.set(id, contract);
      const document = toolDocument(id, contract);
      engine.add(
        id,
        fields.map((field) => tokenize(document[field])),
      );
    }
  }

  return {
    get size() {
      return contracts.size;
    },
    sync,
    search(query: string, searchOptions: SearchOptions = {}): ToolHit[] {
      const k = searchOptions.k ?? DEFAULT_K;
      if (!(Number.isInteger(k) && k >= 1)) {
        throw new ToolDefinitionError(
          'invalid_option',
          `k is ${String(k)}; give a whole number of tools, at least 1.`,
        );
      }
      if (typeof query !== 'string' || query.trim() === '') return [];
      const categories = searchOptions.categories ? new Set(searchOptions.categories) : undefined;
      const accept = searchOptions.filter;
      const filter =
        categories || accept
          ? (id: number) => {
              const contract = contracts.get(id);
              if (!contract) return false;
              if (categories && !categories.has(contract.category)) return false;
              return accept ? safely(accept, contract) : true;
            }
          : undefined;
      const steps = useClauses ? queryClauses(query) : [];
      const queries = steps.length > 1 ? [query, ...steps] : [query];
      const tokens = queries.map(tokenize);
      const rankings = engine.rank(tokens, queries.length > 1 ? CLAUSE_DEPTH : k, filter);
      return merge(rankings, k).map(({ id, score, sources }) => {
        const contract = contracts.get(id)!;
        const terms = new Set<string>();
        let mask = 0;
        for (const source of sources) {
          const match = engine.matches(id, tokens[source]!);
          for (const term of match.terms) terms.add(term);
          mask |= match.fields;
        }
        return {
          name: contract.name,
          score,
          fields: TOOL_FIELDS.filter((field) => {
            const position = fields.indexOf(field);
            return position >= 0 && (mask & (1 << position)) !== 0;
          }),
          terms: [...terms],
          contract,
        };
      });
    },
  };
}

/**
 * One ranking from several. A lone ranking keeps its BM25 scores. Several (the whole request and each
 * of its steps) are merged on scores scaled to each ranking's best, so every step's best tool scores 1
 * whatever the length of the step; a tool keeps its best scaled score plus a tenth of each other one, so
 * agreement between steps breaks ties without letting a tool that is vaguely right everywhere outrank a
 * step's clear answer. (Merging by rank alone, reciprocal rank fusion, lost 0.1 to 0.2 of recall@5 on
 * Seal-Tools' dev queries: a step's fifth-best tool ranked as high as another's best.)
 */
function merge(rankings: readonly TermHit[][], k: number): Fused[] {
  if (rankings.length === 1) {
    return rankings[0]!.slice(0, k).map(({ id, score }) => ({ id, score, sources: [0] }));
  }
  const fused = new Map<number, Fused>();
  rankings.forEach((ranking, source) => {
    const best = ranking[0]?.score ?? 1;
    for (const { id, score } of ranking.slice(0, CLAUSE_DEPTH)) {
      const scaled = score / best;
      const entry = fused.get(id);
      if (!entry) {
        fused.set(id, { id, score: scaled, sources: [source] });
        continue;
      }
      entry.score = Math.max(entry.score, scaled) + AGREEMENT * Math.min(entry.score, scaled);
      entry.sources.push(source);
    }
  });
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, k);
}

/** A tool of the merged ranking, with the rankings (by position) it came from. */
interface Fused {
  readonly id: number;
  score: number;
  readonly sources: number[];
}

function safely(filter: (contract: ToolContract) => boolean, contract: ToolContract): boolean {
  try {
    return filter(contract) === true;
  } catch {
    return false;
  }
}
