import { PROVIDER_FORMATS } from '../../schema/types.js';
import { createRule } from '../create-rule.js';

/** Limits: what the definitions cost in context, per tool and for the whole set. */
export const tokenBudget = createRule({
  name: 'token-budget',
  meta: {
    type: 'suggestion',
    description: 'Keep each tool definition, and the whole set, within a token budget.',
    messages: {
      toolOverBudget:
        'The definition of "{tool}" costs {tokens} tokens in the {format} format, more than the budget of {budget}. Every request pays it: shorten the description, or move detail into fewer, better-named parameters.',
      setOverBudget:
        'The set costs {tokens} tokens in the {format} format, more than the budget of {budget}. Every request pays it: send fewer tools per request, or load them on demand (tool search, defer_loading).',
    },
    schema: {
      type: 'object',
      properties: {
        format: { enum: PROVIDER_FORMATS.filter((format) => format !== 'canonical') },
        perTool: { type: 'integer', minimum: 1 },
        perSet: { type: 'integer', minimum: 1 },
      },
      additionalProperties: false,
    },
    defaultOptions: { format: 'openai', perTool: 1000, perSet: 10_000 },
  },
  check(context) {
    const { format, perTool, perSet } = context.options;
    const report = context.providers.tokens(format);
    // An estimate says so in the message, so a finding near the budget is read as one.
    const shown = (tokens: number) =>
      report.counting === 'estimated' ? `about ${tokens} (estimated)` : tokens;
    for (const tool of context.tools) {
      const tokens = report.perTool.get(tool.name);
      if (tokens === undefined || tokens <= perTool) continue;
      context.report({
        tool,
        path: '$',
        messageId: 'toolOverBudget',
        data: { tool: tool.name, tokens: shown(tokens), format, budget: perTool },
      });
    }
    if (report.total > perSet) {
      context.report({
        path: '$',
        messageId: 'setOverBudget',
        data: { tokens: shown(report.total), format, budget: perSet },
      });
    }
  },
});
