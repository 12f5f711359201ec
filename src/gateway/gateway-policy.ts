import type { Policy } from '../policy/policy.js';
import { PolicyError } from '../policy/policy-error.js';

/**
 * Checks a policy for the gateway, where every tool is imported: an allow rule that names tools and
 * no source applies to local tools only (`effectiveSource` in `toolpact/policy`), so in front of the
 * gateway it could never match, and whoever wrote it surely meant something else. It is refused with
 * the way to write it: name the server (`"source": "mcp:github"`), or say `"source": "*"` on purpose.
 * Returns the policy; throws a {@link PolicyError} naming the rule.
 *
 * @example
 * checkGatewayPolicy(loadPolicyFile('policy.json'), 'policy.json');
 */
export function checkGatewayPolicy(policy: Policy, where: string): Policy {
  for (const [index, rule] of policy.rules.entries()) {
    if (rule.action !== 'allow' || rule.tool === undefined || rule.source !== undefined) continue;
    const tools = typeof rule.tool === 'string' ? [rule.tool] : rule.tool;
    throw new PolicyError(
      'invalid_rule',
      `${where}: rule #${index} ("${rule.id}") allows ${tools.map((tool) => `"${tool}"`).join(', ')} by name alone, which applies to local tools only, and every tool behind the gateway is imported. Name the server the tool comes from ("source": "mcp:<server>"), or write "source": "*" to allow that name from any server on purpose.`,
      rule.id,
    );
  }
  return policy;
}
