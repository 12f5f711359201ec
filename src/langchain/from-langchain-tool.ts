import type { StructuredToolInterface } from '@langchain/core/tools';
import type { JsonSchema } from '../contract/index.js';
import type { AnyTool } from '../contract/tool.js';
import { ToolError } from '../dispatch/tool-error.js';
import { ToolDefinitionError } from '../errors/index.js';
import { type WrapToolOptions, wrapForeignTool } from '../integrations/foreign-tool.js';
import { isDirectToolOutput, isStructuredTool, ToolMessage, toJsonSchema } from './peer.js';

/** Options of {@link fromLangChainTool}. */
export type FromLangChainToolOptions = WrapToolOptions;

/**
 * A LangChain tool (`tool(fn, { name, description, schema })`, a `StructuredTool`, a `DynamicTool`) as a
 * toolpact tool, so it can be registered, linted, gated and served over MCP. The parameters are
 * LangChain's own JSON Schema for the tool's schema (`toJsonSchema`, for zod and JSON Schema alike);
 * `category` is required, since LangChain has none. The description LangChain fills in when there is
 * none (`"<name> tool"`) counts as missing: it is replaced by a stated placeholder, with a warning.
 * A call runs `tool.invoke(args, { signal })`, so the tool's own parsing and callbacks apply; a
 * `ToolMessage` answered with `status: "error"` becomes a failure envelope.
 *
 * @example
 * import { tool } from '@langchain/core/tools';
 * const search = tool(async ({ query }) => find(query), { name: 'search_docs', description: '…', schema: z.object({ query: z.string() }) });
 * registry.register(fromLangChainTool(search, { category: 'search' }));
 */
export function fromLangChainTool(tool: StructuredToolInterface, options: FromLangChainToolOptions): AnyTool {
  if (!isStructuredTool(tool)) {
    throw new ToolDefinitionError(
      'not_a_tool',
      `fromLangChainTool() received ${tool === null ? 'null' : typeof tool}, which is not a LangChain tool; pass what tool() from "@langchain/core/tools" returns, or a StructuredTool.`,
    );
  }
  const name = tool.name;
  let parameters: JsonSchema;
  try {
    parameters = toJsonSchema(tool.schema) as JsonSchema;
  } catch (error) {
    throw new ToolDefinitionError(
      'unsupported_schema',
      `The tool ${JSON.stringify(name)} from LangChain has a schema that cannot be expressed as JSON Schema (${error instanceof Error ? error.message : String(error)}); give it a zod object or a JSON Schema.`,
      name,
      { cause: error },
    );
  }
  const described = typeof tool.description === 'string' ? tool.description.trim() : '';
  return wrapForeignTool(
    {
      framework: 'langchain',
      name,
      description: described === `${name} tool` ? undefined : described,
      parameters,
      async execute(args, context) {
        const answer = await tool.invoke(args, { signal: context.signal });
        if (!isDirectToolOutput(answer) || !ToolMessage.isInstance(answer)) return answer;
        const content = typeof answer.content === 'string' ? answer.content : JSON.stringify(answer.content);
        if (answer.status === 'error') throw new ToolError(content);
        return content;
      },
    },
    options,
  );
}
