/**
 * toolpact/extract: type-first contracts read from TypeScript signatures and doc comments with the
 * compiler API. This is the only part of toolpact that loads `typescript`.
 */
export { type ContractChanges, compareContracts, isUnchanged } from './compare-contracts.js';
export {
  type ExtractDiagnostic,
  type ExtractDiagnosticCode,
  formatDiagnostic,
  sortDiagnostics,
} from './diagnostics.js';
export { TOOL_TAGS } from './doc-comment.js';
export { KNOWN_FORMATS, SCHEMA_TAGS } from './doc-tags.js';
export { docText } from './doc-text.js';
export { type ExtractOptions, type ExtractResult, extractContracts } from './extract-contracts.js';
export { parseModule, renderModule } from './render-module.js';
