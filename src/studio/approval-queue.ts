import { randomUUID } from 'node:crypto';
import type { ApprovalAnswer } from '../dispatch/gate.js';
import type { ApprovalRequest, PolicyApprover } from '../policy/policy-gate.js';
import { redactValue } from '../util/redact.js';

const MAX_ANSWERED = 1_000;

/** An `ask` waiting for the person at the page. */
export interface PendingApproval {
  readonly id: string;
  readonly tool: string;
  readonly category: string;
  readonly risk: string;
  readonly rule: string;
  readonly reason: string;
  /** The validated arguments, secrets redacted. */
  readonly arguments: unknown;
}

/** What the page may answer. */
export type ApprovalChoice =
  | { readonly action: 'allow'; readonly scope: 'once' | 'session' }
  | { readonly action: 'deny'; readonly reason?: string };

/**
 * The `ask`s of the gate, held until the page answers each one: `approver` is the gate's approver,
 * `answer` settles one by id, `onChange` tells the page a question came or went.
 *
 * @example
 * const queue = new ApprovalQueue();
 * const gate = createPolicyGate(policy, { approver: queue.approver });
 * queue.answer(queue.pending()[0]!.id, { action: 'allow', scope: 'once' });
 */
export class ApprovalQueue {
  readonly #waiting = new Map<
    string,
    { request: PendingApproval; callId: string | undefined; settle: (answer: ApprovalAnswer) => void }
  >();
  // Who answered the asks of recent calls, by call id (the studio's audit view shows it).
  readonly #answeredBy = new Map<string, string>();
  readonly #listeners = new Set<(pending: readonly PendingApproval[]) => void>();

  /** The gate's approver: resolves when the page answers. */
  readonly approver: PolicyApprover = (request: ApprovalRequest) =>
    new Promise<ApprovalAnswer>((resolve) => {
      const id = randomUUID();
      this.#waiting.set(id, {
        request: {
          id,
          tool: request.tool,
          category: request.category,
          risk: request.risk,
          rule: request.rule,
          reason: request.reason,
          arguments: redactValue(request.arguments),
        },
        callId: request.callId,
        settle: resolve,
      });
      this.#notify();
    });

  /** The questions not answered yet, oldest first. */
  pending(): PendingApproval[] {
    return [...this.#waiting.values()].map((entry) => entry.request);
  }

  /**
   * Answers one question, as `by` (the signed-in person) when given; false when the id is unknown
   * (already answered, or never asked).
   */
  answer(id: string, choice: ApprovalChoice, by?: string): boolean {
    const entry = this.#waiting.get(id);
    if (!entry) return false;
    this.#waiting.delete(id);
    if (by !== undefined && entry.callId !== undefined) {
      this.#answeredBy.set(entry.callId, by);
      if (this.#answeredBy.size > MAX_ANSWERED)
        this.#answeredBy.delete(this.#answeredBy.keys().next().value as string);
    }
    entry.settle(
      choice.action === 'allow'
        ? { action: 'allow', scope: choice.scope }
        : { action: 'deny', ...(choice.reason ? { reason: choice.reason } : {}) },
    );
    this.#notify();
    return true;
  }

  /** Who answered the ask of the call `callId`, when a signed-in person did (forgotten once read). */
  answeredBy(callId: string | undefined): string | undefined {
    if (callId === undefined) return undefined;
    const by = this.#answeredBy.get(callId);
    this.#answeredBy.delete(callId);
    return by;
  }

  /** Denies every open question (the studio is stopping). */
  denyAll(reason: string): void {
    for (const id of [...this.#waiting.keys()]) this.answer(id, { action: 'deny', reason });
  }

  onChange(listener: (pending: readonly PendingApproval[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #notify(): void {
    const pending = this.pending();
    for (const listener of this.#listeners) listener(pending);
  }
}
