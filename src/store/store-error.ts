/** Why the store refused or failed. */
export type StoreErrorCode =
  | 'invalid_url'
  | 'unreachable'
  | 'unavailable'
  | 'missing_dependency'
  | 'newer_schema'
  | 'not_found'
  | 'not_pending'
  | 'not_allowed';

/**
 * What the shared store could not do, with what was wrong and what to do. `unreachable` at start
 * (the CLI exits 2 naming the host it tried), `unavailable` while running (calls answer
 * `store_unavailable`), `not_found`, `not_pending` and `not_allowed` (the decider is not one the approval's rule allows) for a
 * decision on an approval.
 *
 * @example
 * try { await store.approvals.approve(id); } catch (error) { if (error instanceof StoreError) console.error(error.message); }
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
