/**
 * MCP: tools/call throughput of toolpact's server against the SDK's McpServer serving the same tool
 * (the SDK Client calls both), over the in-memory transport (each server in a process of its own, so
 * neither shares JIT feedback or garbage with the other) and over stdio; and the time from process
 * start to the first tools/list answer with 100 tools (both servers started the same way, under tsx).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type Measurement, printTable } from './measure.js';

const ROOT = join(import.meta.dirname, '..');
const SERVER = join(ROOT, 'test', 'fixtures', 'mcp', 'bench-server.ts');
const IN_MEMORY = join(ROOT, 'test', 'fixtures', 'mcp', 'bench-in-memory.ts');
const call = { name: 'add', arguments: { a: 2, b: 3 } };

interface InMemoryFigures {
  /** Wall-clock nanoseconds per call. */
  readonly nsPerOp: number;
  /** CPU nanoseconds (user + system) per call: what a busy machine disturbs least. */
  readonly cpuNsPerOp: number;
}

/** Figures of one server over the in-memory transport, measured in a process of its own. */
function inMemoryRun(kind: 'toolpact' | 'sdk'): Promise<InMemoryFigures> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', IN_MEMORY, kind, '3000', '7'],
      { cwd: ROOT, timeout: 120_000 },
      (error, stdout) => {
        if (error) reject(error);
        else resolve(JSON.parse(stdout) as InMemoryFigures);
      },
    );
  });
}

async function stdioClient(kind: 'toolpact' | 'sdk', tools: number): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', SERVER, kind, String(tools)],
      cwd: ROOT,
      stderr: 'ignore',
    }),
  );
  return client;
}

/**
 * Sequential tools/call throughput of several clients, measured in alternating rounds (A B, B A, ...)
 * so that drift on a busy machine and collection debt hit every case alike; the median round decides.
 */
async function throughput(
  cases: readonly { readonly name: string; readonly client: Client }[],
  iterations: number,
  rounds = 7,
): Promise<Measurement[]> {
  for (const { name, client } of cases) {
    const result = await client.callTool(call);
    if ((result.structuredContent as { sum?: number } | undefined)?.sum !== 5) {
      throw new Error(`${name}: unexpected result ${JSON.stringify(result)}`);
    }
    for (let index = 0; index < Math.min(iterations, 500); index++) await client.callTool(call);
  }
  const perRound = cases.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    // A B, then B A: each case follows the other as often, so neither pays the other's garbage.
    const order = round % 2 === 0 ? [...cases.entries()] : [...cases.entries()].reverse();
    for (const [index, { client }] of order) {
      const started = process.hrtime.bigint();
      for (let count = 0; count < iterations; count++) await client.callTool(call);
      perRound[index]!.push(Number(process.hrtime.bigint() - started) / iterations);
    }
  }
  return cases.map(({ name }, index) => {
    const nsPerOp = median(perRound[index]!);
    return { name, nsPerOp, opsPerSecond: 1e9 / nsPerOp };
  });
}

/** Milliseconds from spawning the server to the client holding the answer of its first tools/list. */
async function timeToFirstList(kind: 'toolpact' | 'sdk', tools: number): Promise<number> {
  const started = process.hrtime.bigint();
  const client = await stdioClient(kind, tools);
  const listed = await client.listTools();
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (listed.tools.length !== tools) throw new Error(`${kind}: listed ${listed.tools.length} tools`);
  await client.close();
  return elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export default async function run(): Promise<void> {
  process.stdout.write(
    'tools/call over the in-memory transport (SDK Client, sequential calls, one process per server, median of 3 processes)\n',
  );
  const memory = { toolpact: [] as InMemoryFigures[], sdk: [] as InMemoryFigures[] };
  for (let run = 0; run < 3; run++) {
    memory.sdk.push(await inMemoryRun('sdk'));
    memory.toolpact.push(await inMemoryRun('toolpact'));
  }
  const label = { sdk: 'sdk McpServer', toolpact: 'toolpact' } as const;
  const rowsMemory: Measurement[] = (['sdk', 'toolpact'] as const).map((kind) => {
    const nsPerOp = median(memory[kind].map((figures) => figures.nsPerOp));
    return { name: label[kind], nsPerOp, opsPerSecond: 1e9 / nsPerOp };
  });
  printTable(rowsMemory, rowsMemory[0]!);
  const cpu = {
    sdk: median(memory.sdk.map((figures) => figures.cpuNsPerOp)),
    toolpact: median(memory.toolpact.map((figures) => figures.cpuNsPerOp)),
  };
  process.stdout.write(
    `CPU per call: sdk McpServer ${(cpu.sdk / 1000).toFixed(2)} µs, toolpact ${(cpu.toolpact / 1000).toFixed(2)} µs (${(cpu.toolpact / cpu.sdk).toFixed(2)}x)\n`,
  );

  process.stdout.write('\ntools/call over stdio (child process, sequential calls)\n');
  const stdioOurs = await stdioClient('toolpact', 1);
  const stdioSdk = await stdioClient('sdk', 1);
  const rowsStdio = await throughput(
    [
      { name: 'sdk McpServer', client: stdioSdk },
      { name: 'toolpact', client: stdioOurs },
    ],
    1_000,
  );
  printTable(rowsStdio, rowsStdio[0]!);
  await stdioOurs.close();
  await stdioSdk.close();

  process.stdout.write(
    '\nprocess start to first tools/list answer, 100 tools, stdio under tsx (median of 5)\n',
  );
  const ours: number[] = [];
  const sdk: number[] = [];
  for (let round = 0; round < 5; round++) {
    sdk.push(await timeToFirstList('sdk', 100));
    ours.push(await timeToFirstList('toolpact', 100));
  }
  const sdkMs = median(sdk);
  const oursMs = median(ours);
  process.stdout.write(`${'server'.padEnd(14)}  ${'ms'.padStart(8)}  vs sdk McpServer\n`);
  process.stdout.write(`${'sdk McpServer'.padEnd(14)}  ${sdkMs.toFixed(1).padStart(8)}  1.00x\n`);
  process.stdout.write(
    `${'toolpact'.padEnd(14)}  ${oursMs.toFixed(1).padStart(8)}  ${(oursMs / sdkMs).toFixed(2)}x\n`,
  );
  const speedup = (rows: readonly Measurement[]) => (rows[0]!.nsPerOp / rows[1]!.nsPerOp).toFixed(2);
  process.stdout.write(
    `\ntoolpact throughput vs the SDK's McpServer: in-memory ${speedup(rowsMemory)}x (by CPU time ${(cpu.sdk / cpu.toolpact).toFixed(2)}x), stdio ${speedup(rowsStdio)}x (higher is better)\n`,
  );
}
