import {
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallOptions } from '../dispatch/call.js';
import type { Envelope } from '../dispatch/envelope.js';
import { permissionDeniedFailure } from '../dispatch/errors.js';
import type { ApprovalAnswer, PendingApproval } from '../dispatch/gate.js';
import { inBandRefusal } from '../dispatch/in-band.js';
import { principalKey } from '../dispatch/principal.js';
import { principalOf, toolIdentity } from '../dispatch/tool-identity.js';
import type { Registry } from '../registry/registry.js';
import { digestOf } from '../util/digest.js';
import { approvalAnswer, approvalQuestion } from './elicitation-approver.js';
import { type McpRequestContext, supportsFormElicitation } from './request-context.js';
import { bindingFor, type RequestStateSealer } from './request-state.js';

/** The key of the approval form in `inputRequests` and `inputResponses`. */
export const APPROVAL_KEY = 'approval';

/** What a modern `tools/call` comes to: an envelope to answer, or an input-required result. */
export type ModernOutcome = { readonly envelope: Envelope } | { readonly inputRequired: InputRequiredResult };

/**
 * One `tools/call` of revision 2026-07-28, where the server cannot push a request in the middle of a
 * call: the gate's `ask` pauses the call (`onAsk` → `pause`), and the pause becomes an input-required
 * result carrying the approval form and a sealed `requestState`. The client's retry brings the form's
 * answer and the state back; the state is opened (refused when tampered, expired, foreign, bound to
 * other arguments or already used: nothing runs) and the call runs again with the decision as
 * `resume`, so the gate still decides first. A client that did not declare form elicitation in the
 * request's `_meta` is never sent one: the ask is denied with a reason the model reads. "Allow for the
 * session" is never offered: this era has no session.
 *
 * @example
 * const outcome = await approvalCall(registry, name, args, options, ctx, context, RequestStateSealer.fromEnvironment());
 */
export async function approvalCall(
  registry: Registry,
  name: string,
  args: unknown,
  options: CallOptions,
  ctx: ServerContext,
  context: McpRequestContext,
  states: RequestStateSealer | undefined,
): Promise<ModernOutcome> {
  // Bound to who is calling as every approval binds it: the transport's authenticated client, if any.
  const caller = principalOf(context);
  const principal = caller === undefined ? undefined : principalKey(caller);
  // The rule is sealed in the state's data, not in its binding: the retry cannot know it before the
  // state is opened. It is as bound there (sealed, authenticated), and `resume` answers only an ask by
  // that same rule, so an ask by another rule is asked anew.
  // The state names the tool by its identity too (its source, its name there, the definition shown),
  // so a retry that reaches another server's tool behind the same name, or a changed definition, is
  // refused and asked anew.
  const binding = bindingFor(boundName(registry, name, ctx), args, undefined, principal);
  const state = ctx.mcpReq.requestState<unknown>();
  let resume: CallOptions['resume'];
  if (state !== undefined) {
    if (!states) return { envelope: refused(name, 'unknown_key', 'this server issues no request states') };
    const opened = await states.consumeShared(state, binding);
    if (!opened.ok) return { envelope: refused(name, opened.code, opened.message) };
    const answer = answerOf(ctx.mcpReq.inputResponses);
    // A retry with the state but no answer to the form: nothing is decided, so the call asks again.
    if (answer !== undefined) resume = { rule: ruleOf(opened.data), answer };
  }
  let asked: PendingApproval | undefined;
  const canAsk = states !== undefined && supportsFormElicitation(context.clientCapabilities);
  const envelope = await registry.call(name, args, {
    ...options,
    ...(resume ? { resume } : {}),
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
      asked = pending;
      return { action: 'pause' };
    },
  });
  if (envelope.ok || envelope.error.type !== 'approval_pending' || !asked || !states) return { envelope };
  const requestState = states.seal(binding, { rule: asked.decision.rule ?? null });
  return {
    inputRequired: inputRequired({
      inputRequests: { [APPROVAL_KEY]: inputRequired.elicit(approvalQuestion(asked, false)) },
      requestState,
    }),
  };
}

function boundName(registry: Registry, name: string, state: unknown): string {
  const tool = registry.get(name);
  if (!tool) return name;
  const identity = toolIdentity(tool.contract, tool.meta, state);
  return `${name}#${digestOf([identity.source, identity.name, identity.definition]).slice(7, 31)}`;
}

// The form's answer as the gate reads it; undefined when the retry carries none.
function answerOf(responses: Record<string, unknown> | undefined): ApprovalAnswer | undefined {
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

function ruleOf(data: unknown): string | undefined {
  const rule = (data as { rule?: unknown } | null)?.rule;
  return typeof rule === 'string' ? rule : undefined;
}

// The sealer's words say what was wrong and what to do; the code is kept for programs.
function refused(name: string, code: string, message: string): Envelope {
  const { error } = permissionDeniedFailure(name, `the approval this retry carries was refused (${code})`);
  return { ok: false, error: { ...error, message } };
}
