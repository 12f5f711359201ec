import { createRule } from '../create-rule.js';
import { reportSignals } from '../hidden-instructions/report.js';

const FIX = 'Remove it: whatever a person cannot see in a definition, a model still reads.';

/** Text hidden from a person but read by the model: invisible characters, escapes, white space, encodings. */
export const noHiddenText = createRule({
  name: 'no-hidden-text',
  meta: {
    type: 'problem',
    description:
      'Keep every character of a definition visible: no invisible or tag characters, bidi controls, escape sequences, long blank runs or encoded text.',
    messages: {
      invisible: `The {field} of "{tool}" contains zero-width or other invisible characters ("{phrase}"). ${FIX}`,
      'tag-characters': `The {field} of "{tool}" contains Unicode tag characters (U+E0000–U+E007F), which spell text no interface shows ("{phrase}"). ${FIX}`,
      'bidi-control': `The {field} of "{tool}" contains bidirectional controls, which show the text in another order than the model reads it ("{phrase}"). ${FIX}`,
      'escape-sequence': `The {field} of "{tool}" contains a terminal escape sequence, which can hide text on screen ("{phrase}"). ${FIX}`,
      'white-space': `The {field} of "{tool}" pushes text out of view with a long run of white space ("{phrase}"). ${FIX}`,
      encoded: `The {field} of "{tool}" carries readable text encoded in base64 ("{phrase}"). ${FIX}`,
    },
    defaultOptions: {},
    wording: true,
  },
  check(context) {
    reportSignals(context, 'hidden-text');
  },
});
