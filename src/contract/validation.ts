/**
 * The shapes a tool's validators speak: what a check answers and how one problem is told, as data.
 * They sit beside the tool types, below dispatch, which fills them in.
 */

/** A value JSON can carry. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A path into the arguments: property names and array indexes. */
export type IssuePath = readonly (string | number)[];

/** The machine code of a validation issue. */
export type IssueCode =
  | 'invalid_type'
  | 'missing_property'
  | 'unknown_property'
  | 'invalid_value'
  | 'too_small'
  | 'too_big'
  | 'invalid_format'
  | 'invalid_union'
  | 'forbidden_key'
  | 'too_deep'
  | 'too_large'
  | 'invalid';

/**
 * One problem with the arguments, as data. `path` is rendered as `$.a.b[0]`; `expected` and
 * `received` are short phrases written for the model.
 */
export interface ValidationIssue {
  readonly code: IssueCode;
  readonly path: string;
  readonly expected: string;
  readonly received: string;
  readonly message: string;
}

/** The outcome of validating a call's arguments. */
export type ValidationResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/** Validates arguments and returns the value the tool receives (with defaults applied). */
export type ArgumentValidator<T> = (value: unknown) => ValidationResult<T> | Promise<ValidationResult<T>>;

/**
 * Checks what a tool returned (already made JSON-safe) against its `output` schema. The value it
 * answers is what the model reads: the result itself, or a schema library's output (zod strips keys
 * its object schema does not name, and fills defaults).
 */
export type ResultValidator = (
  result: JsonValue,
) => ValidationResult<unknown> | Promise<ValidationResult<unknown>>;
