/**
 * What the framework integrations cost per tool call, inside each framework's own loop, against the
 * same tool written natively for that framework (same zod schema, same trivial body):
 *
 * - AI SDK: one `generateText` run with the SDK's mock model (a step with one tool call, then text),
 *   with `tool({ inputSchema: zod, execute })` against `toAiSdkTools(registry)`.
 * - LangChain: `tool.invoke(toolCall)` (answers a ToolMessage), `tool(fn, { schema: zod })` against
 *   `toLangChainTools(registry)`.
 * - OpenAI Agents: one `Runner.run` with a scripted `Model` (one function call, then text), `tool({
 *   parameters: zod })` against `toOpenAIAgentsTools(registry)`.
 *
 * The toolpact side does more per call (validation with issue paths, the envelope, the gate hook
 * when configured; here no gate), so the ratio is the price of that, not a like-for-like race.
 */
import { tool as langChainTool } from '@langchain/core/tools';
import {
  Agent,
  tool as agentsTool,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  type StreamEvent,
  Usage,
} from '@openai/agents';
import { tool as aiSdkTool, generateText, stepCountIs, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import * as z from 'zod';
import { toAiSdkTools } from '../src/ai-sdk/index.js';
import { defineTool, Registry } from '../src/index.js';
import { toLangChainTools } from '../src/langchain/index.js';
import { toOpenAIAgentsTools } from '../src/openai-agents/index.js';
import { measure, printTable } from './measure.js';

const input = z.object({ name: z.string().describe('The note file name, e.g. "todo.md"') });
const body = ({ name }: { name: string }) => `text of ${name}`;
const DESCRIPTION = 'Read one note by file name. It changes nothing.';

export default async function run(): Promise<void> {
  const registry = new Registry().register(
    defineTool({ name: 'read_note', category: 'read', description: DESCRIPTION, input, execute: body }),
  );
  await aiSdk(registry);
  await langChain(registry);
  await openaiAgents(registry);
}

async function aiSdk(registry: Registry): Promise<void> {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const loop = (tools: ToolSet) => {
    let turn = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () =>
        turn++ === 0
          ? {
              content: [
                { type: 'tool-call', toolCallId: 'c1', toolName: 'read_note', input: '{"name":"todo.md"}' },
              ],
              finishReason: { unified: 'tool-calls', raw: undefined },
              usage,
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: 'ok' }],
              finishReason: { unified: 'stop', raw: undefined },
              usage,
              warnings: [],
            },
    });
    return generateText({ model, prompt: 'x', tools, stopWhen: stepCountIs(3) });
  };
  const native: ToolSet = {
    read_note: aiSdkTool({ description: DESCRIPTION, inputSchema: input, execute: body }),
  };
  const ours = toAiSdkTools(registry);
  const options = { iterations: 300, rounds: 7, warmup: 100 };
  const a = await measure('AI SDK generateText, native tool()', () => loop(native), options);
  const b = await measure('AI SDK generateText, toAiSdkTools', () => loop(ours), options);
  printTable([a, b], a);
}

async function langChain(registry: Registry): Promise<void> {
  const call = { id: 'c1', name: 'read_note', args: { name: 'todo.md' }, type: 'tool_call' as const };
  const native = langChainTool(body, { name: 'read_note', description: DESCRIPTION, schema: input });
  const [ours] = toLangChainTools(registry);
  const options = { iterations: 2_000, rounds: 7, warmup: 500 };
  const a = await measure('LangChain invoke(toolCall), native tool()', () => native.invoke(call), options);
  const b = await measure('LangChain invoke(toolCall), toLangChainTools', () => ours!.invoke(call), options);
  printTable([a, b], a);
}

class ScriptedModel implements Model {
  #turn = 0;
  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    const first = this.#turn++ % 2 === 0;
    return {
      usage: new Usage(),
      output: first
        ? [
            {
              type: 'function_call',
              callId: 'c1',
              name: 'read_note',
              status: 'completed',
              arguments: '{"name":"todo.md"}',
            },
          ]
        : [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'ok' }],
            },
          ],
    };
  }
  // biome-ignore lint/correctness/useYield: the benchmark never streams.
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('not streamed in the benchmark');
  }
}

async function openaiAgents(registry: Registry): Promise<void> {
  const runner = new Runner({ tracingDisabled: true });
  const native = agentsTool({
    name: 'read_note',
    description: DESCRIPTION,
    parameters: input,
    execute: body,
  });
  const nativeAgent = new Agent({ name: 'a', model: new ScriptedModel(), tools: [native] });
  const ourAgent = new Agent({ name: 'a', model: new ScriptedModel(), tools: toOpenAIAgentsTools(registry) });
  const options = { iterations: 200, rounds: 7, warmup: 50 };
  const a = await measure('Agents Runner.run, native tool()', () => runner.run(nativeAgent, 'x'), options);
  const b = await measure('Agents Runner.run, toOpenAIAgentsTools', () => runner.run(ourAgent, 'x'), options);
  printTable([a, b], a);
}
