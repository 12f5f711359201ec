import { createRule } from '../create-rule.js';
import { reportSignals } from '../hidden-instructions/report.js';

const FIX =
  'A tool never asks the model to keep something from the user; remove the sentence, and say plainly what the tool does.';

/** Concealment: a definition that asks the model to hide what it does from the user. */
export const noConcealment = createRule({
  name: 'no-concealment',
  meta: {
    type: 'problem',
    description: 'Do not ask the model to hide anything from the user.',
    messages: {
      hideFromUser: `The {field} of "{tool}" tells the model to keep something from the user ("{phrase}"). ${FIX}`,
      covertly: `The {field} of "{tool}" asks the model to act covertly ("{phrase}"). ${FIX}`,
      bypassConfirmation: `The {field} of "{tool}" tells the model to act without the user's confirmation ("{phrase}"). ${FIX}`,
    },
    defaultOptions: {},
    wording: true,
  },
  check(context) {
    reportSignals(context, 'concealment');
  },
});
