/**
 * `toolpact/search`: find the few tools a request needs among thousands, and show the model only
 * those. A lexical index over each tool's contract (BM25 over tool-shaped fields), a
 * pluggable retriever with a hybrid combiner for your own embedder, and `withToolSearch`, which gives
 * the model a `search_tools` tool and keeps the set of tools it is shown.
 */
export { type AnalyzeOptions, analyze, splitWords, stemWord } from './analyze.js';
export {
  type ContractIndex,
  createContractIndex,
  createToolIndex,
  DEFAULT_FIELD_WEIGHTS,
  type SearchOptions,
  type ToolHit,
  type ToolIndex,
  type ToolIndexOptions,
} from './create-tool-index.js';
export { queryClauses } from './query-clauses.js';
export {
  type EmbeddingRetrieverOptions,
  embeddingRetriever,
  type HybridRetrieverOptions,
  hybridRetriever,
  lexicalRetriever,
  type RetrievedTool,
  type Retriever,
} from './retriever.js';
export { describeParameters, purposeOf } from './summary.js';
export { TOOL_FIELDS, type ToolField } from './tool-document.js';
export {
  type AnthropicToolSearchTool,
  CALL_TOOL_NAME,
  type CallRoute,
  SEARCH_TOOL_NAME,
  type StatelessToolSearch,
  type ToolSearch,
  type WithToolSearchOptions,
  withToolSearch,
} from './with-tool-search.js';
