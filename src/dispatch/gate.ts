import type { ToolContract } from '../contract/index.js';
import type { ToolMeta } from '../contract/tool.js';
import type { JsonValue } from './serialize.js';

/** What the gate decides for one call. `rule` names what decided, for the envelope and the audit log. */
export type GateDecision =
  | { readonly action: 'allow'; readonly rule?: string; readonly reason?: string }
  | {
      readonly action: 'deny';
      readonly reason: string;
      readonly rule?: string;
      /**
       * The refusal as the model reads it, when it is not a plain `permission_denied` (the gateway's
       * withheld definitions answer `tool_definition_changed`): the envelope's error type and words.
       */
      readonly refusal?: {
        readonly type: string;
        readonly message: string;
        readonly details?: { readonly [key: string]: JsonValue };
      };
    }
  | {
      readonly action: 'ask';
      readonly reason?: string;
      readonly rule?: string;
      /**
       * Who the rule lets approve (a policy rule's `approver`): with `caller`, the client may approve
       * in band even when the caller is authenticated; otherwise an authenticated caller's ask is never
       * approved in band (see `inBandRefusal`).
       */
      readonly approver?: 'in-band' | 'queue' | 'caller';
    };

/**
 * What the gate decides on: a tool call; a resource read (its `arguments` are `{ uri }`); a prompt
 * get (its `arguments` are the prompt's); or a sampling request a server sends back through the
 * gateway (`{ server, maxTokens, systemPrompt?, messages }`, the count of messages).
 */
export type GateTarget = 'tool' | 'resource' | 'prompt' | 'sampling';

/**
 * What the gate sees: the contract, the validated arguments and the caller's options. A resource
 * read, a prompt get or a sampling request is gated with a `target` and a contract standing for it
 * (its name, category `read`), so the same policy, approvals and audit decide it.
 */
export interface GateRequest {
  readonly tool: ToolContract;
  /** What is decided on (absent: a tool call). */
  readonly target?: GateTarget;
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
  | {
      readonly action: 'deny';
      readonly reason?: string;
      /**
       * Why the call is refused when it is not a person's no: `approval_already_used` (another request
       * of the same call used its approval) or `store_unavailable` (the approvals cannot be read). The
       * envelope then has that type instead of `permission_denied`.
       */
      readonly outcome?: 'approval_already_used' | 'store_unavailable';
      /** The approval concerned, for `approval_already_used`. */
      readonly approval?: string;
    };

/** An `ask` of the gate, with everything needed to decide it now or later. */
export type PendingApproval = GateRequest & { readonly decision: GateDecision & { action: 'ask' } };

/** Decides an `ask`: a person at a terminal, a UI, an MCP elicitation. */
export type Approver = (request: PendingApproval) => ApprovalAnswer | Promise<ApprovalAnswer>;

/**
 * Ends the call now, before it runs, with an `approval_pending` envelope: the decision is made
 * elsewhere and later, and a later call brings it back (`CallOptions.resume`). `approval` names the
 * pending approval for whoever decides it; `message` replaces the envelope's default words.
 */
export interface PauseAnswer {
  readonly action: 'pause';
  readonly approval?: string;
  readonly message?: string;
}

/**
 * Answers an `ask` for one call (`CallOptions.onAsk`): decide now, like an {@link Approver}, or
 * pause the call.
 *
 * @example
 * // Queue the approval and end the call; a later call brings the decision back.
 * const envelope = await registry.call('write_file', args, {
 *   onAsk: (pending) => ({ action: 'pause', approval: queue.add(pending) }),
 * });
 * // … once a person has approved:
 * await registry.call('write_file', args, { resume: { rule: envelope.error.rule, answer: { action: 'allow' } } });
 */
export type AskHandler = (
  request: PendingApproval,
) => ApprovalAnswer | PauseAnswer | Promise<ApprovalAnswer | PauseAnswer>;

/**
 * Out-of-band approvals (a fleet's queue): consulted on every `ask` before the call's `onAsk` and the
 * registry's approver. It answers `undefined` to leave the ask to them, or decides: `allow` (an
 * approval was given and this call claimed it), `deny`, or `pause` (the ask is queued; the envelope is
 * `approval_pending` with the queued approval's id).
 *
 * @example
 * const registry = new Registry({ ...gate.registryOptions, approvalQueue: store.approvalQueue(policy) });
 */
export type ApprovalQueue = (
  request: PendingApproval,
) => ApprovalAnswer | PauseAnswer | undefined | Promise<ApprovalAnswer | PauseAnswer | undefined>;

/** A decision on an `ask` that paused an earlier call, brought back by the call that resumes it. */
export interface ResumedDecision {
  /** The `rule` of the `ask` it answers (undefined for an ask without a rule). */
  readonly rule: string | undefined;
  readonly answer: ApprovalAnswer;
}

/** What {@link VisibilityHook} is asked about: a tool, and the `state` of the caller it is listed for. */
export interface VisibilityRequest {
  readonly tool: ToolContract;
  readonly meta: ToolMeta;
  /** The caller's state: the MCP request context of the listing or the call. */
  readonly state: unknown;
}

/**
 * Whether a caller may see a tool at all: false for a tool every call of which by that caller would
 * be denied, whatever its arguments. A hook that throws hides the tool.
 */
export type VisibilityHook = (request: VisibilityRequest) => boolean;
