import { createRule } from '../create-rule.js';
import { PROVIDER_FORMATS_OPTION } from '../provider-formats-option.js';

/** Declared result content a target provider's tool results cannot hold, as the schema adapters report it. */
export const resultContentSupported = createRule({
  name: 'result-content-supported',
  meta: {
    type: 'problem',
    description: "Declare only result content that each target provider's tool results can hold.",
    messages: {
      unsupported:
        '"{tool}" answers {type} blocks, which a tool result on {format} cannot hold: the model would read them as JSON text. Answer text for {format}, serve the tool over MCP, or leave {format} out of this rule\'s formats.',
    },
    ...PROVIDER_FORMATS_OPTION,
  },
  check(context) {
    const byName = new Map(context.tools.map((tool) => [tool.name, tool]));
    for (const format of context.options.formats) {
      for (const diagnostic of context.providers.diagnostics(format)) {
        if (diagnostic.code !== 'result_content_unsupported') continue;
        const tool = byName.get(diagnostic.tool);
        const index = Number(/\[(\d+)\]$/.exec(diagnostic.path)?.[1]);
        const type = tool?.contract.returns?.content?.[index];
        if (tool && type) {
          context.report({
            tool,
            path: diagnostic.path,
            messageId: 'unsupported',
            data: { tool: tool.name, type, format },
          });
        }
      }
    }
  },
});
