import type { Tool } from 'ai';
import type { JsonSchema } from '../contract/index.js';
import type { AnyTool } from '../contract/tool.js';
import { ToolError } from '../dispatch/tool-error.js';
import { ToolDefinitionError } from '../errors/index.js';
import { type WrapToolOptions, wrapForeignTool } from '../integrations/foreign-tool.js';
import { asSchema } from './peer.js';

/** Options of {@link fromAiSdkTool}. */
export type FromAiSdkToolOptions = WrapToolOptions;

/**
 * An AI SDK tool (`tool({ description, inputSchema, execute })`) as a toolpact tool, so it can be
 * registered, linted, gated and served over MCP. The AI SDK tool has no name (a `ToolSet` key names
 * it), so the name is given here, and no risk category, so `category` is required. The parameters are
 * the SDK's own JSON Schema for its `inputSchema` (`asSchema(...).jsonSchema`); after toolpact has
 * validated a call, the SDK schema's own `validate` runs too (zod refinements and transforms), and its
 * output is what the tool's `execute` receives. Provider-executed tools and tools without `execute`
 * cannot be wrapped and throw {@link ToolDefinitionError}.
 *
 * @example
 * import { tool } from 'ai';
 * const weather = tool({ description: 'Get the weather in a city…', inputSchema: z.object({ city: z.string() }), execute });
 * registry.register(fromAiSdkTool('get_weather', weather, { category: 'read' }));
 */
export function fromAiSdkTool(name: string, tool: Tool, options: FromAiSdkToolOptions): AnyTool {
  const label = `The AI SDK tool ${JSON.stringify(name)}`;
  if (tool === null || typeof tool !== 'object') {
    throw new ToolDefinitionError(
      'not_a_tool',
      `${label} is ${tool === null ? 'null' : typeof tool}, not a tool; pass what tool({ ... }) from "ai" returns.`,
      name,
    );
  }
  if (tool.type === 'provider') {
    throw new ToolDefinitionError(
      'invalid_option',
      `${label} is a provider-defined tool (${tool.id}), which the provider runs; only tools with their own execute can be wrapped.`,
      name,
    );
  }
  const execute = tool.execute;
  if (typeof execute !== 'function') {
    throw new ToolDefinitionError(
      'invalid_option',
      `${label} has no execute function (its calls are answered by the client); give it one to wrap it.`,
      name,
    );
  }
  const schema = asSchema(tool.inputSchema);
  const parameters = schema.jsonSchema;
  if (
    parameters === null ||
    typeof parameters !== 'object' ||
    typeof (parameters as PromiseLike<unknown>).then === 'function'
  ) {
    throw new ToolDefinitionError(
      'unsupported_schema',
      `${label} has a lazily computed input schema; await its JSON Schema and pass jsonSchema(resolved) as inputSchema instead.`,
      name,
    );
  }
  return wrapForeignTool(
    {
      framework: 'ai-sdk',
      name,
      ...(tool.title ? { title: tool.title } : {}),
      description: typeof tool.description === 'string' ? tool.description : undefined,
      parameters: parameters as JsonSchema,
      async execute(args, context) {
        let input: unknown = args;
        if (schema.validate) {
          const checked = await schema.validate(args);
          if (!checked.success) {
            throw new ToolError(
              `The arguments do not meet the tool's own input schema: ${checked.error.message}`,
              {
                type: 'invalid_input',
                hint: 'Correct the arguments as the message says and call again.',
              },
            );
          }
          input = checked.value;
        }
        const result = await execute(input, {
          toolCallId: context.callId ?? `toolpact-${name}`,
          messages: [],
          abortSignal: context.signal,
          experimental_context: context.state,
        });
        return isAsyncIterable(result) ? lastOf(result) : result;
      },
    },
    options,
  );
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return value !== null && typeof value === 'object' && Symbol.asyncIterator in value;
}

// A streaming execute yields preliminary results; the last one is the result.
async function lastOf(iterable: AsyncIterable<unknown>): Promise<unknown> {
  let last: unknown;
  for await (const value of iterable) last = value;
  return last;
}
