/** Codes of the errors toolpact throws at a programmer (never at the model). */
export type DefinitionErrorCode =
  | 'invalid_name'
  | 'missing_description'
  | 'invalid_category'
  | 'invalid_schema'
  | 'unsupported_schema'
  | 'invalid_option'
  | 'duplicate_name'
  | 'not_a_tool'
  | 'missing_contract'
  | 'stale_contract';

/**
 * A programmer's mistake found at definition or registration time: an invalid name, a missing
 * description, a schema that cannot work, a duplicate. The message names the tool, says what was
 * received and what to do.
 *
 * @example
 * try { defineTool({ name: 'read.file', ... }) } catch (error) {
 *   if (error instanceof ToolDefinitionError) console.error(error.code, error.message);
 * }
 */
export class ToolDefinitionError extends Error {
  override readonly name = 'ToolDefinitionError';
  constructor(
    readonly code: DefinitionErrorCode,
    message: string,
    readonly tool?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
