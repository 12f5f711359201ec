/**
 * `toolpact/openai-agents`: a Registry as `@openai/agents` function tools, and Agents SDK function
 * tools as toolpact tools. This entry loads `@openai/agents` (an optional peer dependency, 0.14, the
 * last line that runs on Node 20); the root entry never does.
 *
 * @example
 * import { approvalBridge, toOpenAIAgentsTools } from 'toolpact/openai-agents';
 * const approvals = approvalBridge(createPolicyGate(policy));
 * const registry = new Registry({ ...approvals.registryOptions }).register(readFile, writeFile);
 * const agent = new Agent({ name: 'files', instructions, tools: toOpenAIAgentsTools(registry, { approvals }) });
 */
export {
  type ApprovalBridge,
  type ApprovalBridgeOptions,
  approvalBridge,
  type BridgedCallOptions,
} from '../integrations/approval-bridge.js';
export type { WrapToolOptions, WrapToolWarning } from '../integrations/foreign-tool.js';
export { type FromOpenAIAgentsToolOptions, fromOpenAIAgentsTool } from './from-openai-agents-tool.js';
export { type OpenAIAgentsToolsOptions, toOpenAIAgentsTools } from './to-openai-agents-tools.js';
