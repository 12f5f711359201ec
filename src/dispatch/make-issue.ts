import { formatPath, type IssueCode, type IssuePath, type ValidationIssue } from './issues.js';
import { renderIssueMessage } from './messages.js';

/** Builds an issue with its rendered message. */
export function makeIssue(
  code: IssueCode,
  path: IssuePath,
  expected: string,
  received: string,
): ValidationIssue {
  return Object.freeze({
    code,
    path: formatPath(path),
    expected,
    received,
    message: renderIssueMessage(code, expected, received),
  });
}
