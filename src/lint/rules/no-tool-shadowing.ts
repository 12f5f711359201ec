import { createRule } from '../create-rule.js';
import { reportSignals } from '../hidden-instructions/report.js';

const FIX =
  'A tool describes itself; it does not steer other tools. Remove the sentence, and if the server is not yours, do not serve it until its author does.';

/** Tool shadowing (Invariant Labs 2025): one definition rewrites how the model uses other tools or servers. */
export const noToolShadowing = createRule({
  name: 'no-tool-shadowing',
  meta: {
    type: 'problem',
    description: 'Describe only this tool; do not instruct the model about other tools or other servers.',
    messages: {
      otherToolTrigger: `The {field} of "{tool}" tells the model what to do when another tool is used ("{phrase}"). ${FIX}`,
      anyOtherTool: `The {field} of "{tool}" gives the model an instruction about every other tool ("{phrase}"). ${FIX}`,
      replacesTool: `The {field} of "{tool}" claims to replace or override other tools ("{phrase}"). ${FIX}`,
      tamperArguments: `The {field} of "{tool}" tells the model to change where another call sends its data ("{phrase}"). ${FIX}`,
      otherServer: `The {field} of "{tool}" speaks of another server or another tool's use ("{phrase}"). ${FIX}`,
    },
    defaultOptions: {},
    wording: true,
  },
  check(context) {
    reportSignals(context, 'shadowing');
  },
});
