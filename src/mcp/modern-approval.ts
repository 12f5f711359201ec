import { inputRequired, inputResponse } from '@modelcontextprotocol/server';
import type { ApprovalAnswer, AskHandler, PendingApproval } from '../dispatch/gate.js';
import { inBandRefusal } from '../dispatch/in-band.js';
import { approvalAnswer, approvalQuestion } from './elicitation-approver.js';
import { RESERVED_INPUT_KEY } from './input-round.js';

/** The key of the approval form in `inputRequests` and `inputResponses`. */
export const APPROVAL_KEY = RESERVED_INPUT_KEY;

/**
 * The gate's `ask` on revision 2026-07-28: the call pauses (`pause`), and `asked` keeps what was asked
 * so the pause can become an input-required result ({@link approvalRequest}). A client that did not
 * declare form elicitation in the request's `_meta` is never sent one: the ask is denied with a reason
 * the model reads. "Allow for the session" is never offered: this era has no session.
 *
 * @example
 * const ask = approvalAsk(canAsk);
 * await registry.call(name, args, { onAsk: ask.onAsk });
 * if (ask.asked) return inputRequired({ inputRequests: approvalRequest(ask.asked), requestState });
 */
export function approvalAsk(canAsk: boolean): {
  readonly onAsk: AskHandler;
  asked: PendingApproval | undefined;
} {
  const handle: { onAsk: AskHandler; asked: PendingApproval | undefined } = {
    asked: undefined,
    onAsk: (pending) => {
      const refusal = inBandRefusal(pending);
      if (refusal !== undefined) return { action: 'deny', reason: refusal };
      if (!canAsk) {
        return {
          action: 'deny',
          reason:
            'it needs approval and the MCP client cannot ask the user (its request declares no form elicitation capability)',
        };
      }
      handle.asked = pending;
      return { action: 'pause' };
    },
  };
  return handle;
}

/**
 * The `inputRequests` of a paused approval: the approval form under {@link APPROVAL_KEY}.
 *
 * @example
 * inputRequired({ inputRequests: approvalRequest(pending), requestState });
 */
export function approvalRequest(pending: PendingApproval) {
  return { [APPROVAL_KEY]: inputRequired.elicit(approvalQuestion(pending, false)) };
}

/**
 * The form's answer as the gate reads it; undefined when the retry carries none.
 *
 * @example
 * const answer = approvalResponse(ctx.mcpReq.inputResponses);
 */
export function approvalResponse(responses: Record<string, unknown> | undefined): ApprovalAnswer | undefined {
  if (!responses) return undefined;
  const response = inputResponse(responses, APPROVAL_KEY);
  if (response.kind !== 'elicit') return undefined;
  if (response.action !== 'accept') {
    return {
      action: 'deny',
      reason: `the user ${response.action === 'decline' ? 'declined' : 'cancelled'} the approval`,
    };
  }
  const content = response.content as { decision?: unknown } | undefined;
  return approvalAnswer(content?.decision, false);
}
