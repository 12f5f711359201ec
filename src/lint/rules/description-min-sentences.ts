import { createRule } from '../create-rule.js';

/** Length: Anthropic asks for at least three or four sentences per tool description. */
export const descriptionMinSentences = createRule({
  name: 'description-min-sentences',
  meta: {
    type: 'suggestion',
    description: 'Write at least three sentences per description: what, when and when not, and the edges.',
    messages: {
      tooShort:
        'The description of "{tool}" has {count} sentence(s); at least {min} let it say what the tool does, when to use it and when not, and its limits.',
    },
    schema: {
      type: 'object',
      properties: { min: { type: 'integer', minimum: 1, maximum: 10 } },
      additionalProperties: false,
    },
    defaultOptions: { min: 3 },
    wording: true,
  },
  check(context) {
    for (const tool of context.tools) {
      const count = tool.sentences.length;
      if (count >= context.options.min) continue;
      context.report({
        tool,
        path: '$.description',
        messageId: 'tooShort',
        data: { tool: tool.name, count, min: context.options.min },
      });
    }
  },
});
