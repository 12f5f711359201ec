import { createRule } from '../create-rule.js';
import { WRITE_VERB_START } from '../text/cues.js';

/** Checklist item 4, as a contradiction: the category, the effects and the wording must tell one story. */
export const categoryEffectsAgree = createRule({
  name: 'category-effects-agree',
  meta: {
    type: 'problem',
    description: 'Keep the category, the declared effects and the description in agreement about writes.',
    messages: {
      notReadOnly:
        '"{tool}" is a {category} tool, but its effects say it is not read-only. A read or search tool is allowed without asking: if it changes anything, make it a write tool; otherwise set readOnly to true.',
      readOnlyDestructive:
        '"{tool}" declares effects that are both read-only and destructive, which cannot both hold. Set destructive to false, or readOnly to false.',
      describesWrite:
        '"{tool}" is a {category} tool, but its description starts with "{phrase}", which says it changes something. Make it a write (or execute) tool so the permission gate asks first, or reword the description if it only reads.',
    },
    defaultOptions: {},
    wording: true,
  },
  check(context) {
    for (const tool of context.tools) {
      const { category, effects } = tool.contract;
      const data = { tool: tool.name, category };
      if (effects.readOnly && effects.destructive) {
        context.report({ tool, path: '$.effects.destructive', messageId: 'readOnlyDestructive', data });
      }
      if (category !== 'read' && category !== 'search') continue;
      if (!effects.readOnly) {
        context.report({ tool, path: '$.effects.readOnly', messageId: 'notReadOnly', data });
      }
      const first = tool.sentences[0] ?? '';
      const match = WRITE_VERB_START.en.exec(first) ?? WRITE_VERB_START.zh.exec(first);
      if (match) {
        context.report({
          tool,
          path: '$.description',
          messageId: 'describesWrite',
          data: { ...data, phrase: match[0] },
        });
      }
    }
  },
});
