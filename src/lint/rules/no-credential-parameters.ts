import { createRule } from '../create-rule.js';
import { parametersOf } from '../parameters.js';
import { nameWords } from '../text/words.js';

const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'secret',
  'apikey',
  'credential',
  'credentials',
  'cookie',
  'jwt',
  'bearer',
  'authorization',
]);
const TOKEN_QUALIFIERS = new Set([
  'access',
  'auth',
  'api',
  'bearer',
  'refresh',
  'session',
  'id',
  'oauth',
  'csrf',
  'github',
  'slack',
  'personal',
  'secret',
  'security',
]);
const CONTEXT_NAMES = new Set([
  'session_id',
  'tenant_id',
  'conversation_id',
  'thread_id',
  'request_id',
  'trace_id',
  'org_id',
  'organization_id',
  'workspace_id',
]);

/** Parameters the model should not fill: credentials and context the application already holds. */
export const noCredentialParameters = createRule({
  name: 'no-credential-parameters',
  meta: {
    type: 'problem',
    description:
      'Do not ask the model for credentials or context the application already has; inject them in code.',
    messages: {
      credential:
        'Parameter "{parameter}" of "{tool}" asks the model for a credential. It does not have one: it will invent a value or leak a real one into the transcript. Read it from configuration inside execute() and remove the parameter.',
      context:
        'Parameter "{parameter}" of "{tool}" asks the model for context the application already has. Pass it through the call\'s state and remove the parameter; a model can only guess it.',
    },
    schema: {
      type: 'object',
      properties: { allow: { type: 'array', items: { type: 'string' }, uniqueItems: true } },
      additionalProperties: false,
    },
    defaultOptions: { allow: [] as string[] },
  },
  check(context) {
    const allow = new Set(context.options.allow);
    for (const tool of context.tools) {
      for (const parameter of parametersOf(tool.contract.parameters)) {
        if (allow.has(parameter.name)) continue;
        const kind = classify(parameter.name);
        if (!kind) continue;
        context.report({
          tool,
          path: parameter.path,
          messageId: kind,
          data: { tool: tool.name, parameter: parameter.name },
        });
      }
    }
  },
});

/** Whether a parameter name asks for a credential, for context, or for neither. */
export function classify(name: string): 'credential' | 'context' | undefined {
  const words = nameWords(name);
  if (words.some((word) => SECRET_WORDS.has(word))) return 'credential';
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const before = words[index - 1];
    if (
      word === 'key' &&
      (before === 'api' || before === 'secret' || before === 'private' || before === 'access')
    )
      return 'credential';
    if (
      (word === 'token' || word === 'tokens') &&
      (words.length === 1 || (before !== undefined && TOKEN_QUALIFIERS.has(before)))
    )
      return 'credential';
  }
  return CONTEXT_NAMES.has(words.join('_')) ? 'context' : undefined;
}
