/** Where a delegated call's state records how deep it is; a symbol, so it never collides with a host's keys. */
export const DELEGATION = Symbol.for('toolpact.delegation');

/** What a delegated call carries in its `state`. */
export interface DelegationState {
  readonly [DELEGATION]: { readonly depth: number; readonly task: string };
  /** The state of the call that delegated. */
  readonly parent: unknown;
}

/**
 * How many delegations deep a call's state is: 0 for the agent's own calls.
 *
 * @example
 * delegationDepth(delegatedState(undefined, 'summarize')); // 1
 */
export function delegationDepth(state: unknown): number {
  if (state === null || typeof state !== 'object') return 0;
  const marker = (state as Partial<DelegationState>)[DELEGATION];
  return marker && Number.isInteger(marker.depth) && marker.depth > 0 ? marker.depth : 0;
}

/**
 * The state for a call one level deeper than `parent` (which it keeps as `parent`).
 *
 * @example
 * await sub.call('read_file', args, { state: delegatedState(context.state, task) });
 */
export function delegatedState(parent: unknown, task: string): DelegationState {
  return { [DELEGATION]: { depth: delegationDepth(parent) + 1, task }, parent };
}
