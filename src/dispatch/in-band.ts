import type { PendingApproval } from './gate.js';
import { principalOf } from './tool-identity.js';

/**
 * Why an `ask` may not be approved in band (by an elicitation, or the input of a revision 2026-07-28
 * retry), or undefined when it may. An in-band approval is the client approving its own call: for a
 * caller nobody authenticated (the local process) that is the only approval there is, but an
 * authenticated caller approves its own call only under a rule that says `approver: "caller"`.
 * Otherwise the ask must go to the store's queue, where a person decides it.
 *
 * @example
 * const refusal = inBandRefusal(pending);
 * if (refusal) return { action: 'deny', reason: refusal };
 */
export function inBandRefusal(pending: PendingApproval): string | undefined {
  if (pending.decision.approver === 'caller') return undefined;
  if (principalOf(pending.state) === undefined) return undefined;
  const rule = pending.decision.rule;
  return `it needs approval${pending.decision.reason ? ` (${pending.decision.reason})` : ''}, and an authenticated caller cannot approve its own call under ${rule === undefined ? 'this policy' : `rule "${rule}"`}. The server's operator can send such asks to a person through the approvals queue (a shared store, --store), or let the caller approve with "approver": "caller" on the rule`;
}
