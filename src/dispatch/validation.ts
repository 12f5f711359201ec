import type { ValidationIssue } from '../contract/validation.js';

export type { ArgumentValidator, ValidationResult } from '../contract/validation.js';

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
