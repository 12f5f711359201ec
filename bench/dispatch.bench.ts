/**
 * One valid call through the whole pipeline (parse → validate → gate → run → check → envelope) against:
 * (a) calling the function directly; (b) the floor: JSON.parse + a precompiled ajv validator + the call +
 * JSON.stringify of the result; (c) the same tool served by the MCP SDK's (v2) McpServer over its in-memory
 * transport, called with its Client; (d) the same tool run by the Vercel AI SDK's generateText with a mock
 * model that asks for the call (its in-process tool execution path). Also the same tool with an output
 * schema (JSON Schema and zod), to show what checking every result costs.
 *
 * The cases run interleaved in rounds (see `interleave`): the figures are the median over the rounds
 * with the interquartile range, wall and CPU time, and each ratio is taken round by round. The SDKs run
 * in rounds of their own against toolpact (their heaps would otherwise weigh on the small cases).
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { tool as aiTool, generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { Registry } from '../src/index.js';
import { floorCall, forecast, forecastRegistries, raw, zodInput } from './dispatch-cases.js';
import {
  type InterleavedCase,
  type InterleavedSeries,
  interleave,
  printSpreadTable,
  roundRatios,
  type Spread,
  spreadOf,
} from './measure.js';

export default async function run(): Promise<void> {
  const { registry, gated } = forecastRegistries();

  const floor = floorCall();

  for (const name of ['forecast', 'forecast_zod', 'forecast_checked', 'forecast_zod_checked']) {
    if (!JSON.parse(await registry.dispatch(name, raw)).ok) throw new Error(`toolpact did not run ${name}`);
  }

  const ours = (name: string, through: Registry, tool: string): InterleavedCase => ({
    name,
    operation: () => through.dispatch(tool, raw),
    iterations: 20_000,
  });
  // In-process dispatchers share rounds with the floor; the SDKs, which allocate far more per call, get
  // rounds of their own against toolpact, so their heaps never weigh on the floor comparison.
  const local = await interleave(
    [
      {
        name: '(a) direct call',
        operation: () => forecast({ city: 'Lisbon', days: 3, units: 'metric' }),
        iterations: 200_000,
      },
      { name: '(b) parse+ajv+call+stringify', operation: floor, iterations: 20_000 },
      ours('toolpact dispatch (JSON Schema)', registry, 'forecast'),
      ours('toolpact dispatch (zod)', registry, 'forecast_zod'),
      ours('toolpact dispatch + gate', gated, 'forecast'),
      ours('JSON Schema + output schema', registry, 'forecast_checked'),
      ours('zod + zod output schema', registry, 'forecast_zod_checked'),
    ],
    { rounds: 31, warmup: 3 },
  );
  const [, floorSeries, json, zod, gate, checked, zodCheckedSeries] = local;
  printSpreadTable(local, floorSeries!);
  // The SDKs are set up only now: their own use of zod (the MCP SDK validates every message with it)
  // would otherwise shape the JIT's feedback for toolpact's zod rows above (measured: about 1.30x of the
  // floor with the SDKs set up after, 1.46x with them set up before).
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool(
    'forecast',
    { description: 'Weather forecast.', inputSchema: zodInput },
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
  const sdks = await interleave(
    [
      ours('toolpact dispatch (JSON Schema)', registry, 'forecast'),
      {
        name: '(c) MCP SDK McpServer, in-memory',
        operation: () => client.callTool({ name: 'forecast', arguments: mcpArgs }),
        iterations: 500,
      },
      {
        name: '(d) AI SDK generateText + tool',
        operation: () => generateText({ model, tools: aiTools, prompt: 'weather' }),
        iterations: 20,
      },
    ],
    { rounds: 15 },
  );
  const [oursAgain, mcp, ai] = sdks;
  process.stdout.write('\n');
  printSpreadTable(sdks, oursAgain!);
  const ratio = (label: string, of: InterleavedSeries, to: InterleavedSeries, goal = '') => {
    const wall = spreadOf(roundRatios(of.wall, to.wall));
    const cpu = spreadOf(roundRatios(of.cpu, to.cpu));
    const range = (spread: Spread) =>
      `${spread.median.toFixed(2)}x (IQR ${spread.q1.toFixed(2)}–${spread.q3.toFixed(2)}, range ${spread.min.toFixed(2)}–${spread.max.toFixed(2)})`;
    process.stdout.write(`${label}: wall ${range(wall)}, cpu ${range(cpu)}${goal}\n`);
  };
  process.stdout.write('\n');
  ratio('toolpact (JSON Schema) vs floor (b)', json!, floorSeries!, ' (goal <= 1.2x)');
  ratio('toolpact (zod) vs floor (b)', zod!, floorSeries!);
  ratio('toolpact + gate vs floor (b)', gate!, floorSeries!);
  ratio('output schema cost, JSON Schema (with vs without)', checked!, json!);
  ratio('output schema cost, zod (with vs without)', zodCheckedSeries!, zod!);
  ratio('MCP SDK (c) vs toolpact (JSON Schema)', mcp!, oursAgain!, ' (goal >= 5x)');
  ratio('AI SDK (d) vs toolpact (JSON Schema)', ai!, oursAgain!);
  await client.close();
  await server.close();
}
