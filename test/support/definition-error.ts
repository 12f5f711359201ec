import { expect } from 'vitest';
import { ToolDefinitionError } from '../../src/index.js';

/** The `ToolDefinitionError` that `run` throws; fails the test when it throws nothing or something else. */
export function definitionError(run: () => unknown): ToolDefinitionError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolDefinitionError);
    return error as ToolDefinitionError;
  }
  throw new Error('expected a ToolDefinitionError');
}
