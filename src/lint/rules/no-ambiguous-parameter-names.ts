import { createRule } from '../create-rule.js';
import { propertyPath } from '../parameters.js';

const AMBIGUOUS: { readonly [name: string]: string } = {
  user: 'user_id or user_email',
  id: '<thing>_id',
  data: 'what the data is, e.g. csv_text',
  value: 'what the value is',
  obj: 'what the object is',
  object: 'what the object is',
  info: 'what the information is',
  item: '<thing>_id or <thing>_name',
  input: 'what the input is',
  arg: 'what the argument is',
  args: 'what the arguments are',
  param: 'what it sets',
  payload: 'what it carries',
  thing: 'what it is',
  val: 'what the value is',
  x: 'what it is',
  key: '<thing>_key',
};

/** Parameters: a bare generic name leaves the model guessing what to put in it. */
export const noAmbiguousParameterNames = createRule({
  name: 'no-ambiguous-parameter-names',
  meta: {
    type: 'suggestion',
    description: 'Name parameters so the name says what goes in: user_id rather than user.',
    messages: {
      ambiguous:
        'Parameter "{parameter}" of "{tool}" has a generic name; a model cannot tell what to put in it. Name what it holds, e.g. {suggestion}.',
    },
    defaultOptions: {},
  },
  check(context) {
    for (const tool of context.tools) {
      const properties = tool.contract.parameters.properties;
      if (properties === null || typeof properties !== 'object') continue;
      for (const name of Object.keys(properties)) {
        const lower = name.toLowerCase();
        if (!Object.hasOwn(AMBIGUOUS, lower)) continue;
        context.report({
          tool,
          path: propertyPath('$.parameters', name),
          messageId: 'ambiguous',
          data: { tool: tool.name, parameter: name, suggestion: AMBIGUOUS[lower]! },
        });
      }
    }
  },
});
