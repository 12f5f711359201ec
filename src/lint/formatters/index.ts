import type { LintFormatter } from './format-context.js';
import { json } from './json.js';
import { sarif } from './sarif.js';
import { stylish } from './stylish.js';

export type { FormatContext, LintFormatter } from './format-context.js';
export { json, sarif, stylish };

/** The built-in formatters, by the name `--format` takes. */
export const FORMATTERS: {
  readonly stylish: LintFormatter;
  readonly json: LintFormatter;
  readonly sarif: LintFormatter;
} = Object.freeze({ stylish, json, sarif });

/** A formatter name. */
export type FormatterName = keyof typeof FORMATTERS;
