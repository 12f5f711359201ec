import { createRule } from '../create-rule.js';
import { CHANGE_CUE, hasCue, REPEAT_CUE } from '../text/cues.js';

/** Checklist item 4: a tool that changes things says what it changes and whether a repeat is safe. */
export const sideEffectsStated = createRule({
  name: 'side-effects-stated',
  meta: {
    type: 'problem',
    description:
      'Make write, execute and delegate tools say what they change and whether repeating the call is safe.',
    messages: {
      missingBoth:
        '"{tool}" is a {category} tool, but its description says neither what it changes nor whether calling it twice is safe. Add e.g. "It overwrites the file; repeating the call gives the same file."',
      missingChange:
        '"{tool}" is a {category} tool, but its description does not say what it changes (creates, overwrites, deletes, sends, runs …).',
      missingRepeat:
        '"{tool}" is a {category} tool, but its description does not say whether repeating the call is safe (idempotent) or does the change again.',
    },
    defaultOptions: {},
    wording: true,
  },
  check(context) {
    for (const tool of context.tools) {
      const { category, description } = tool.contract;
      if (category === 'read' || category === 'search') continue;
      const change = hasCue(description, CHANGE_CUE);
      const repeat = hasCue(description, REPEAT_CUE);
      if (change && repeat) continue;
      context.report({
        tool,
        path: '$.description',
        messageId: !change && !repeat ? 'missingBoth' : change ? 'missingRepeat' : 'missingChange',
        data: { tool: tool.name, category },
      });
    }
  },
});
