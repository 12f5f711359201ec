/** Options for {@link ToolError}. */
export interface ToolErrorOptions {
  /** A snake_case error type the model can branch on, e.g. `"file_not_found"`. Defaults to `"tool_error"`. */
  readonly type?: string;
  /** What the model should do instead, e.g. `"call list_dir to see which files exist"`. */
  readonly hint?: string;
  /** Whether calling again with the same arguments may succeed (a busy resource, a rate limit). */
  readonly retryable?: boolean;
  /** Extra JSON data for the model, e.g. `{ closest: ["src/index.ts"] }`. */
  readonly details?: { readonly [key: string]: unknown };
  readonly cause?: unknown;
}

/**
 * The error a tool throws when it wants to choose what the model reads: the type, the message, a hint
 * and whether retrying can help. Any other thrown value still produces a well-formed envelope; this one
 * produces the envelope the tool author meant.
 *
 * @example
 * throw new ToolError('No file "notes.md" in the workspace.', {
 *   type: 'file_not_found',
 *   hint: 'Call list_dir to see which files exist.',
 * });
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  readonly type: string;
  readonly hint: string | undefined;
  readonly retryable: boolean | undefined;
  readonly details: { readonly [key: string]: unknown } | undefined;

  constructor(message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.type = options.type ?? 'tool_error';
    this.hint = options.hint;
    this.retryable = options.retryable;
    this.details = options.details;
  }
}

/** True for a {@link ToolError}, including one from another copy of this package. */
export function isToolError(value: unknown): value is ToolError {
  return (
    value instanceof ToolError ||
    (value instanceof Error && value.name === 'ToolError' && typeof (value as ToolError).type === 'string')
  );
}
