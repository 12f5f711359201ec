import type { FunctionTool } from '@openai/agents';
import type { JsonSchema } from '../contract/index.js';
import type { AnyTool } from '../contract/tool.js';
import { ToolDefinitionError } from '../errors/index.js';
import { type WrapToolOptions, wrapForeignTool } from '../integrations/foreign-tool.js';
import { RunContext } from './peer.js';

/** A function tool of any context, parameter and result type. */
// biome-ignore lint/suspicious/noExplicitAny: tool() infers these; a wrapper takes them all.
type AnyFunctionTool = FunctionTool<any, any, any>;

/** Options of {@link fromOpenAIAgentsTool}. */
export type FromOpenAIAgentsToolOptions = WrapToolOptions;

/**
 * An Agents SDK function tool (`tool({ name, description, parameters, execute })`) as a toolpact tool,
 * so it can be registered, linted, gated and served over MCP. The parameters are the tool's own
 * `parameters` JSON Schema (for a strict tool, the strict form the SDK made: every field required,
 * optional ones nullable); `category` is required, since the SDK has none. A call runs the SDK's own
 * `invoke` with the JSON of the validated arguments and a fresh `RunContext` whose `context` is the
 * call's `state`, so the tool's own parsing applies. The SDK's approval and enablement hooks are not
 * consulted: toolpact's gate decides.
 *
 * @example
 * import { tool } from '@openai/agents';
 * const weather = tool({ name: 'get_weather', description: '…', parameters: z.object({ city: z.string() }), execute });
 * registry.register(fromOpenAIAgentsTool(weather, { category: 'read' }));
 */
export function fromOpenAIAgentsTool(tool: AnyFunctionTool, options: FromOpenAIAgentsToolOptions): AnyTool {
  if (
    tool === null ||
    typeof tool !== 'object' ||
    tool.type !== 'function' ||
    typeof tool.invoke !== 'function'
  ) {
    throw new ToolDefinitionError(
      'not_a_tool',
      `fromOpenAIAgentsTool() received ${describe(tool)}, which is not a function tool; pass what tool() from "@openai/agents" returns (hosted and computer tools run elsewhere and cannot be wrapped).`,
    );
  }
  const name = tool.name;
  return wrapForeignTool(
    {
      framework: 'openai-agents',
      name,
      description: tool.description,
      parameters: structuredClone(tool.parameters) as JsonSchema,
      async execute(args, context) {
        return tool.invoke(new RunContext(context.state), JSON.stringify(args), {
          signal: context.signal,
          ...(context.callId !== undefined
            ? {
                toolCall: {
                  type: 'function_call',
                  callId: context.callId,
                  name,
                  arguments: JSON.stringify(args),
                },
              }
            : {}),
        });
      },
    },
    options,
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return `a ${typeof value}`;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' ? `a tool of type "${type}"` : 'an object';
}
