import { createRule } from '../create-rule.js';

/** Limits: OpenAI's Chat Completions refuses a function description over 1,024 characters. */
export const descriptionMaxLength = createRule({
  name: 'description-max-length',
  meta: {
    type: 'problem',
    description:
      'Keep each description within 1,024 characters, the longest OpenAI Chat Completions accepts.',
    messages: {
      tooLong:
        'The description of "{tool}" has {length} characters; OpenAI Chat Completions refuses more than {max} (string_above_max_length). Shorten it: move examples to the contract\'s examples and details to the parameter descriptions.',
    },
    schema: {
      type: 'object',
      properties: { max: { type: 'integer', minimum: 1 } },
      additionalProperties: false,
    },
    defaultOptions: { max: 1024 },
  },
  check(context) {
    for (const tool of context.tools) {
      const length = [...tool.contract.description].length;
      if (length <= context.options.max) continue;
      context.report({
        tool,
        path: '$.description',
        messageId: 'tooLong',
        data: { tool: tool.name, length, max: context.options.max },
      });
    }
  },
});
