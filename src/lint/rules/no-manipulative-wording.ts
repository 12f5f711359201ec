import { createRule } from '../create-rule.js';
import { MANIPULATION_CUES } from '../text/cues.js';

/** Manipulation: wording that makes a model prefer the tool rather than understand it (Faghih et al. 2025). */
export const noManipulativeWording = createRule({
  name: 'no-manipulative-wording',
  meta: {
    type: 'problem',
    description:
      'Describe the tool without promotional or coercive wording that skews which tool a model picks.',
    messages: {
      manipulative:
        'The description of "{tool}" uses {kind} ("{phrase}"), which sways a model to pick the tool whether or not it fits. State what it does and when to use it instead.',
    },
    defaultOptions: {},
    wording: true,
  },
  check(context) {
    for (const tool of context.tools) {
      const { description } = tool.contract;
      for (const cue of MANIPULATION_CUES) {
        const match = cue.en.exec(description) ?? cue.zh.exec(description);
        if (!match) continue;
        context.report({
          tool,
          path: '$.description',
          messageId: 'manipulative',
          data: { tool: tool.name, kind: cue.kind, phrase: match[0] },
        });
        break;
      }
    }
  },
});
