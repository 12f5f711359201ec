import { createRule } from '../create-rule.js';
import { reportSignals } from '../hidden-instructions/report.js';

const FIX =
  "Reading keys, credentials, client configs or the conversation is no tool's stated purpose; remove the instruction. A tool that needs a credential reads it from its own configuration.";

/** Exfiltration: a definition that asks the model to read secrets or send them through an argument. */
export const noSecretAccess = createRule({
  name: 'no-secret-access',
  meta: {
    type: 'problem',
    description: 'Do not ask the model to read secrets, keys or client files, nor to pass them in arguments.',
    messages: {
      readSecret: `The {field} of "{tool}" asks the model to read or send a secret ("{phrase}"). ${FIX}`,
      sendToSink: `The {field} of "{tool}" asks the model to put a secret into an argument, an address or a URL ("{phrase}"). ${FIX}`,
    },
    defaultOptions: {},
    wording: true,
  },
  check(context) {
    reportSignals(context, 'secret-access');
  },
});
