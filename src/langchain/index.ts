/**
 * `toolpact/langchain`: a Registry as `@langchain/core` structured tools, and LangChain tools as
 * toolpact tools. This entry loads `@langchain/core` (an optional peer dependency); the root entry
 * never does.
 *
 * @example
 * import { toLangChainTools } from 'toolpact/langchain';
 * const tools = toLangChainTools(registry);
 * const ai = await model.bindTools(tools).invoke(messages);
 */
export type { WrapToolOptions, WrapToolWarning } from '../integrations/foreign-tool.js';
export { type FromLangChainToolOptions, fromLangChainTool } from './from-langchain-tool.js';
export { type LangChainToolsOptions, toLangChainTools } from './to-langchain-tools.js';
