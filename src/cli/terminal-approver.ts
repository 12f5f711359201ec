/** The approver `toolpact call` and `toolpact run` share: `--yes`, else y/N on a terminal, else refuse. */
import type { ApprovalRequest, PolicyApprover } from '../policy/policy-gate.js';
import { redactValue } from '../util/redact.js';
import type { CliIo } from './io.js';

const MAX_SHOWN_ARGUMENTS = 500;

/**
 * `--yes` approves (said on stderr); a terminal asks y/N; anything else refuses, saying how to approve.
 * `before` runs just before the question (e.g. to clear a spinner).
 */
export function terminalApprover(
  io: CliIo,
  options: { readonly yes: boolean; readonly command: string; readonly before?: () => void },
): PolicyApprover {
  return async (request) => {
    if (options.yes) {
      io.stderr(
        `toolpact ${options.command}: approved by --yes: ${request.tool} (${request.category}, rule ${request.rule})\n`,
      );
      return { action: 'allow', scope: 'once' };
    }
    if (!io.interactive || !io.prompt) {
      return {
        action: 'deny',
        reason: `approval is required (rule ${request.rule}: ${request.reason}) and there is no terminal to ask; run it on a terminal or pass --yes`,
      };
    }
    options.before?.();
    const answer = await io.prompt(question(request));
    if (answer !== undefined && /^\s*y(es)?\s*$/i.test(answer)) return { action: 'allow', scope: 'once' };
    return { action: 'deny', reason: 'the person at the terminal declined this call' };
  };
}

function question(request: ApprovalRequest): string {
  let shown = JSON.stringify(redactValue(request.arguments)) ?? '{}';
  if (shown.length > MAX_SHOWN_ARGUMENTS) shown = `${shown.slice(0, MAX_SHOWN_ARGUMENTS)}…`;
  const source = request.source === 'local' ? '' : ` from ${request.source}`;
  return `Allow ${request.tool}${source} (${request.category}, ${request.risk} risk; ${request.reason}) with ${shown}? [y/N] `;
}
