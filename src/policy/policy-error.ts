/** Why a policy was refused. */
export type PolicyErrorCode =
  | 'not_an_object'
  | 'invalid_rule'
  | 'duplicate_rule_id'
  | 'invalid_defaults'
  | 'unknown_key'
  | 'unreadable_file';

/**
 * A policy that cannot work, refused when it is defined or loaded (a programmer's mistake, so it
 * throws). The message names the file, the rule (by index and id) and the field, says what came
 * and what is allowed.
 *
 * @example
 * try {
 *   definePolicy({ rules: [{ id: 'x', action: 'permit' }] });
 * } catch (error) {
 *   if (error instanceof PolicyError) console.error(error.code, error.rule); // invalid_rule x
 * }
 */
export class PolicyError extends Error {
  override readonly name = 'PolicyError';
  readonly code: PolicyErrorCode;
  /** The id (or `#index` when it has none) of the rule at fault. */
  readonly rule: string | undefined;

  constructor(code: PolicyErrorCode, message: string, rule?: string) {
    super(message);
    this.code = code;
    this.rule = rule;
  }
}
