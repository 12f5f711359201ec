import { createRule } from '../create-rule.js';
import { AVOID_CUE, hasCue } from '../text/cues.js';

/** Checklist item 5: the common misuse, or a limit, said once. */
export const descriptionEdges = createRule({
  name: 'description-edges',
  meta: {
    type: 'suggestion',
    description: 'Name the common misuse or a limit of the tool once, as a counter-example.',
    messages: {
      missing:
        'The description of "{tool}" names no misuse or limit. Say the common mistake once, e.g. "Do not use it for binary files." (不要用它读二进制文件), or a limit such as "at most 100 results".',
    },
    defaultOptions: {},
    wording: true,
  },
  check(context) {
    for (const tool of context.tools) {
      if (tool.contract.description.trim() === '' || hasCue(tool.contract.description, AVOID_CUE)) continue;
      context.report({ tool, path: '$.description', messageId: 'missing', data: { tool: tool.name } });
    }
  },
});
