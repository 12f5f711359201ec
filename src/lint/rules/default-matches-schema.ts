import { findBrokenDefaults } from '../../define/broken-defaults.js';
import { createRule } from '../create-rule.js';

/** Defaults, consts and examples that their own subschema refuses (for contracts not built by defineTool). */
export const defaultMatchesSchema = createRule({
  name: 'default-matches-schema',
  meta: {
    type: 'problem',
    description: 'Give every default, const and example a value its own schema accepts.',
    messages: {
      default:
        'The default of "{tool}" at {path} is {received}, but its schema expects {expected}. Dispatch fills it in when the model leaves the field out, and then refuses the call for a field the model never sent. Change the default to a value the schema accepts, or remove it.',
      const:
        'The const of "{tool}" at {path} is {received}, but the rest of its schema expects {expected}, so no value can pass. Make the const agree with its sibling keywords, or remove it.',
      examples:
        'An example of "{tool}" at {path} is {received}, but its schema expects {expected}. It teaches the model a call that is refused. Fix the example, or remove it.',
    },
    defaultOptions: {},
  },
  check(context) {
    for (const tool of context.tools) {
      const schemas = [
        { schema: tool.contract.parameters, base: '$.parameters' },
        ...(tool.contract.returns?.schema
          ? [{ schema: tool.contract.returns.schema, base: '$.returns.schema' }]
          : []),
      ];
      for (const { schema, base } of schemas) {
        if (schema === null || typeof schema !== 'object') continue;
        for (const broken of findBrokenDefaults(schema, base)) {
          context.report({
            tool,
            path: broken.path,
            messageId: broken.keyword,
            data: {
              tool: tool.name,
              path: broken.path,
              received: broken.received,
              expected: broken.expected,
            },
          });
        }
      }
    }
  },
});
