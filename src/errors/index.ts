/** Codes of the errors toolpact throws at a programmer (never at the model). */
export type DefinitionErrorCode =
  | 'invalid_name'
  | 'missing_description'
  | 'invalid_category'
  | 'invalid_schema'
  | 'invalid_default'
  | 'unsupported_schema'
  | 'invalid_option'
  | 'duplicate_name'
  | 'not_a_tool'
  | 'missing_contract'
  | 'stale_contract';

/** Where in the contract a definition error lies, and what was found there (`invalid_default`). */
export interface DefinitionErrorDetails {
  /** JSON path into the contract, e.g. `$.parameters.properties.kind.default`. */
  readonly path: string;
  readonly value: unknown;
  /** What the schema at that place expects, in words. */
  readonly expected: string;
}

/**
 * A programmer's mistake found at definition or registration time: an invalid name, a missing
 * description, a schema that cannot work, a duplicate. The message names the tool, says what was
 * received and what to do; `details` holds the path and value where one place is at fault.
 *
 * @example
 * try { defineTool({ name: 'read.file', ... }) } catch (error) {
 *   if (error instanceof ToolDefinitionError) console.error(error.code, error.message, error.details?.path);
 * }
 */
export class ToolDefinitionError extends Error {
  override readonly name = 'ToolDefinitionError';
  readonly details: readonly DefinitionErrorDetails[] | undefined;
  constructor(
    readonly code: DefinitionErrorCode,
    message: string,
    readonly tool?: string,
    options?: { cause?: unknown; details?: readonly DefinitionErrorDetails[] },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.details = options?.details;
  }
}
