/**
 * The agent loop's own cost, the model excluded: a scripted model asks for 5 parallel calls per step for
 * 10 steps, then answers in text (11 model requests per run). Compared, with the same five tools (the
 * same zod schemas and functions) and the same mock model (`MockLanguageModelV3` from `ai/test`):
 *  - `runAgent` over that mock through a thin adapter (the loop alone: tools offered, calls dispatched
 *    through the registry, results appended);
 *  - `runAgent` with the real `openaiChat` adapter over an in-memory client answering ChatCompletion
 *    objects (the adapter's reading and message building added; no HTTP);
 *  - the AI SDK's `generateText` with `stopWhen: stepCountIs(11)`.
 * Rounds are interleaved (A B C, B C A, …) so drift on a busy machine hits every case alike; the median
 * round decides and the spread (min–max of the rounds) is printed. Then memory: 1,000 steps of 5 calls,
 * the heap after a forced collection every 250 steps, and the growth per step.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { tool as aiTool, generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import * as z from 'zod';
import { type ModelAdapter, type OpenAIChatMessage, openaiChat, runAgent } from '../src/agent/index.js';
import { defineTool, Registry } from '../src/index.js';
import { toOpenAIToolMessages } from '../src/schema/index.js';

const CALLS_PER_STEP = 5;
const TOOL_STEPS = 10;

const schemas = {
  weather: z.object({ city: z.string().min(1), units: z.enum(['metric', 'imperial']).optional() }),
  convert: z.object({ amount: z.number(), from: z.string().length(3), to: z.string().length(3) }),
  lookup: z.object({ id: z.number().int().min(1) }),
  search: z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(50).optional() }),
  clock: z.object({ zone: z.string() }),
};
const functions = {
  weather: (args: { city: string; units?: string }) => ({
    city: args.city,
    temperature: 18,
    units: args.units ?? 'metric',
  }),
  convert: (args: { amount: number; from: string; to: string }) => ({
    amount: args.amount * 1.1,
    currency: args.to,
  }),
  lookup: (args: { id: number }) => ({ id: args.id, name: `item ${args.id}`, tags: ['a', 'b'] }),
  search: (args: { query: string; limit?: number }) => ({
    query: args.query,
    hits: [1, 2, 3].slice(0, args.limit ?? 3),
  }),
  clock: (args: { zone: string }) => ({ zone: args.zone, time: '12:00' }),
};
const names = Object.keys(schemas) as (keyof typeof schemas)[];
const inputs: { [K in keyof typeof schemas]: string } = {
  weather: '{"city":"Lisbon","units":"metric"}',
  convert: '{"amount":12.5,"from":"EUR","to":"USD"}',
  lookup: '{"id":42}',
  search: '{"query":"agent loop","limit":2}',
  clock: '{"zone":"Europe/Lisbon"}',
};

const registry = new Registry().register(
  names.map((name) =>
    defineTool({
      name,
      category: 'read',
      description: `The ${name} tool.`,
      input: schemas[name] as z.ZodObject,
      execute: functions[name] as (args: unknown) => unknown,
    }),
  ),
);
const aiTools = Object.fromEntries(
  names.map((name) => [
    name,
    aiTool({
      description: `The ${name} tool.`,
      inputSchema: schemas[name] as z.ZodObject,
      execute: functions[name] as (args: unknown) => unknown,
    }),
  ]),
);

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** The script both loops play: the step is the number of assistant turns in the prompt so far. */
function scripted(prompt: readonly { role: string }[], toolSteps: number) {
  let step = 0;
  for (const message of prompt) if (message.role === 'assistant') step++;
  if (step >= toolSteps) {
    return {
      content: [{ type: 'text' as const, text: 'done' }],
      finishReason: { unified: 'stop' as const, raw: undefined },
    };
  }
  return {
    content: names.slice(0, CALLS_PER_STEP).map((name, index) => ({
      type: 'tool-call' as const,
      toolCallId: `call_${step}_${index}`,
      toolName: name,
      input: inputs[name],
    })),
    finishReason: { unified: 'tool-calls' as const, raw: undefined },
  };
}

function mockModel(toolSteps: number) {
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      // The mock keeps every call's options; dropped here so neither loop pays for a growing list.
      model.doGenerateCalls.length = 0;
      return { ...scripted(options.prompt, toolSteps), usage, warnings: [] };
    },
  });
  return model;
}

/** runAgent over the same mock: its content parts become calls, its text the answer. */
function viaMock(model: MockLanguageModelV3): ModelAdapter<OpenAIChatMessage> {
  return {
    provider: 'mock',
    model: 'mock',
    format: 'openai',
    schemaOptions: {},
    async generate({ messages }) {
      const answer = await model.doGenerate({ prompt: messages as never });
      const calls = [];
      let text = '';
      for (const part of answer.content) {
        if (part.type === 'tool-call')
          calls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
        else if (part.type === 'text') text += part.text;
      }
      const message: OpenAIChatMessage = {
        role: 'assistant',
        content: text || null,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
      return {
        text,
        calls,
        messages: [message],
        usage: {
          inputTokens: answer.usage.inputTokens.total ?? 0,
          outputTokens: answer.usage.outputTokens.total ?? 0,
        },
        finishReason: answer.finishReason.unified,
      };
    },
    toolResults: toOpenAIToolMessages,
  };
}

/** A client object with the shape `openaiChat` drives, answering ChatCompletion objects from the script. */
function inMemoryOpenAI(toolSteps: number) {
  return {
    chat: {
      completions: {
        create: async (body: never) => {
          const { content, finishReason } = scripted(
            (body as { messages: { role: string }[] }).messages,
            toolSteps,
          );
          const calls = content.flatMap((part) =>
            part.type === 'tool-call'
              ? [
                  {
                    id: part.toolCallId,
                    type: 'function',
                    function: { name: part.toolName, arguments: part.input },
                  },
                ]
              : [],
          );
          const text = content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
          return {
            id: 'chatcmpl-bench',
            object: 'chat.completion',
            created: 0,
            model: 'bench',
            choices: [
              {
                index: 0,
                message: {
                  role: 'assistant',
                  content: text || null,
                  ...(calls.length > 0 ? { tool_calls: calls } : {}),
                },
                finish_reason: finishReason.unified === 'stop' ? 'stop' : 'tool_calls',
              },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          };
        },
      },
    },
  };
}

const prompt = [{ role: 'user' as const, content: 'go' }];
const STEPS = TOOL_STEPS + 1;

async function check(): Promise<void> {
  const mock = mockModel(TOOL_STEPS);
  const ours = await runAgent({ model: viaMock(mock), registry, messages: prompt, maxSteps: STEPS });
  const adapter = await runAgent({
    model: openaiChat(inMemoryOpenAI(TOOL_STEPS), { model: 'bench' }),
    registry,
    messages: prompt,
    maxSteps: STEPS,
  });
  const theirs = await generateText({
    model: mock,
    tools: aiTools,
    prompt: 'go',
    stopWhen: stepCountIs(STEPS),
  });
  const okCalls = (result: typeof ours) =>
    result.steps.flatMap((step) => step.calls).filter((call) => call.envelope.ok).length;
  if (ours.stopReason !== 'text' || okCalls(ours) !== CALLS_PER_STEP * TOOL_STEPS)
    throw new Error('runAgent did not run every call');
  if (adapter.stopReason !== 'text' || okCalls(adapter) !== CALLS_PER_STEP * TOOL_STEPS)
    throw new Error('openaiChat run incomplete');
  const aiResults = theirs.steps.flatMap((step) => step.toolResults).length;
  if (theirs.steps.length !== STEPS || aiResults !== CALLS_PER_STEP * TOOL_STEPS || theirs.text !== 'done')
    throw new Error(`the AI SDK ran ${theirs.steps.length} steps and ${aiResults} tools`);
}

interface Case {
  readonly name: string;
  readonly run: () => Promise<unknown>;
  readonly perRound: number[];
}

export default async function run(): Promise<void> {
  await check();
  const mock = mockModel(TOOL_STEPS);
  const cases: Case[] = [
    {
      name: 'runAgent (mock adapter)',
      run: () => runAgent({ model: viaMock(mock), registry, messages: prompt, maxSteps: STEPS }),
      perRound: [],
    },
    {
      name: 'runAgent + openaiChat (in-memory client)',
      run: () =>
        runAgent({
          model: openaiChat(inMemoryOpenAI(TOOL_STEPS), { model: 'bench' }),
          registry,
          messages: prompt,
          maxSteps: STEPS,
        }),
      perRound: [],
    },
    {
      name: 'AI SDK generateText',
      run: () => generateText({ model: mock, tools: aiTools, prompt: 'go', stopWhen: stepCountIs(STEPS) }),
      perRound: [],
    },
  ];
  const iterations = 200;
  const rounds = 9;
  for (const entry of cases) for (let index = 0; index < 100; index++) await entry.run();
  for (let round = 0; round < rounds; round++) {
    for (let offset = 0; offset < cases.length; offset++) {
      const entry = cases[(round + offset) % cases.length]!;
      const started = process.hrtime.bigint();
      for (let index = 0; index < iterations; index++) await entry.run();
      entry.perRound.push(Number(process.hrtime.bigint() - started) / iterations);
    }
  }
  const median = (values: readonly number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const baseline = median(cases[2]!.perRound);
  process.stdout.write(
    `${STEPS} model requests per run (${TOOL_STEPS} with ${CALLS_PER_STEP} parallel calls, then text); ${rounds} interleaved rounds of ${iterations} runs\n`,
  );
  const width = Math.max(...cases.map((entry) => entry.name.length));
  process.stdout.write(
    `${'case'.padEnd(width)}  ${'µs/run'.padStart(8)}  ${'µs/step'.padStart(8)}  ${'spread µs/run'.padStart(15)}  vs AI SDK\n`,
  );
  for (const entry of cases) {
    const value = median(entry.perRound);
    const spread = `${(Math.min(...entry.perRound) / 1000).toFixed(0)}–${(Math.max(...entry.perRound) / 1000).toFixed(0)}`;
    process.stdout.write(
      `${entry.name.padEnd(width)}  ${(value / 1000).toFixed(1).padStart(8)}  ${(value / STEPS / 1000).toFixed(1).padStart(8)}  ${spread.padStart(15)}  ${(value / baseline).toFixed(2)}x\n`,
    );
  }
  const roundRatios = cases[0]!.perRound.map((value, round) => value / cases[2]!.perRound[round]!);
  process.stdout.write(
    `runAgent / AI SDK per round: median ${median(roundRatios).toFixed(2)}x, range ${Math.min(...roundRatios).toFixed(2)}–${Math.max(...roundRatios).toFixed(2)}x (goal <= 0.5x)\n`,
  );
  await memory();
}

/** Heap after 1,000 steps of 5 calls, sampled after a forced collection every 250 steps. */
async function memory(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const total = 1_000;
  const samples: { step: number; heap: number }[] = [];
  const sample = (step: number) => {
    gc();
    gc();
    samples.push({ step, heap: process.memoryUsage().heapUsed });
  };
  const mock = mockModel(Number.POSITIVE_INFINITY);
  sample(0);
  const result = await runAgent({
    model: viaMock(mock),
    registry,
    messages: prompt,
    maxSteps: total,
    onStep: (step) => {
      if ((step.index + 1) % 250 === 0) sample(step.index + 1);
    },
  });
  const transcriptChars = JSON.stringify(result.messages).length;
  const first = samples[0]!;
  const last = samples.at(-1)!;
  process.stdout.write(
    `\nmemory, ${total} steps x ${CALLS_PER_STEP} calls (${result.messages.length} messages, ${(transcriptChars / 1e6).toFixed(2)} MB of transcript JSON kept in the result):\n`,
  );
  for (const { step, heap } of samples)
    process.stdout.write(`  step ${String(step).padStart(4)}: heap ${(heap / 1e6).toFixed(2)} MB\n`);
  const perStep = (last.heap - first.heap) / total;
  process.stdout.write(
    `  growth ${(perStep / 1024).toFixed(1)} KiB per step (the transcript and step records the result keeps: ${(transcriptChars / total / 1024).toFixed(1)} KiB of JSON per step)\n`,
  );
  if (result.stopReason !== 'max_steps') throw new Error(`the memory run stopped with ${result.stopReason}`);
}
