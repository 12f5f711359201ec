import type { Envelope } from '../dispatch/envelope.js';
import type { Approver, BeforeCallHook, GateDecision } from '../dispatch/gate.js';
import { ParseFailure, readArguments } from '../dispatch/parse.js';
import { ToolDefinitionError } from '../errors/index.js';
import type { PolicyGate } from '../policy/policy-gate.js';
import type { CallOptions, Registry, RegistryOptions } from '../registry/registry.js';

/** Options of {@link approvalBridge}. */
export interface ApprovalBridgeOptions {
  /**
   * Answers an `ask` for a call the framework did not approve (a call made outside its approval flow,
   * or one whose approval came from elsewhere). Default: refused with `permission_denied`.
   */
  readonly fallback?: Approver;
}

/** Options of one call through {@link ApprovalBridge.call}. */
export interface BridgedCallOptions extends CallOptions {
  /** The framework's approval flow approved this call: the gate's `ask` lets it through, once. */
  readonly approved?: boolean;
}

/**
 * The permission gate shared with a framework's approval flow: the gate still decides every call; a
 * framework (the AI SDK's `needsApproval`, the Agents SDK's interruptions) only carries the question
 * to a person and the answer back.
 */
export interface ApprovalBridge {
  /**
   * What to spread into `new Registry({ ... })`: the gate as `beforeCall`, its `observe` when it has
   * one, and the approver that lets a framework-approved call through.
   */
  readonly registryOptions: Pick<RegistryOptions, 'beforeCall' | 'approver' | 'observe'>;
  /**
   * Whether the gate asks about this call: what a framework's `needsApproval` answers. Arguments that
   * do not parse or validate, and unknown tools, need no approval: the registry refuses them anyway.
   */
  needsApproval(registry: Registry, name: string, args: unknown, options?: CallOptions): Promise<boolean>;
  /** Runs a call through `registry.call`; with `approved`, the gate's `ask` for this one call is granted. */
  call(registry: Registry, name: string, args: unknown, options?: BridgedCallOptions): Promise<Envelope>;
}

/**
 * Joins the permission gate to a framework's approval flow. The gate's `ask` becomes the framework's
 * "needs approval"; an approval given there lets that one call through the gate (the grant is keyed
 * by tool and call id and is used up by the call); a refusal there never reaches the tool. An approval
 * brought back a second time in the same process (the same approval response sent again, a saved run
 * state resumed twice) does not run the call again: it answers `approval_already_used`. Across
 * processes the caller owns the messages or the run state. Build the policy gate without an approver
 * of its own, so its `ask` comes through to the framework.
 *
 * @example
 * const approvals = approvalBridge(createPolicyGate(policy));
 * const registry = new Registry({ ...approvals.registryOptions }).register(readFile, writeFile);
 * const tools = toAiSdkTools(registry, { approvals });
 */
export function approvalBridge(
  gate: PolicyGate | BeforeCallHook,
  options: ApprovalBridgeOptions = {},
): ApprovalBridge {
  const decide: unknown = typeof gate === 'function' ? gate : (gate as Partial<PolicyGate> | null)?.decide;
  if (typeof decide !== 'function') {
    throw new ToolDefinitionError(
      'invalid_option',
      `approvalBridge() expects a policy gate (createPolicyGate) or a beforeCall function, received ${gate === null ? 'null' : typeof gate}.`,
    );
  }
  const hook = decide as BeforeCallHook;
  const observe = typeof gate === 'function' ? undefined : gate.registryOptions?.observe;
  const granted = new Set<string>();
  // Grants the gate used, so that an approval replayed in this process (the same approval response
  // sent again, a serialized run state resumed twice) does not run its call a second time.
  const used = new Set<string>();
  const replayed = new Set<string>();
  const fallback = options.fallback;
  const approver: Approver = (request) => {
    if (request.callId !== undefined) {
      const key = grantKey(request.tool.name, request.callId);
      if (granted.delete(key)) {
        if (used.size >= MAX_REMEMBERED_GRANTS) used.delete(used.values().next().value as string);
        used.add(key);
        return { action: 'allow', scope: 'once' };
      }
      if (replayed.has(key)) {
        return { action: 'deny', outcome: 'approval_already_used' };
      }
    }
    if (fallback) return fallback(request);
    return {
      action: 'deny',
      reason: 'this call needs approval, and it was not approved through the approval flow that asked for it',
    };
  };
  return Object.freeze({
    registryOptions: Object.freeze({ beforeCall: hook, approver, ...(observe ? { observe } : {}) }),
    async needsApproval(registry: Registry, name: string, args: unknown, callOptions: CallOptions = {}) {
      const tool = registry.get(name);
      if (!tool) return false;
      const parsed = readArguments(args);
      if (parsed instanceof ParseFailure) return false;
      const validation = await tool.validate(parsed);
      if (!validation.ok) return false;
      let decision: GateDecision | undefined;
      try {
        decision = await hook({
          tool: tool.contract,
          meta: tool.meta,
          arguments: validation.value,
          callId: callOptions.callId,
          state: callOptions.state,
        });
      } catch {
        // A gate that throws denies in the registry; there is nothing to approve.
        return false;
      }
      return decision?.action === 'ask';
    },
    async call(registry: Registry, name: string, args: unknown, callOptions: BridgedCallOptions = {}) {
      const { approved, ...rest } = callOptions;
      const key = approved && rest.callId !== undefined ? grantKey(name, rest.callId) : undefined;
      const replay = key !== undefined && used.has(key);
      if (key) (replay ? replayed : granted).add(key);
      try {
        return await registry.call(name, args, rest);
      } finally {
        // A grant the gate did not use (it allowed or denied outright) must not outlive the call.
        if (key) (replay ? replayed : granted).delete(key);
      }
    },
  });
}

/** How many used grants a bridge remembers (the oldest is forgotten first). */
const MAX_REMEMBERED_GRANTS = 100_000;

function grantKey(tool: string, callId: string): string {
  return `${tool}\u0000${callId}`;
}
