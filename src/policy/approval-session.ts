/**
 * The approvals a person gave "for the rest of the session". The scope is explicit: a session is
 * this object, so a host makes one per conversation (or per user) and passes it to the gate, and
 * `clear()` ends it. An approval covers one tool under the rule that asked, never other tools and
 * never calls that another rule asks about.
 *
 * @example
 * const session = new ApprovalSession();
 * const gate = createPolicyGate(policy, { approver, session });
 * // … later, when the conversation ends:
 * session.clear();
 */
export class ApprovalSession {
  readonly #approved = new Set<string>();

  /** Whether `tool` was approved for the session under `rule`. */
  has(tool: string, rule: string): boolean {
    return this.#approved.has(key(tool, rule));
  }

  add(tool: string, rule: string): void {
    this.#approved.add(key(tool, rule));
  }

  /** Withdraws one approval; true when there was one. */
  revoke(tool: string, rule: string): boolean {
    return this.#approved.delete(key(tool, rule));
  }

  /** Every approval, as `{ tool, rule }`, in the order given. */
  list(): { tool: string; rule: string }[] {
    return [...this.#approved].map((entry) => {
      const [tool = '', rule = ''] = entry.split('\u0000');
      return { tool, rule };
    });
  }

  clear(): void {
    this.#approved.clear();
  }

  get size(): number {
    return this.#approved.size;
  }
}

function key(tool: string, rule: string): string {
  return `${tool}\u0000${rule}`;
}
