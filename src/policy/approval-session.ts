/**
 * The approvals a person gave "for the rest of the session". The scope is explicit: a session is
 * this object, so a host makes one per conversation (or per user) and passes it to the gate, and
 * `clear()` ends it. An approval covers one tool under the rule that asked, never other tools and
 * never calls that another rule asks about; the gate binds it to the tool's identity as well.
 *
 * @example
 * const session = new ApprovalSession();
 * const gate = createPolicyGate(policy, { approver, session });
 * // … later, when the conversation ends:
 * session.clear();
 */
export class ApprovalSession {
  readonly #approved = new Map<string, { tool: string; rule: string; identity: string | undefined }>();

  /**
   * Whether `tool` was approved for the session under `rule`. The gate passes the tool's identity
   * (`toolIdentity(...).key`: its source, its name there, the definition shown, the caller), so an
   * approval never carries over to another server's tool behind the same name, a changed
   * definition or another caller.
   */
  has(tool: string, rule: string, identity?: string): boolean {
    return this.#approved.has(key(tool, rule, identity));
  }

  add(tool: string, rule: string, identity?: string): void {
    this.#approved.set(key(tool, rule, identity), { tool, rule, identity });
  }

  /** Withdraws one approval; true when there was one. */
  revoke(tool: string, rule: string, identity?: string): boolean {
    return this.#approved.delete(key(tool, rule, identity));
  }

  /** Every approval, as `{ tool, rule }`, in the order given. */
  list(): { tool: string; rule: string }[] {
    return [...this.#approved.values()].map(({ tool, rule }) => ({ tool, rule }));
  }

  clear(): void {
    this.#approved.clear();
  }

  get size(): number {
    return this.#approved.size;
  }
}

function key(tool: string, rule: string, identity: string | undefined): string {
  return `${tool}\u0001${rule}\u0001${identity ?? ''}`;
}
