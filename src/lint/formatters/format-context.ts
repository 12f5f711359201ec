import type { LintResult } from '../lint.js';

/** What a formatter knows besides the result: where the tools came from, and toolpact's version. */
export interface FormatContext {
  /** The module the tools were loaded from, relative to the working directory, with "/" separators. */
  readonly source?: string;
  /** toolpact's version, for SARIF's `tool.driver.version`. */
  readonly version?: string;
}

/** Turns a lint result into text. */
export type LintFormatter = (result: LintResult, context?: FormatContext) => string;
