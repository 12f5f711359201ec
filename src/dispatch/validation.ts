import type { ValidationIssue } from './issues.js';

/** The outcome of validating a call's arguments. */
export type ValidationResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/** Validates arguments and returns the value the tool receives (with defaults applied). */
export type ArgumentValidator<T> = (value: unknown) => ValidationResult<T> | Promise<ValidationResult<T>>;

/** Most issues reported for one call; the rest are counted, not listed, so an envelope stays small. */
export const MAX_REPORTED_ISSUES = 20;

export function dedupeIssues(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    const key = `${issue.code}\u0000${issue.path}\u0000${issue.expected}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  return out;
}
