/**
 * The adapters' output checked against the official SDK types at compile time (tsc runs in `npm test`):
 * each assignment below fails to compile if a shape drifts from what the SDK sends. The runtime part
 * makes sure the values are the adapters' real output for every fixture.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Content, FunctionDeclaration, Schema, Type } from '@google/genai';
import type { CallToolResult, Tool as McpSdkTool } from '@modelcontextprotocol/sdk/types.js';
import type {
  ChatCompletionFunctionTool,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { Registry } from '../../src/index.js';
import {
  runAnthropicToolUses,
  runGeminiFunctionCalls,
  runMcpToolCall,
  runOpenAIToolCalls,
  runResponsesFunctionCalls,
  toProviderTools,
} from '../../src/schema/index.js';
import { FIXTURES } from './fixtures.js';

// The SDK types Schema.type as a TypeScript string enum, which no plain JSON value can be assigned to;
// this is the SDK's type with that one field read as the enum's string values (`${Type}`).
type SdkSchema = Omit<Schema, 'type' | 'anyOf' | 'items' | 'properties'> & {
  type?: `${Type}`;
  anyOf?: SdkSchema[];
  items?: SdkSchema;
  properties?: { [name: string]: SdkSchema };
};
type SdkFunctionDeclaration = Omit<FunctionDeclaration, 'parameters' | 'response'> & {
  parameters?: SdkSchema;
  response?: SdkSchema;
};

const registry = new Registry().register(FIXTURES.map((fixture) => fixture.tool));
const contracts = registry.schemas();

describe('adapter output has the official SDK types', () => {
  it('tool definitions', () => {
    const openai: ChatCompletionFunctionTool[] = toProviderTools(contracts, 'openai', { strict: true }).tools;
    const responses: FunctionTool[] = toProviderTools(contracts, 'openai-responses').tools;
    const anthropic: Anthropic.Tool[] = toProviderTools(contracts, 'anthropic', { strict: true }).tools;
    const gemini: SdkFunctionDeclaration[] = toProviderTools(contracts, 'gemini').tools;
    const geminiJson: SdkFunctionDeclaration[] = toProviderTools(contracts, 'gemini', {
      gemini: 'json-schema',
    }).tools;
    const mcp: McpSdkTool[] = toProviderTools(contracts, 'mcp').tools;
    const fromRegistry: readonly ChatCompletionFunctionTool[] = registry.schemas('openai');
    for (const list of [openai, responses, anthropic, gemini, geminiJson, mcp, fromRegistry]) {
      expect(list).toHaveLength(FIXTURES.length);
    }
  });

  it('rendered results', async () => {
    const args = JSON.stringify({ query: 'x' });
    const chat: ChatCompletionToolMessageParam[] = await runOpenAIToolCalls(registry, {
      choices: [
        {
          message: {
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'optional_default', arguments: args } },
            ],
          },
        },
      ],
    });
    const items: ResponseInputItem[] = await runResponsesFunctionCalls(registry, [
      { type: 'function_call', call_id: 'c1', name: 'optional_default', arguments: args },
    ]);
    const anthropic: Anthropic.MessageParam = await runAnthropicToolUses(registry, [
      { type: 'tool_use', id: 't1', name: 'optional_default', input: { query: 'x' } },
    ]);
    const gemini: Content = await runGeminiFunctionCalls(registry, [
      { functionCall: { name: 'optional_default', args: { query: 'x' } } },
    ]);
    const mcp: CallToolResult = await runMcpToolCall(registry, {
      name: 'optional_default',
      arguments: { query: 'x' },
    });
    expect([
      chat.length,
      items.length,
      (anthropic.content as unknown[]).length,
      gemini.parts?.length,
      mcp.content.length,
    ]).toEqual([1, 1, 1, 1, 1]);
  });
});
