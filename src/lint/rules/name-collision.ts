import { createRule } from '../create-rule.js';

/** Names: two names that differ only in case, or become one after a provider's alias, will be confused. */
export const nameCollision = createRule({
  name: 'name-collision',
  meta: {
    type: 'problem',
    description: 'Keep tool names distinct when case is ignored and when "." and "-" become "_".',
    messages: {
      duplicate:
        'Tool name "{tool}" is used twice in the set; a registry refuses that, and a provider would receive two tools with one name. Rename one of them.',
      caseCollision:
        'Tool names "{tool}" and "{other}" differ only in case. Models and some clients treat them as one; rename one of them.',
      aliasCollision:
        'Tool names "{tool}" and "{other}" become the same name ("{alias}") where a provider needs "." and "-" replaced by "_". Rename one so the aliases stay distinct.',
    },
    defaultOptions: {},
  },
  check(context) {
    const byCase = new Map<string, string>();
    const byAlias = new Map<string, string>();
    for (const tool of context.tools) {
      const lower = tool.name.toLowerCase();
      const alias = lower.replace(/[.-]/g, '_');
      const sameCase = byCase.get(lower);
      const sameAlias = byAlias.get(alias);
      if (sameCase !== undefined) {
        context.report({
          tool,
          path: '$.name',
          messageId: sameCase === tool.name ? 'duplicate' : 'caseCollision',
          data: { tool: tool.name, other: sameCase },
          related: [sameCase],
        });
      } else if (sameAlias !== undefined) {
        context.report({
          tool,
          path: '$.name',
          messageId: 'aliasCollision',
          data: { tool: tool.name, other: sameAlias, alias },
          related: [sameAlias],
        });
      }
      if (!byCase.has(lower)) byCase.set(lower, tool.name);
      if (!byAlias.has(alias)) byAlias.set(alias, tool.name);
    }
  },
});
