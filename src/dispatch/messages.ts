import type { IssueCode } from './issues.js';

/**
 * The one place where issue data becomes words for the model. Every issue reads
 * "expected <what is allowed>, received <what came>", with a lead-in that names the kind of problem.
 */
export function renderIssueMessage(code: IssueCode, expected: string, received: string): string {
  switch (code) {
    case 'missing_property':
      return `required field is missing; expected ${expected}`;
    case 'unknown_property':
      return `this field is not part of the tool's parameters; expected ${expected}`;
    case 'forbidden_key':
      return `this key is not allowed in arguments; expected ${expected}`;
    case 'too_deep':
      return `arguments are nested too deeply; expected ${expected}, received ${received}`;
    case 'too_large':
      return `arguments are too large; expected ${expected}, received ${received}`;
    case 'invalid_type':
    case 'invalid_value':
    case 'too_small':
    case 'too_big':
    case 'invalid_format':
    case 'invalid_union':
    case 'invalid':
      return `expected ${expected}, received ${received}`;
    default: {
      const exhaustive: never = code;
      return `expected ${expected}, received ${received} (${String(exhaustive)})`;
    }
  }
}
