import type { ToolContract } from '../contract/index.js';
import { ToolDefinitionError } from '../errors/index.js';
import { type ContractIndex, createContractIndex, type ToolIndexOptions } from './create-tool-index.js';

/** One ranked tool as a retriever answers it. */
export interface RetrievedTool {
  readonly name: string;
  /** Higher is better; comparable within one answer only. */
  readonly score: number;
}

/**
 * Anything that ranks tools for a request: the lexical index, an embedding model, a hybrid of both.
 * `index` is called with the whole tool set whenever it changes; `search` with a request.
 */
export interface Retriever {
  index(tools: readonly ToolContract[]): void | Promise<void>;
  search(query: string, k: number): readonly RetrievedTool[] | Promise<readonly RetrievedTool[]>;
}

/**
 * The lexical index ({@link createContractIndex}) as a {@link Retriever}.
 *
 * @example
 * const retriever = lexicalRetriever({ weights: { enums: 0 } });
 */
export function lexicalRetriever(
  options: ToolIndexOptions = {},
): Retriever & { readonly index: ContractIndex['sync'] } {
  const index = createContractIndex(options);
  return {
    index: (tools) => index.sync(tools),
    search: (query, k) => index.search(query, { k }).map((hit) => ({ name: hit.name, score: hit.score })),
  };
}

/** Options of {@link embeddingRetriever}. */
export interface EmbeddingRetrieverOptions {
  /** Vectors for texts, one per text in the same order: OpenAI embeddings, a local transformers.js model, … */
  readonly embed: (texts: readonly string[]) => Promise<readonly (readonly number[])[]>;
  /** The text embedded for a tool; by default its name (words split), title and description. */
  readonly text?: (contract: ToolContract) => string;
  /** Texts per `embed` call while indexing (default 64). */
  readonly batchSize?: number;
}

/**
 * A {@link Retriever} over vectors of your embedding model, ranked by cosine similarity. toolpact
 * ships no model and downloads none: `embed` is yours. A tool whose contract did not change is not
 * embedded again.
 *
 * @example
 * const openai = new OpenAI();
 * const semantic = embeddingRetriever({
 *   embed: async (texts) =>
 *     (await openai.embeddings.create({ model: 'text-embedding-3-small', input: [...texts] })).data.map((d) => d.embedding),
 * });
 */
export function embeddingRetriever(options: EmbeddingRetrieverOptions): Retriever {
  if (typeof options?.embed !== 'function') {
    throw new ToolDefinitionError(
      'invalid_option',
      'embeddingRetriever needs an embed function: (texts) => Promise<vectors>.',
    );
  }
  const text = options.text ?? defaultEmbeddingText;
  const batchSize = options.batchSize ?? 64;
  let vectors = new Map<string, { contract: ToolContract; vector: Float64Array }>();
  async function embed(texts: readonly string[]): Promise<Float64Array[]> {
    const answer = await options.embed(texts);
    if (!Array.isArray(answer) || answer.length !== texts.length) {
      throw new TypeError(
        `The embed function returned ${Array.isArray(answer) ? `${answer.length} vectors` : 'no array'} for ${texts.length} texts; return one vector per text, in order.`,
      );
    }
    return answer.map((vector) => normalize(vector));
  }
  return {
    async index(tools) {
      const next = new Map<string, { contract: ToolContract; vector: Float64Array }>();
      const missing: ToolContract[] = [];
      for (const contract of tools) {
        const known = vectors.get(contract.name);
        if (known && known.contract === contract) next.set(contract.name, known);
        else missing.push(contract);
      }
      for (let start = 0; start < missing.length; start += batchSize) {
        const batch = missing.slice(start, start + batchSize);
        const embedded = await embed(batch.map(text));
        for (const [position, contract] of batch.entries()) {
          next.set(contract.name, { contract, vector: embedded[position]! });
        }
      }
      vectors = next;
    },
    async search(query, k) {
      if (vectors.size === 0 || query.trim() === '') return [];
      const [target] = await embed([query]);
      const ranked: RetrievedTool[] = [];
      for (const [name, { vector }] of vectors) ranked.push({ name, score: dot(vector, target!) });
      return ranked.sort((a, b) => b.score - a.score).slice(0, k);
    },
  };
}

function defaultEmbeddingText(contract: ToolContract): string {
  const words = contract.name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_.-]+/g, ' ');
  return [words, contract.title, contract.description].filter(Boolean).join('\n');
}

function normalize(vector: readonly number[]): Float64Array {
  const result = Float64Array.from(vector, (value) => (Number.isFinite(value) ? value : 0));
  let norm = 0;
  for (const value of result) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (let index = 0; index < result.length; index++) result[index]! /= norm;
  return result;
}

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) sum += a[index]! * b[index]!;
  return sum;
}

/** Options of {@link hybridRetriever}. */
export interface HybridRetrieverOptions {
  /** Reciprocal rank fusion's constant: larger flattens the difference between ranks (default 60). */
  readonly rrfK?: number;
  /** How deep each retriever's ranking is read before fusing (default 50). */
  readonly depth?: number;
  /** Each retriever's weight, in order (default 1 each). */
  readonly weights?: readonly number[];
}

/**
 * Several retrievers as one, by reciprocal rank fusion: a tool scores Σ weight / (rrfK + rank) over
 * the rankings it appears in. Ranks, not scores, are fused, so BM25 scores and cosine similarities
 * need no common scale.
 *
 * @example
 * const retriever = hybridRetriever([lexicalRetriever(), embeddingRetriever({ embed })]);
 * const search = withToolSearch(registry, { retriever });
 */
export function hybridRetriever(
  retrievers: readonly Retriever[],
  options: HybridRetrieverOptions = {},
): Retriever {
  if (!Array.isArray(retrievers) || retrievers.length === 0) {
    throw new ToolDefinitionError('invalid_option', 'hybridRetriever needs at least one retriever.');
  }
  const rrfK = options.rrfK ?? 60;
  const depth = options.depth ?? 50;
  const weights = retrievers.map((_, index) => options.weights?.[index] ?? 1);
  if (!(rrfK >= 0) || !(depth >= 1) || weights.some((weight) => !(weight >= 0))) {
    throw new ToolDefinitionError(
      'invalid_option',
      `hybridRetriever received rrfK ${String(rrfK)}, depth ${String(depth)}, weights [${weights.join(', ')}]; give rrfK ≥ 0, depth ≥ 1 and weights ≥ 0.`,
    );
  }
  return {
    async index(tools) {
      await Promise.all(retrievers.map((retriever) => retriever.index(tools)));
    },
    async search(query, k) {
      const rankings: (readonly RetrievedTool[])[] = await Promise.all(
        retrievers.map((retriever) => retriever.search(query, Math.max(k, depth))),
      );
      const fused = new Map<string, number>();
      rankings.forEach((ranking, which) => {
        ranking.slice(0, depth).forEach((hit, position) => {
          fused.set(hit.name, (fused.get(hit.name) ?? 0) + weights[which]! / (rrfK + position + 1));
        });
      });
      return [...fused]
        .map(([name, score]) => ({ name, score }))
        .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1))
        .slice(0, k);
    },
  };
}
