/**
 * `toolpact/ai-sdk`: a Registry as the tool layer of the Vercel AI SDK (v6), and AI SDK tools as
 * toolpact tools. This entry loads `ai` (an optional peer dependency); the root entry never does.
 *
 * @example
 * import { approvalBridge, toAiSdkTools } from 'toolpact/ai-sdk';
 * const approvals = approvalBridge(createPolicyGate(policy));
 * const registry = new Registry({ ...approvals.registryOptions }).register(readFile, writeFile);
 * const result = await generateText({ model, prompt, tools: toAiSdkTools(registry, { approvals }), stopWhen: stepCountIs(5) });
 */
export {
  type ApprovalBridge,
  type ApprovalBridgeOptions,
  approvalBridge,
  type BridgedCallOptions,
} from '../integrations/approval-bridge.js';
export type { WrapToolOptions, WrapToolWarning } from '../integrations/foreign-tool.js';
export { type FromAiSdkToolOptions, fromAiSdkTool } from './from-ai-sdk-tool.js';
export { type AiSdkToolsOptions, ToolCallFailedError, toAiSdkTools } from './to-ai-sdk-tools.js';
