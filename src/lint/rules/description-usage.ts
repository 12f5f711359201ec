import { createRule } from '../create-rule.js';
import { namesAnotherTool, neighbourIndex } from '../neighbours.js';
import { hasCue, USAGE_CUE } from '../text/cues.js';

/** Checklist item 2: when to use it, and the border to the neighbouring tools. */
export const descriptionUsage = createRule({
  name: 'description-usage',
  meta: {
    type: 'suggestion',
    description: 'Say when to use the tool and name the neighbouring tool to use instead.',
    messages: {
      missingUsage:
        'The description of "{tool}" does not say when to use it. Add a sentence such as "Use it to …" (适用于……).',
      missingUsageAndBorder:
        'The description of "{tool}" does not say when to use it, nor how it differs from {neighbours}. Add "Use it to …; to … call {neighbour} instead."',
      missingBorder:
        'The description of "{tool}" names none of its neighbours ({neighbours}). Say when to call one of them instead, so a model can tell them apart.',
    },
    schema: {
      type: 'object',
      properties: { requireNeighbour: { type: 'boolean' } },
      additionalProperties: false,
    },
    defaultOptions: { requireNeighbour: true },
    wording: true,
  },
  check(context) {
    const lowerNames = new Set([...context.toolNames].map((name) => name.toLowerCase()));
    const neighboursOf = neighbourIndex(context.tools);
    for (const tool of context.tools) {
      const usage = hasCue(tool.contract.description, USAGE_CUE);
      const neighbours = context.options.requireNeighbour ? neighboursOf(tool) : [];
      const bordered = neighbours.length === 0 || namesAnotherTool(tool, lowerNames);
      if (usage && bordered) continue;
      const names = neighbours.map((other) => other.name);
      const data = {
        tool: tool.name,
        neighbours: names.map((name) => `"${name}"`).join(', '),
        neighbour: names[0] ?? '',
      };
      const messageId = !usage ? (bordered ? 'missingUsage' : 'missingUsageAndBorder') : 'missingBorder';
      context.report({ tool, path: '$.description', messageId, data, related: bordered ? [] : names });
    }
  },
});
