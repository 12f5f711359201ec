import { createRule } from '../create-rule.js';
import { parametersOf } from '../parameters.js';

/** A property that is both required and has a default: the model is told it is mandatory, and it is not. */
export const requiredWithDefault = createRule({
  name: 'required-with-default',
  meta: {
    type: 'suggestion',
    description: 'Do not list a parameter with a default in required.',
    messages: {
      requiredWithDefault:
        'Parameter "{parameter}" of "{tool}" is required and also has a default. Dispatch fills the default in before it checks required, so the field is optional in fact, but the model is told it is mandatory and fills it on every call. Remove "{parameter}" from required, or remove the default.',
    },
    defaultOptions: {},
  },
  check(context) {
    for (const tool of context.tools) {
      for (const parameter of parametersOf(tool.contract.parameters)) {
        if (!parameter.required || !Object.hasOwn(parameter.schema, 'default')) continue;
        context.report({
          tool,
          path: parameter.path,
          messageId: 'requiredWithDefault',
          data: { tool: tool.name, parameter: parameter.name },
        });
      }
    }
  },
});
