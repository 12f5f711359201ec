import type { ToolContract } from '../contract/index.js';
import type { ToolMeta } from '../contract/tool.js';
import type { CallOptions, Trace } from '../dispatch/call.js';
import type { FailureEnvelope } from '../dispatch/envelope.js';
import type { GateDecision } from '../dispatch/gate.js';
import { gateCall } from '../dispatch/gate-call.js';
import type { RegistryOptions } from '../registry/registry.js';

/** An operation that is not a tool call, put to the gate under a contract that stands for it. */
export interface GatedOperation {
  /** What the policy's `target` names: `sampling` for a completion an upstream asks the client's model for. */
  readonly target: 'sampling';
  readonly tool: ToolContract;
  readonly meta: ToolMeta;
  readonly arguments: unknown;
  readonly callId: string | undefined;
  readonly state: unknown;
}

/** What the gate said of an operation: the failure that ends it (undefined: go on), and the decision. */
export interface OperationVerdict {
  readonly failure: FailureEnvelope | undefined;
  readonly decision: GateDecision | undefined;
}

/** Puts one operation to the gateway's gate (policy, approval queue, approver). */
export type OperationGate = (operation: GatedOperation, options: CallOptions) => Promise<OperationVerdict>;

/**
 * The gate of the gateway's registry options, for what is not a tool call: the same policy hook,
 * approval queue and approver as a call, an `ask` answered the way a call's is (the client's
 * elicitation when `state` is its request, else the approver's refusal).
 *
 * @example
 * const gate = operationGate(registryOptions);
 * const { failure } = await gate(operation, { state: context, signal: context.signal });
 */
export function operationGate(options: RegistryOptions): OperationGate {
  const settings = {
    beforeCall: options.beforeCall,
    approver: options.approver,
    approvalQueue: options.approvalQueue,
    sessionApprovals: new Set<string>(),
  };
  return async (operation, callOptions) => {
    const trace: Trace = {
      arguments: operation.arguments,
      decision: undefined,
      resultIssues: undefined,
      ran: false,
    };
    const failure = await gateCall(settings, operation, callOptions, trace);
    return { failure, decision: trace.decision };
  };
}
