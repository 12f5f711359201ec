/**
 * `toolpact/studio`: a local page that shows a tool set the way each provider receives it (payloads,
 * diagnostics, tokens, lint findings, the gate's decisions) and runs calls through the real registry
 * and gate, asking the person at the page when the policy says `ask`. `toolpact studio` starts it.
 *
 * @example
 * import { startStudio } from 'toolpact/studio';
 * const studio = await startStudio({ label: 'tools', load: (options) => ({ registry: new Registry(options).register(tools) }) });
 * console.log(studio.url);
 */
export { type ApprovalChoice, ApprovalQueue, type PendingApproval } from './approval-queue.js';
export { type DiffLine, diffJson } from './json-diff.js';
export { mcpStudioSource } from './mcp-source.js';
export {
  type RunningStudio,
  type StudioCall,
  type StudioOptions,
  type StudioSource,
  startStudio,
} from './start-studio.js';
export {
  type StoreQueueDecision,
  StoreQueueError,
  StoreQueueFeed,
  type StoreQueueFeedOptions,
  type StoreQueueView,
} from './store-queue.js';
export {
  STUDIO_FORMATS,
  type StudioFinding,
  type StudioFormat,
  type StudioOverview,
  type StudioPayload,
  type StudioPermission,
  type StudioToolDetail,
  type StudioToolRow,
  studioOverview,
  studioToolDetail,
  type TokensByFormat,
} from './studio-model.js';
export { type SearchEngine, type StudioSearchResult, searchStudioTools } from './tool-search.js';
export { watchFiles } from './watch-files.js';
