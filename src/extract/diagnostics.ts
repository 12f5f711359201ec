import { relative, sep } from 'node:path';
import type TS from 'typescript';

/** The machine code of a problem `toolpact gen` found in a declaration. */
export type ExtractDiagnosticCode =
  | 'unsupported_type'
  | 'unsupported_declaration'
  | 'invalid_tag'
  | 'tag_mismatch'
  | 'missing_category'
  | 'missing_description'
  | 'invalid_name'
  | 'duplicate_name'
  | 'syntax_error';

/**
 * Reports a problem at a node: the extractor never throws for the source's types or comments, it
 * reports what it cannot read and goes on, so every problem is found in one pass.
 *
 * @example
 * report(parameter, 'unsupported_type', 'parameter "id" of tool "get_user" has type bigint, …', 'bigint');
 */
export type Report = (node: TS.Node, code: ExtractDiagnosticCode, message: string, type?: string) => void;

/**
 * One problem in the source, as data: where it is (absolute file, 1-based line and column), its code,
 * the tool it belongs to and a sentence that says what is wrong and what to do.
 */
export interface ExtractDiagnostic {
  readonly code: ExtractDiagnosticCode;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
  readonly tool?: string;
  /** The type as the checker prints it, for `unsupported_type`. */
  readonly type?: string;
}

/**
 * Renders a diagnostic in the compiler's form, `file:line:column - error code: message`, with the file
 * relative to `cwd` so no host path is printed.
 *
 * @example
 * formatDiagnostic(diagnostic, process.cwd());
 * // src/tools.ts:12:28 - error unsupported_type: parameter "id" of tool "get_user" has type bigint, ...
 */
export function formatDiagnostic(diagnostic: ExtractDiagnostic, cwd: string): string {
  const file = relative(cwd, diagnostic.file).split(sep).join('/');
  return `${file}:${diagnostic.line}:${diagnostic.column} - error ${diagnostic.code}: ${diagnostic.message}`;
}

/**
 * Sorts diagnostics by file, line and column, so output is the same on every run.
 *
 * @example
 * for (const diagnostic of sortDiagnostics(found)) console.error(formatDiagnostic(diagnostic, cwd));
 */
export function sortDiagnostics(diagnostics: readonly ExtractDiagnostic[]): ExtractDiagnostic[] {
  return [...diagnostics].sort(
    (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column,
  );
}
