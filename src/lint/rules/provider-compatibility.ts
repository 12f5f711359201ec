import { createRule } from '../create-rule.js';
import { PROVIDER_FORMATS_OPTION } from '../provider-formats-option.js';

/** Provider refusals: what the schema adapters say a provider would reject. */
export const providerCompatibility = createRule({
  name: 'provider-compatibility',
  meta: {
    type: 'problem',
    description: 'Send no tool that a target provider would refuse, as the schema adapters report it.',
    messages: {
      refused: '{format} would refuse "{tool}" ({code}): {message}',
      setRefused: '{format} would refuse the set ({code}): {message}',
    },
    ...PROVIDER_FORMATS_OPTION,
  },
  check(context) {
    const byName = new Map(context.tools.map((tool) => [tool.name, tool]));
    for (const format of context.options.formats) {
      for (const diagnostic of context.providers.diagnostics(format)) {
        if (diagnostic.severity !== 'error') continue;
        const tool = byName.get(diagnostic.tool);
        const data = {
          tool: diagnostic.tool,
          format,
          code: diagnostic.code,
          message: diagnostic.message.replace(/\.?$/, '.'),
        };
        if (tool) context.report({ tool, path: diagnostic.path, messageId: 'refused', data });
        else context.report({ path: '$', messageId: 'setRefused', data });
      }
    }
  },
});
