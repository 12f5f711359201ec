import type { Approver } from '../dispatch/gate.js';
import { redactValue } from '../policy/redact.js';
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
    if (!mcp?.canElicit) {
      if (options.fallback) return options.fallback(request);
      return {
        action: 'deny',
        reason: mcp
          ? 'it needs approval and the MCP client cannot ask the user (no elicitation support)'
          : 'it needs approval and nobody is there to give it',
      };
    }
    const offerSession = options.offerSession ?? mcp.sessionId === undefined;
    const choices = offerSession ? ['once', 'session', 'deny'] : ['once', 'deny'];
    // Secrets in the arguments (tokens, passwords) are masked, as in the CLI's own approval prompt.
    const args = JSON.stringify(redactValue(request.arguments)) ?? '{}';
    const message =
      `Allow the tool "${request.tool.name}" (${request.tool.category}) to run` +
      `${request.decision.reason ? ` (${request.decision.reason})` : ''}? ` +
      `Arguments: ${args.length > 500 ? `${args.slice(0, 500)}…` : args}`;
    try {
      const answer = await mcp.elicit({
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            decision: {
              type: 'string',
              title: 'Decision',
              description: offerSession
                ? 'once: allow this call; session: allow this tool until the server stops; deny: refuse'
                : 'once: allow this call; deny: refuse',
              enum: choices,
            },
          },
          required: ['decision'],
        },
      });
      if (answer.action !== 'accept') {
        return {
          action: 'deny',
          reason: `the user ${answer.action === 'decline' ? 'declined' : 'cancelled'} the approval`,
        };
      }
      const decision = answer.content?.decision;
      if (decision === 'once') return { action: 'allow', scope: 'once' };
      if (decision === 'session' && offerSession) return { action: 'allow', scope: 'session' };
      return { action: 'deny', reason: 'the user denied the call' };
    } catch {
      return { action: 'deny', reason: 'the approval request to the MCP client failed' };
    }
  };
}
