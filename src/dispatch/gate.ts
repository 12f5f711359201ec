import type { ToolContract } from '../contract/index.js';
import type { ToolMeta } from '../define/tool.js';

/** What the gate decides for one call. `rule` names what decided, for the envelope and the audit log. */
export type GateDecision =
  | { readonly action: 'allow'; readonly rule?: string; readonly reason?: string }
  | { readonly action: 'deny'; readonly reason: string; readonly rule?: string }
  | { readonly action: 'ask'; readonly reason?: string; readonly rule?: string };

/** What the gate sees: the contract, the validated arguments and the caller's options. */
export interface GateRequest {
  readonly tool: ToolContract;
  readonly meta: ToolMeta;
  /** The arguments after validation (defaults applied): what the tool would receive. */
  readonly arguments: unknown;
  readonly callId: string | undefined;
  readonly state: unknown;
}

/**
 * Runs just before the function: may allow, deny with a reason the model sees, or ask. Returning
 * nothing allows. A hook that throws denies (a broken gate must fail closed).
 */
export type BeforeCallHook = (
  request: GateRequest,
) => GateDecision | undefined | Promise<GateDecision | undefined>;

/** The answer to an `ask`. */
export type ApprovalAnswer =
  | { readonly action: 'allow'; readonly scope?: 'once' | 'session' }
  | { readonly action: 'deny'; readonly reason?: string };

/** Decides an `ask`: a person at a terminal, a UI, an MCP elicitation. */
export type Approver = (
  request: GateRequest & { readonly decision: GateDecision & { action: 'ask' } },
) => ApprovalAnswer | Promise<ApprovalAnswer>;
