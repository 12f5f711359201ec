import type { ApprovalAnswer, Approver, PendingApproval } from '../dispatch/gate.js';
import { inBandRefusal } from '../dispatch/in-band.js';
import { redactValue } from '../util/redact.js';
import { mcpContextOf } from './request-context.js';

/** Options of {@link elicitationApprover}. */
export interface ElicitationApproverOptions {
  /**
   * Who answers when the call did not come over MCP or the client cannot elicit (stateless HTTP,
   * a client without the capability). Without one, such an `ask` is denied.
   */
  readonly fallback?: Approver;
  /**
   * Offer "allow for the session" besides "allow once". The registry keeps such an approval for its
   * lifetime, for every client it serves, so by default it is offered only where one client owns the
   * server: over stdio (no MCP session id). Over HTTP, where clients share the registry, say `true`
   * only if that is what you want.
   */
  readonly offerSession?: boolean;
}

/**
 * An `Approver` that asks the person at the MCP client: when the gate answers `ask` for a call that
 * came through `serveStdio`/`serveHttp` and the client supports elicitation, it sends
 * `elicitation/create` naming the tool, the reason and the arguments, and maps the answer (decline,
 * cancel or an error all deny). Give it to the Registry as its `approver`.
 *
 * @example
 * const registry = new Registry({ beforeCall: policy.beforeCall, approver: elicitationApprover() });
 * await serveStdio(registry);
 */
export function elicitationApprover(options: ElicitationApproverOptions = {}): Approver {
  return async (request) => {
    const mcp = mcpContextOf(request.state);
    // An authenticated caller approves its own call only where the rule lets it; the fallback (the
    // operator's own approver, out of band) may still decide.
    const refusal = inBandRefusal(request);
    if (refusal !== undefined) {
      return options.fallback ? options.fallback(request) : { action: 'deny', reason: refusal };
    }
    if (!mcp?.canElicit) {
      if (options.fallback) return options.fallback(request);
      return {
        action: 'deny',
        reason: mcp
          ? 'it needs approval and the MCP client cannot ask the user (no elicitation support)'
          : 'it needs approval and nobody is there to give it',
      };
    }
    // Revision 2026-07-28 has no session: an approval "for the session" would hold for every client.
    const offerSession = options.offerSession ?? (mcp.sessionId === undefined && mcp.era === 'legacy');
    try {
      const answer = await mcp.elicit(approvalQuestion(request, offerSession));
      if (answer.action !== 'accept') {
        return {
          action: 'deny',
          reason: `the user ${answer.action === 'decline' ? 'declined' : 'cancelled'} the approval`,
        };
      }
      return approvalAnswer(answer.content?.decision, offerSession);
    } catch {
      return { action: 'deny', reason: 'the approval request to the MCP client failed' };
    }
  };
}

/**
 * The form that asks the person at the MCP client about one call: the tool, its category, why it
 * asks and the arguments (secrets masked, as in the CLI's own approval prompt), with a `decision`
 * of `once` or `deny` (and `session` when offered). Sent pushed (legacy era) or inside an
 * input-required result (revision 2026-07-28, which never offers `session`).
 *
 * @example
 * await mcp.elicit(approvalQuestion(pending, false));
 */
export function approvalQuestion(pending: PendingApproval, offerSession: boolean) {
  const choices = offerSession ? ['once', 'session', 'deny'] : ['once', 'deny'];
  const args = JSON.stringify(redactValue(pending.arguments)) ?? '{}';
  const reason = pending.decision.reason ? ` (${pending.decision.reason})` : '';
  const message = `${questionOf(pending)}${reason}? Arguments: ${args.length > 500 ? `${args.slice(0, 500)}…` : args}`;
  return {
    message,
    requestedSchema: {
      type: 'object' as const,
      properties: {
        decision: {
          type: 'string' as const,
          title: 'Decision',
          description: offerSession
            ? 'once: allow this call; session: allow this tool until the server stops; deny: refuse'
            : 'once: allow this call; deny: refuse',
          enum: choices,
        },
      },
      required: ['decision'],
    },
  };
}

/** What is asked, by its target: a tool's run, a resource's read, a prompt's get, a server's sampling. */
function questionOf(pending: PendingApproval): string {
  const name = pending.tool.name;
  switch (pending.target) {
    case 'resource':
      return `Allow reading the resource "${name}"`;
    case 'prompt':
      return `Allow getting the prompt "${name}"`;
    case 'sampling': {
      const server = (pending.arguments as { server?: unknown } | undefined)?.server;
      return `Allow the MCP server ${typeof server === 'string' ? `"${server}" ` : ''}to ask your model for a completion`;
    }
    default:
      return `Allow the tool "${name}" (${pending.tool.category}) to run`;
  }
}

/**
 * The approval an accepted form's `decision` stands for; anything but `once` (or an offered
 * `session`) denies.
 *
 * @example
 * approvalAnswer('once', false); // { action: 'allow', scope: 'once' }
 */
export function approvalAnswer(decision: unknown, offerSession: boolean): ApprovalAnswer {
  if (decision === 'once') return { action: 'allow', scope: 'once' };
  if (decision === 'session' && offerSession) return { action: 'allow', scope: 'session' };
  return { action: 'deny', reason: 'the user denied the call' };
}
