import { createRule } from '../create-rule.js';
import { reportSignals } from '../hidden-instructions/report.js';

const FIX = 'Write the description as plain prose about the tool; remove the marker and what it wraps.';

/** Prompt injection markers: tags, chat-template tokens and fake turns that dress text up as instructions. */
export const noInjectedDirectives = createRule({
  name: 'no-injected-directives',
  meta: {
    type: 'problem',
    description:
      'Do not wrap directives in tags, chat-template markers or fake conversation turns, nor override the model’s instructions.',
    messages: {
      chatTemplate: `The {field} of "{tool}" holds a chat-template marker ("{phrase}"), which passes the text off as a system or user turn. ${FIX}`,
      directiveTag: `The {field} of "{tool}" wraps text in a directive tag ("{phrase}"), the mark of a hidden instruction. ${FIX}`,
      fakeTurn: `The {field} of "{tool}" contains a fake conversation turn ("{phrase}"). ${FIX}`,
      promptOverride: `The {field} of "{tool}" tries to override the model's instructions ("{phrase}"). ${FIX}`,
      addressedToModel: `The {field} of "{tool}" addresses the model with a note of its own ("{phrase}"). ${FIX}`,
      comment: `The {field} of "{tool}" hides text in an HTML comment ("{phrase}"), which a rendered page does not show but the model reads. ${FIX}`,
    },
    defaultOptions: {},
    wording: true,
  },
  check(context) {
    reportSignals(context, 'injected-directive');
  },
});
