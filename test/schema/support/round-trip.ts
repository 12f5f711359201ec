import type { Envelope, JsonSchema, Registry } from '../../../src/index.js';
import {
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  runAnthropicToolUses,
  runGeminiFunctionCalls,
  runMcpToolCall,
  runOpenAIToolCalls,
  runResponsesFunctionCalls,
} from '../../../src/schema/index.js';
import { encodeForStrict } from './strict-encode.js';
import type { Variant } from './variants.js';

/**
 * Sends one call through a provider's way back, as that provider would deliver it: the name the
 * provider knows the tool by, the arguments in the provider's encoding (a JSON string for OpenAI, with
 * strict nulls when the tools were strict), in the provider's response shape. Answers the envelope the
 * registry produced, read back from the provider message.
 */
export async function viaProvider(
  registry: Registry,
  variant: Variant,
  providerTool: unknown,
  args: { readonly [name: string]: unknown },
): Promise<Envelope> {
  const strict = variant.options.strict === true;
  switch (variant.format) {
    case 'canonical':
      return registry.call((providerTool as { name: string }).name, args);
    case 'openai': {
      const tool = providerTool as OpenAIChatTool;
      const sent = strict ? encodeForStrict(args, tool.function.parameters as JsonSchema) : args;
      const completion = {
        choices: [
          {
            message: {
              role: 'assistant',
              tool_calls: [
                {
                  id: 'call_1',
                  type: 'function',
                  function: { name: tool.function.name, arguments: JSON.stringify(sent) },
                },
              ],
            },
          },
        ],
      };
      const [message] = await runOpenAIToolCalls(registry, completion, { strict });
      return JSON.parse(message!.content) as Envelope;
    }
    case 'openai-responses': {
      const tool = providerTool as OpenAIResponsesTool;
      const sent = strict ? encodeForStrict(args, tool.parameters) : args;
      const response = {
        output: [
          { type: 'function_call', call_id: 'fc_1', name: tool.name, arguments: JSON.stringify(sent) },
        ],
      };
      const [item] = await runResponsesFunctionCalls(registry, response, { strict });
      return JSON.parse(item!.output) as Envelope;
    }
    case 'anthropic': {
      const message = {
        content: [
          { type: 'tool_use', id: 'toolu_1', name: (providerTool as { name: string }).name, input: args },
        ],
      };
      const reply = await runAnthropicToolUses(registry, message);
      return JSON.parse(reply.content[0]!.content) as Envelope;
    }
    case 'gemini': {
      const response = {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ functionCall: { id: 'g1', name: (providerTool as { name: string }).name, args } }],
            },
          },
        ],
      };
      const reply = await runGeminiFunctionCalls(registry, response);
      const answer = reply.parts[0]!.functionResponse.response;
      return 'output' in answer
        ? { ok: true, result: answer.output as never }
        : ({ ok: false, error: answer.error } as Envelope);
    }
    case 'mcp': {
      const result = await runMcpToolCall(registry, {
        name: (providerTool as { name: string }).name,
        arguments: args,
      });
      return JSON.parse(result.content[0]!.text) as Envelope;
    }
    default: {
      const exhaustive: never = variant.format;
      throw new Error(`no way back for ${String(exhaustive)}`);
    }
  }
}
