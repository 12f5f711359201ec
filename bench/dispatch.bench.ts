/**
 * One valid call through the whole pipeline (parse → validate → gate → run → envelope) against:
 * (a) calling the function directly; (b) the floor: JSON.parse + a precompiled ajv validator + the call +
 * JSON.stringify of the result; (c) the same tool served by the MCP SDK's McpServer over its in-memory
 * transport, called with its Client; (d) the same tool run by the Vercel AI SDK's generateText with a mock
 * model that asks for the call (its in-process tool execution path).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { tool as aiTool, generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as z from 'zod';
import { defineTool, Registry } from '../src/index.js';
import { measure, printTable } from './measure.js';

const schema = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1 },
    days: { type: 'integer', minimum: 1, maximum: 14 },
    units: { enum: ['metric', 'imperial'] },
  },
  required: ['city', 'days'],
  additionalProperties: false,
} as const;
const forecast = (args: { city: string; days: number; units?: string }) => ({
  city: args.city,
  days: args.days,
  units: args.units ?? 'metric',
  highs: [21, 22, 19],
});
const raw = '{"city":"Lisbon","days":3,"units":"metric"}';
const zodInput = z.object({
  city: z.string().min(1),
  days: z.number().int().min(1).max(14),
  units: z.enum(['metric', 'imperial']).optional(),
});

export default async function run(): Promise<void> {
  const jsonTool = defineTool({
    name: 'forecast',
    description: 'Weather forecast.',
    category: 'read',
    input: schema,
    execute: forecast,
  });
  const zodTool = defineTool({
    name: 'forecast_zod',
    description: 'Weather forecast.',
    category: 'read',
    input: zodInput,
    execute: forecast,
  });
  const registry = new Registry().register(jsonTool, zodTool);
  const gated = new Registry({ beforeCall: () => ({ action: 'allow' }) }).register(jsonTool);

  const validate = new Ajv2020({ allErrors: true }).compile(schema);
  const floor = () => {
    const args = JSON.parse(raw) as { city: string; days: number };
    if (!validate(args)) throw new Error('invalid');
    return JSON.stringify({ ok: true, result: forecast(args) });
  };

  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool(
    'forecast',
    { description: 'Weather forecast.', inputSchema: zodInput.shape },
    async (args) => ({
      content: [{ type: 'text', text: JSON.stringify(forecast(args)) }],
    }),
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  const mcpArgs = JSON.parse(raw) as Record<string, unknown>;

  const model = new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'forecast', input: raw }],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
      warnings: [],
    }),
  });
  const aiTools = {
    forecast: aiTool({
      description: 'Weather forecast.',
      inputSchema: zodInput,
      execute: async (args) => forecast(args),
    }),
  };
  const check = await generateText({ model, tools: aiTools, prompt: 'weather' });
  if (check.toolResults.length !== 1) throw new Error('the AI SDK did not run the tool');
  const mcpCheck = await client.callTool({ name: 'forecast', arguments: mcpArgs });
  if (mcpCheck.isError) throw new Error('the MCP server did not run the tool');
  if (!JSON.parse(await registry.dispatch('forecast', raw)).ok)
    throw new Error('toolpact did not run the tool');

  const rows = [
    await measure('(a) direct call', () => forecast({ city: 'Lisbon', days: 3, units: 'metric' }), {
      iterations: 200_000,
    }),
    await measure('(b) parse+ajv+call+stringify', floor, { iterations: 100_000 }),
    await measure('toolpact dispatch (JSON Schema)', () => registry.dispatch('forecast', raw), {
      iterations: 50_000,
    }),
    await measure('toolpact dispatch (zod)', () => registry.dispatch('forecast_zod', raw), {
      iterations: 50_000,
    }),
    await measure('toolpact dispatch + gate', () => gated.dispatch('forecast', raw), { iterations: 50_000 }),
    await measure(
      '(c) MCP SDK McpServer, in-memory',
      () => client.callTool({ name: 'forecast', arguments: mcpArgs }),
      {
        iterations: 2_000,
        warmup: 500,
      },
    ),
    await measure(
      '(d) AI SDK generateText + tool',
      () => generateText({ model, tools: aiTools, prompt: 'weather' }),
      {
        iterations: 1_000,
        warmup: 200,
      },
    ),
  ];
  const floorRow = rows[1]!;
  printTable(rows, floorRow);
  const ours = rows[2]!;
  process.stdout.write(
    `\ntoolpact vs floor (b): ${(ours.nsPerOp / floorRow.nsPerOp).toFixed(2)}x (goal <= 1.5x)\n` +
      `MCP SDK (c) vs toolpact: ${(rows[5]!.nsPerOp / ours.nsPerOp).toFixed(1)}x slower (goal >= 5x)\n` +
      `AI SDK (d) vs toolpact: ${(rows[6]!.nsPerOp / ours.nsPerOp).toFixed(1)}x slower\n`,
  );
  await client.close();
  await server.close();
}
