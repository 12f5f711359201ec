/**
 * MCP: sequential `tools/call` throughput of toolpact's server on revision 2026-07-28 (modern, stateless)
 * against the v2 SDK's own `McpServer` serving the same tool (`add {a,b}` with an output schema), and
 * against toolpact's legacy era (2025-11-25, a session), the same v2 `Client` calling every case:
 *
 * - Streamable HTTP: toolpact's `serveHttp` (one endpoint for both eras: a fresh server per modern
 *   request, a session for the legacy client) against the SDK's `createMcpHandler` with an McpServer
 *   factory (also a fresh server per request), mounted on node:http with `toNodeHandler` behind the
 *   localhost Host/Origin guards, as its docs do;
 * - stdio: toolpact's `serveStdio` against the SDK's `serveStdio` with an McpServer factory, each era
 *   on a connection (and a process) of its own;
 * - the time from process start to the first `tools/list` answer with 100 tools (both under tsx).
 *
 * Every server runs in a child process of its own (`test/fixtures/mcp/bench-server.ts`), the client in
 * this one: no server shares JIT feedback or garbage with another or with the client, and each has a
 * core's worth of scheduling like a real deployment. So the CPU time that `interleave` reads here covers
 * the client alone; the servers' CPU time is read from each child around every batch (the child reports
 * `process.cpuUsage()` on SIGUSR2, about 0.06 ms, once inside each batch's wall time), and the server
 * CPU ratio is the figure that compares the servers themselves. Cases run in interleaved rounds (each a
 * batch of sequential calls), and every ratio is taken round by round, then its median and IQR.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  type InterleavedCase,
  type InterleavedSeries,
  interleave,
  roundRatios,
  spreadOf,
} from './measure.js';

const ROOT = join(import.meta.dirname, '..');
const SERVER = join(ROOT, 'test', 'fixtures', 'mcp', 'bench-server.ts');
const MODERN = '2026-07-28';
const call = { name: 'add', arguments: { a: 2, b: 3 } };
const ROUNDS = 15;
const WARMUP = 2;

type Kind = 'toolpact' | 'sdk';
type Era = 'modern' | 'legacy';

/** Reads a server child's own CPU time (user + system, nanoseconds) on demand, over its stderr. */
class CpuProbe {
  private readonly waiting: ((nanoseconds: number) => void)[] = [];

  constructor(
    private readonly pid: number,
    stderr: Readable,
  ) {
    createInterface({ input: stderr }).on('line', (line) => {
      if (!line.startsWith('{"benchCpu"')) return;
      const { user, system } = (JSON.parse(line) as { benchCpu: { user: number; system: number } }).benchCpu;
      this.waiting.shift()?.((user + system) * 1000);
    });
  }

  read(): Promise<number> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      process.kill(this.pid, 'SIGUSR2');
    });
  }
}

function newClient(era: Era): Client {
  return new Client(
    { name: 'bench', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
}

async function checked(name: string, client: Client, era: Era): Promise<Client> {
  const negotiated = client.getNegotiatedProtocolVersion();
  if ((negotiated === MODERN) !== (era === 'modern')) throw new Error(`${name}: negotiated ${negotiated}`);
  await client.listTools();
  const result = await client.callTool(call);
  if ((result.structuredContent as { sum?: number } | undefined)?.sum !== 5) {
    throw new Error(`${name}: unexpected result ${JSON.stringify(result)}`);
  }
  return client;
}

interface HttpServerProcess {
  readonly url: string;
  readonly cpu: CpuProbe;
  readonly child: ChildProcess;
}

/** A server child on HTTP; resolves once it prints its endpoint. */
function httpServer(kind: Kind): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, kind, 'http', '1'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const cpu = new CpuProbe(child.pid!, child.stderr!);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${kind} http server exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (url) => resolve({ url, cpu, child }));
  });
}

async function httpClient(url: string, era: Era): Promise<Client> {
  const client = newClient(era);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** A stdio client and its server child (one process per connection, as a host starts them). */
async function stdioCase(kind: Kind, era: Era, tools = 1): Promise<{ client: Client; cpu: CpuProbe }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', SERVER, kind, 'stdio', String(tools)],
    cwd: ROOT,
    stderr: 'pipe',
  });
  const client = newClient(era);
  await client.connect(transport);
  return { client, cpu: new CpuProbe(transport.pid!, transport.stderr as Readable) };
}

/** One case: its client's calls, and the server CPU of each of its turns (nanoseconds per call). */
function callCase(
  name: string,
  client: Client,
  cpu: CpuProbe,
  iterations: number,
): { readonly case: InterleavedCase; readonly serverCpu: number[] } {
  const serverCpu: number[] = [];
  let started = 0;
  return {
    serverCpu,
    case: {
      name,
      iterations,
      operation: () => client.callTool(call),
      beforeRound: async () => {
        started = await cpu.read();
      },
      afterRound: async () => {
        serverCpu.push(((await cpu.read()) - started) / iterations);
      },
    },
  };
}

interface Series extends InterleavedSeries {
  /** Server CPU nanoseconds per call, one figure per round. */
  readonly server: readonly number[];
  /** Client plus server CPU nanoseconds per call. */
  readonly total: readonly number[];
}

async function measureCases(cases: ReturnType<typeof callCase>[]): Promise<Series[]> {
  const series = await interleave(
    cases.map((entry) => entry.case),
    { rounds: ROUNDS, warmup: WARMUP },
  );
  return series.map((entry, index) => {
    // The hooks also ran in the warm-up rounds, which `interleave` leaves out.
    const server = cases[index]!.serverCpu.slice(WARMUP);
    return { ...entry, server, total: server.map((value, round) => value + entry.cpu[round]!) };
  });
}

const micros = (values: readonly number[]) => {
  const spread = spreadOf(values);
  return `${(spread.median / 1000).toFixed(0)} [${(spread.q1 / 1000).toFixed(0)}–${(spread.q3 / 1000).toFixed(0)}]`;
};

function printSeries(series: readonly Series[]): void {
  const width = Math.max(...series.map((entry) => entry.name.length));
  process.stdout.write(
    `${ROUNDS} interleaved rounds; µs per call, median [IQR] over the rounds; client = this process, server = the child\n`,
  );
  process.stdout.write(
    `${'case'.padEnd(width)}  ${'wall'.padStart(13)}  ${'client cpu'.padStart(13)}  ${'server cpu'.padStart(13)}  ${'calls/s'.padStart(8)}\n`,
  );
  for (const entry of series) {
    process.stdout.write(
      `${entry.name.padEnd(width)}  ${micros(entry.wall).padStart(13)}  ${micros(entry.cpu).padStart(13)}  ${micros(entry.server).padStart(13)}  ${Math.round(
        1e9 / spreadOf(entry.wall).median,
      )
        .toString()
        .padStart(8)}\n`,
    );
  }
}

/** Time ratios of `of` to `to`, round by round: below 1 means `of` takes less. */
function printRatio(label: string, of: Series, to: Series): void {
  const range = (values: number[]) => {
    const spread = spreadOf(values);
    return `${spread.median.toFixed(2)}x [${spread.q1.toFixed(2)}–${spread.q3.toFixed(2)}]`;
  };
  process.stdout.write(
    `${label}: wall ${range(roundRatios(of.wall, to.wall))}, server cpu ${range(roundRatios(of.server, to.server))}, client cpu ${range(roundRatios(of.cpu, to.cpu))}, client+server cpu ${range(roundRatios(of.total, to.total))}\n`,
  );
}

/** Milliseconds from spawning the server to the client holding the answer of its first tools/list. */
async function timeToFirstList(kind: Kind, tools: number): Promise<number> {
  const started = process.hrtime.bigint();
  const client = newClient('legacy');
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', SERVER, kind, 'stdio', String(tools)],
      cwd: ROOT,
      stderr: 'ignore',
    }),
  );
  const listed = await client.listTools();
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (listed.tools.length !== tools) throw new Error(`${kind}: listed ${listed.tools.length} tools`);
  await client.close();
  return elapsed;
}

export default async function run(): Promise<void> {
  process.stdout.write(
    'tools/call over Streamable HTTP (v2 Client, sequential calls, each server in a child process)\n',
  );
  const [oursHttp, sdkHttp] = await Promise.all([httpServer('toolpact'), httpServer('sdk')]);
  const httpClients = {
    sdk: await checked('sdk modern', await httpClient(sdkHttp.url, 'modern'), 'modern'),
    modern: await checked('toolpact modern', await httpClient(oursHttp.url, 'modern'), 'modern'),
    legacy: await checked('toolpact legacy', await httpClient(oursHttp.url, 'legacy'), 'legacy'),
  };
  const http = await measureCases([
    callCase('sdk McpServer, 2026-07-28', httpClients.sdk, sdkHttp.cpu, 250),
    callCase('toolpact, 2026-07-28', httpClients.modern, oursHttp.cpu, 250),
    callCase('toolpact, 2025-11-25 session', httpClients.legacy, oursHttp.cpu, 300),
  ]);
  printSeries(http);
  for (const client of Object.values(httpClients)) await client.close();
  oursHttp.child.kill();
  sdkHttp.child.kill();

  process.stdout.write(
    '\ntools/call over stdio (v2 Client, sequential calls, a server process per connection)\n',
  );
  const stdio = {
    sdkModern: await stdioCase('sdk', 'modern'),
    modern: await stdioCase('toolpact', 'modern'),
    sdkLegacy: await stdioCase('sdk', 'legacy'),
    legacy: await stdioCase('toolpact', 'legacy'),
  };
  for (const [name, { client }] of Object.entries(stdio)) {
    await checked(name, client, name.toLowerCase().includes('legacy') ? 'legacy' : 'modern');
  }
  const stdioSeries = await measureCases([
    callCase('sdk McpServer, 2026-07-28', stdio.sdkModern.client, stdio.sdkModern.cpu, 1500),
    callCase('toolpact, 2026-07-28', stdio.modern.client, stdio.modern.cpu, 1500),
    callCase('sdk McpServer, 2025-11-25', stdio.sdkLegacy.client, stdio.sdkLegacy.cpu, 1500),
    callCase('toolpact, 2025-11-25', stdio.legacy.client, stdio.legacy.cpu, 1500),
  ]);
  printSeries(stdioSeries);
  for (const { client } of Object.values(stdio)) await client.close();

  process.stdout.write(
    '\nprocess start to first tools/list answer, 100 tools, stdio under tsx, v2 Client on 2025-11-25 (median of 5)\n',
  );
  const starts = { toolpact: [] as number[], sdk: [] as number[] };
  for (let round = 0; round < 5; round++) {
    starts.sdk.push(await timeToFirstList('sdk', 100));
    starts.toolpact.push(await timeToFirstList('toolpact', 100));
  }
  const sdkMs = spreadOf(starts.sdk).median;
  const oursMs = spreadOf(starts.toolpact).median;
  process.stdout.write(`${'server'.padEnd(14)}  ${'ms'.padStart(8)}  vs sdk McpServer\n`);
  process.stdout.write(`${'sdk McpServer'.padEnd(14)}  ${sdkMs.toFixed(1).padStart(8)}  1.00x\n`);
  process.stdout.write(
    `${'toolpact'.padEnd(14)}  ${oursMs.toFixed(1).padStart(8)}  ${(oursMs / sdkMs).toFixed(2)}x\n`,
  );

  process.stdout.write(
    '\ntime ratios per call, median [IQR] of the per-round ratios (below 1: the first takes less)\n',
  );
  const [sdkModernHttp, oursModernHttp, oursLegacyHttp] = http;
  printRatio('HTTP  toolpact 2026-07-28 / sdk McpServer 2026-07-28', oursModernHttp!, sdkModernHttp!);
  printRatio('HTTP  toolpact 2026-07-28 / toolpact 2025-11-25', oursModernHttp!, oursLegacyHttp!);
  const [sdkModernStdio, oursModernStdio, sdkLegacyStdio, oursLegacyStdio] = stdioSeries;
  printRatio('stdio toolpact 2026-07-28 / sdk McpServer 2026-07-28', oursModernStdio!, sdkModernStdio!);
  printRatio('stdio toolpact 2025-11-25 / sdk McpServer 2025-11-25', oursLegacyStdio!, sdkLegacyStdio!);
  printRatio('stdio toolpact 2026-07-28 / toolpact 2025-11-25', oursModernStdio!, oursLegacyStdio!);
}
