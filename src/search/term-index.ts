/**
 * The inverted index behind the tool index: per term and field, the documents holding it and how often,
 * in flat arrays; per document, the length of each field. Scoring is BM25 summed over a query's terms,
 * times the number of distinct query terms a document matched (so a tool that answers more of a request
 * ranks above one that answers a single word of it many times over). A query's terms are scored once
 * each and the request's rankings (whole and per step) are summed from those scores, into arrays reused
 * from one query to the next: a long request costs one pass over the postings of its distinct terms.
 */

/** BM25's saturation (`k1`) and length normalisation (`b`). */
export interface Bm25 {
  readonly k1: number;
  readonly b: number;
}

/** One document of a ranking: its id and its score. */
export interface TermHit {
  readonly id: number;
  readonly score: number;
}

/** What of a query one document matched. */
export interface TermMatch {
  /** The matched query terms, in query order. */
  readonly terms: readonly string[];
  /** Bit `i` set when field `i` matched one of `terms`. */
  readonly fields: number;
}

interface Posting {
  readonly docs: number[];
  readonly counts: number[];
}

/** What one term adds to each document holding it, summed over the fields. */
interface Contribution {
  readonly docs: Int32Array;
  readonly scores: Float64Array;
}

/**
 * An index of documents given as one list of terms per field, searched with lists of terms.
 *
 * @example
 * const index = new TermIndex(2, [3, 1], { k1: 1.2, b: 0.7 });
 * index.add(0, [['weather'], ['city', 'weather']]);
 * index.rank([['weather', 'city']], 10); // [[{ id: 0, score: … }]]
 * index.matches(0, ['weather', 'city']); // { terms: ['weather', 'city'], fields: 3 }
 */
export class TermIndex {
  /** Per term, one posting per field (undefined where the field never holds the term). */
  private readonly postings = new Map<string, (Posting | undefined)[]>();
  /** Per document id, its distinct terms per field (to remove it) and its field lengths. */
  private readonly documents = new Map<number, { terms: string[][]; lengths: number[] }>();
  private readonly totalLength: number[];
  private scores = new Float64Array(0);
  private matched = new Int32Array(0);
  private masks = new Int32Array(0);
  private largestId = -1;
  /** Per field, the length of that field in each document, by id. */
  private readonly lengths: number[][];
  /** Each term's contribution as last computed; emptied whenever a document comes or goes. */
  private readonly contributions = new Map<string, Contribution>();

  constructor(
    private readonly fieldCount: number,
    private readonly weights: readonly number[],
    private readonly bm25: Bm25,
  ) {
    this.totalLength = new Array<number>(fieldCount).fill(0);
    this.lengths = Array.from({ length: fieldCount }, () => []);
  }

  /** How many documents are indexed. */
  get size(): number {
    return this.documents.size;
  }

  /** Indexes a document: `fields[i]` is the term list of field `i`. Ids are whole numbers, each used once. */
  add(id: number, fields: readonly (readonly string[])[]): void {
    const terms: string[][] = [];
    const lengths: number[] = [];
    for (let field = 0; field < this.fieldCount; field++) {
      const counts = new Map<string, number>();
      for (const term of fields[field] ?? []) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const [term, count] of counts) {
        let byField = this.postings.get(term);
        if (!byField) {
          byField = new Array(this.fieldCount);
          this.postings.set(term, byField);
        }
        let posting = byField[field];
        if (!posting) {
          posting = { docs: [], counts: [] };
          byField[field] = posting;
        }
        posting.docs.push(id);
        posting.counts.push(count);
      }
      terms.push([...counts.keys()]);
      lengths.push(counts.size);
      this.lengths[field]![id] = counts.size;
      this.totalLength[field]! += counts.size;
    }
    this.documents.set(id, { terms, lengths });
    this.contributions.clear();
    this.largestId = Math.max(this.largestId, id);
  }

  /** Removes a document (no-op for an unknown id). */
  remove(id: number): void {
    const document = this.documents.get(id);
    if (!document) return;
    this.documents.delete(id);
    this.contributions.clear();
    for (let field = 0; field < this.fieldCount; field++) {
      this.totalLength[field]! -= document.lengths[field]!;
      for (const term of document.terms[field]!) {
        const byField = this.postings.get(term)!;
        const posting = byField[field]!;
        const at = posting.docs.indexOf(id);
        posting.docs.splice(at, 1);
        posting.counts.splice(at, 1);
        if (posting.docs.length === 0) byField[field] = undefined;
        if (byField.every((entry) => entry === undefined)) this.postings.delete(term);
      }
    }
  }

  /**
   * One ranking per query (a query is a list of terms; a repeated term counts again), each cut at
   * `depth` and holding only documents `accept` answers true for.
   */
  rank(
    queries: readonly (readonly string[])[],
    depth: number,
    accept?: (id: number) => boolean,
  ): TermHit[][] {
    const contributions = new Map<string, Contribution | undefined>();
    for (const query of queries) {
      for (const term of query) {
        if (!contributions.has(term)) contributions.set(term, this.cachedContribution(term));
      }
    }
    const verdicts = accept ? new Map<number, boolean>() : undefined;
    const allowed = (id: number): boolean => {
      if (!accept) return true;
      const known = verdicts!.get(id);
      if (known !== undefined) return known;
      const verdict = accept(id);
      verdicts!.set(id, verdict);
      return verdict;
    };
    return queries.map((query) => this.rankOne(query, contributions, depth, allowed));
  }

  private rankOne(
    query: readonly string[],
    contributions: ReadonlyMap<string, Contribution | undefined>,
    depth: number,
    allowed: (id: number) => boolean,
  ): TermHit[] {
    const multiplicity = new Map<string, number>();
    for (const term of query) multiplicity.set(term, (multiplicity.get(term) ?? 0) + 1);
    const { scores, matched } = this;
    const touched: number[] = [];
    for (const [term, times] of multiplicity) {
      const contribution = contributions.get(term);
      if (!contribution) continue;
      const { docs, scores: adds } = contribution;
      for (let at = 0; at < docs.length; at++) {
        const id = docs[at]!;
        if (matched[id] === 0) touched.push(id);
        matched[id]! += 1;
        scores[id]! += times * adds[at]!;
      }
    }
    // The best `depth` documents, kept sorted (best first, then lowest id) by insertion.
    const best: { id: number; score: number }[] = [];
    for (const id of touched) {
      const score = scores[id]! * matched[id]!;
      scores[id] = 0;
      matched[id] = 0;
      if (best.length === depth && !beats(score, id, best[depth - 1]!)) continue;
      if (!allowed(id)) continue;
      let at = best.length;
      while (at > 0 && beats(score, id, best[at - 1]!)) at--;
      best.splice(at, 0, { id, score });
      if (best.length > depth) best.pop();
    }
    return best;
  }

  /** The terms of `query` that document `id` holds, and the fields holding them. */
  matches(id: number, query: readonly string[]): TermMatch {
    const terms: string[] = [];
    const document = this.documents.get(id);
    if (!document) return { terms, fields: 0 };
    let fields = 0;
    for (const term of new Set(query)) {
      const byField = this.postings.get(term);
      if (!byField) continue;
      let found = false;
      for (let field = 0; field < this.fieldCount; field++) {
        if (byField[field] && this.weights[field]! > 0 && document.terms[field]!.includes(term)) {
          fields |= 1 << field;
          found = true;
        }
      }
      if (found) terms.push(term);
    }
    return { terms, fields };
  }

  private cachedContribution(term: string): Contribution | undefined {
    const known = this.contributions.get(term);
    if (known || !this.postings.has(term)) return known;
    const contribution = this.contribution(term);
    if (this.contributions.size >= CONTRIBUTION_LIMIT) this.contributions.clear();
    this.contributions.set(term, contribution);
    return contribution;
  }

  private contribution(term: string): Contribution {
    const byField = this.postings.get(term)!;
    this.reserve();
    const { scores, masks } = this;
    const count = this.documents.size;
    const { k1, b } = this.bm25;
    const touched: number[] = [];
    for (let field = 0; field < this.fieldCount; field++) {
      const posting = byField[field];
      const weight = this.weights[field]!;
      if (!posting || weight === 0) continue;
      const average = this.totalLength[field]! / count;
      const holders = posting.docs.length;
      const lengths = this.lengths[field]!;
      const idf = Math.log(1 + (count - holders + 0.5) / (holders + 0.5));
      for (let at = 0; at < holders; at++) {
        const id = posting.docs[at]!;
        const frequency = posting.counts[at]!;
        const length = lengths[id]!;
        const norm = average > 0 ? length / average : 0;
        if (masks[id] === 0) touched.push(id);
        masks[id] = 1;
        scores[id]! += weight * idf * ((frequency * (k1 + 1)) / (frequency + k1 * (1 - b + b * norm)));
      }
    }
    const docs = Int32Array.from(touched);
    const adds = new Float64Array(docs.length);
    for (let at = 0; at < docs.length; at++) {
      const id = docs[at]!;
      adds[at] = scores[id]!;
      scores[id] = 0;
      masks[id] = 0;
    }
    return { docs, scores: adds };
  }

  /** Grows the scratch arrays to hold every document id. */
  private reserve(): void {
    if (this.largestId < this.scores.length) return;
    const size = Math.max(this.largestId + 1, this.scores.length * 2, 64);
    this.scores = new Float64Array(size);
    this.matched = new Int32Array(size);
    this.masks = new Int32Array(size);
  }
}

// Contributions kept at most: a cache of the common terms, not a second copy of the whole index.
const CONTRIBUTION_LIMIT = 4_096;

function beats(score: number, id: number, other: { id: number; score: number }): boolean {
  return score > other.score || (score === other.score && id < other.id);
}
