/**
 * `npm run bench -- gateway`: `toolpact gateway` in front of five published MCP servers, installed as dev
 * dependencies and started as `node <bin script>` from node_modules (never npx, never the network):
 * `@modelcontextprotocol/server-memory`, `-filesystem` (over a temporary folder), `-sequential-thinking`,
 * `-everything`, and `@playwright/mcp` headless on the system's Chromium (`CHROMIUM_PATH`, default
 * Debian's /usr/bin/chromium). The servers and the policy (allow every call, so nothing asks) are in
 * bench/fixtures/gateway/five-servers.json, a Claude Code file whose `${GATEWAY_BENCH_*}` variables this
 * bench sets; smaller configs are that file with fewer entries.
 *
 * 1. Tokens of one request: the contracts the gateway lists (`startGateway` in this process), and with
 *    `--search` what `withToolSearch` lists over the same registry (`search_tools` for a 2025 session;
 *    `search_tools` and `call_tool` for a 2026-07-28 client), per provider format (o200k_base over the
 *    tools JSON, as `tokenReport` counts). Checked against the `tools/list` a client of the CLI receives.
 * 2. Call overhead: `tools/call` of everything's `echo` and memory's `read_graph`, the v2 SDK `Client`
 *    over stdio straight to the server, against the same client to `toolpact gateway` (the CLI as a
 *    child process, `node bin/toolpact.js`, which runs the TypeScript sources through tsx) and from it to
 *    the server. Sequential calls in interleaved rounds; per-call median, p10 and p90, and the ratio.
 *    Beside them, the floor for any process in the middle: the same calls through a bare relay
 *    (bench/fixtures/gateway/bare-relay.ts: the same SDK, no gate, no validation, no audit, run through
 *    tsx as the gateway is), and through the gateway with `--audit` (a JSON Lines file); and
 *    `resources/read` of one of everything's documents direct, through the relay, and through the
 *    gateway when it lists that resource (else "not measured"). Reported as the time each adds over
 *    direct and the ratio gateway / relay (goal: within 1.3x).
 *    Where the time goes: the CPU per call of the relay, the gateway and the gateway with `--audit`
 *    (user + system from /proc, main thread and the others, the three in interleaved rounds), then each
 *    again under `node --cpu-prof`, its main thread's samples over the calls' window summed by who owns
 *    the running code: the SDK, Node.js, garbage collection, and toolpact's steps (validation, the gate,
 *    the audit, the envelope and re-wrap, the upstream client, the MCP face).
 *    `GATEWAY_BENCH_ONLY=calls` runs this part alone (no Chromium needed, about two minutes).
 * 3. Start to the first `tools/list` with all five servers: spawning the CLI, connecting a client,
 *    until its listing holds every tool; with no lock (first start: every server's era is probed in a
 *    second process of it, then pinned) and with the lock just written (no probe). Beside it, a host's
 *    way: the five servers started in parallel, each with its own client.
 * 4. Memory: the resident set (VmRSS) of each server process the gateway started (found through
 *    /proc/<pid>/stat), against the same server started by a plain client; and the gateway's own RSS with
 *    no server, with each server alone, and with all five. Playwright starts Chromium only for its first
 *    browser tool, so its process tree is read again after one `browser_navigate` (RSS summed, and PSS).
 *
 * 5. Flood: one server (test/fixtures/gateway/flood-server.mjs) sends 300,000 `list_changed`, each with a
 *    log notification, while a client calls another server's `echo` through the gateway: the latency of
 *    those calls during the flood against the same calls with no flood (medians, p90, ratio), and the
 *    gateway's RSS rise (peak during the flood, sampled every 20 ms, minus before it). A fresh gateway per
 *    repetition. `GATEWAY_BENCH_ONLY=flood` runs this part alone (no Chromium needed, well under a minute).
 *
 * `GATEWAY_BENCH_FROM=build` (after `npm run build`) runs the gateway from dist/, as an installed package
 * does, instead of the sources through tsx.
 *
 * The figures go to stdout and, as JSON, to `GATEWAY_BENCH_JSON` (default .toolpact-tmp/bench/gateway.json).
 * Every process started is followed to its end; one still running after its client closed is reported
 * (and then killed by its pid).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { Client, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { ToolContract } from '../src/contract/index.js';
import { type GatewayConfig, readGatewayConfig, type StdioTarget } from '../src/gateway/config/index.js';
import { startGateway } from '../src/gateway/gateway.js';
import { countTokens, tokenReport } from '../src/schema/index.js';
import { withToolSearch } from '../src/search/index.js';
import {
  type MiddleKind,
  measureWhere as measureMiddles,
  PROFILE_INTERVAL_US,
  WHERE_CALLS,
  WHERE_ROUNDS,
} from './gateway-where.js';
import { printRows } from './measure.js';

const ROOT = join(import.meta.dirname, '..');
const FIXTURE = join(ROOT, 'bench', 'fixtures', 'gateway', 'five-servers.json');
// `GATEWAY_BENCH_FROM=build` runs the gateway as the published package does, from the build (run
// `npm run build` first); by default it runs from a checkout, the TypeScript sources through tsx.
const FROM_BUILD = process.env.GATEWAY_BENCH_FROM === 'build';
const CLI = FROM_BUILD ? join(ROOT, 'dist', 'cli', 'bin.js') : join(ROOT, 'bin', 'toolpact.js');
const MODULES = join(ROOT, 'node_modules');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUTPUT = resolve(
  ROOT,
  process.env.GATEWAY_BENCH_JSON ?? join('.toolpact-tmp', 'bench', 'gateway.json'),
);
const MODERN = '2026-07-28';
const FORMATS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const;

/** Each server: its package, and the bin script the fixture must start. */
const SERVERS = [
  { name: 'memory', package: '@modelcontextprotocol/server-memory' },
  { name: 'filesystem', package: '@modelcontextprotocol/server-filesystem' },
  { name: 'sequential-thinking', package: '@modelcontextprotocol/server-sequential-thinking' },
  { name: 'everything', package: '@modelcontextprotocol/server-everything' },
  { name: 'playwright', package: '@playwright/mcp' },
] as const;
type ServerName = (typeof SERVERS)[number]['name'];

const CALL_ROUNDS = 15;
const CALL_WARMUP = 2;
const CALLS_PER_TURN = 40;
const START_REPETITIONS = 3;
const MEMORY_REPETITIONS = 2;
/** How long a started gateway settles before its memory is read. */
const SETTLE_MS = 1_000;

type Era = 'legacy' | 'modern';

interface Bench {
  readonly dir: string;
  readonly env: { readonly [name: string]: string };
  /** Processes that outlived their client (then killed). */
  readonly leftover: { readonly pid: number; readonly command: string }[];
}

export default async function run(): Promise<void> {
  if (FROM_BUILD && !existsSync(CLI)) {
    throw new Error(`GATEWAY_BENCH_FROM=build runs ${CLI}, which is not built: run npm run build first.`);
  }
  if (process.env.GATEWAY_BENCH_ONLY === 'flood') {
    const dir = mkdtempSync(join(tmpdir(), 'toolpact-gateway-bench-'));
    try {
      await measureFlood({ dir, env: {}, leftover: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return;
  }
  const only = process.env.GATEWAY_BENCH_ONLY;
  // GATEWAY_BENCH_ONLY=calls: the call overhead and where it goes alone (no Chromium needed).
  if (only !== 'calls' && !existsSync(CHROMIUM)) {
    process.stdout.write(
      `skipped: no Chromium at ${CHROMIUM} for @playwright/mcp. Install it (Debian: apt-get install chromium) or set CHROMIUM_PATH.\n`,
    );
    return;
  }
  const began = Date.now();
  const loadBefore = loadavg();
  const dir = mkdtempSync(join(tmpdir(), 'toolpact-gateway-bench-'));
  mkdirSync(join(dir, 'files'));
  writeFileSync(join(dir, 'files', 'notes.md'), '# Notes\n\nA file for the filesystem server to list.\n');
  const bench: Bench = {
    dir,
    env: {
      GATEWAY_BENCH_NODE: process.execPath,
      GATEWAY_BENCH_MODULES: MODULES,
      GATEWAY_BENCH_DIR: dir,
      GATEWAY_BENCH_CHROMIUM: CHROMIUM,
    },
    leftover: [],
  };
  try {
    if (only === 'calls') {
      await measureCalls(bench);
      await measureWhere(bench);
      process.stdout.write(
        `\n${cpus().length} CPUs, load average ${loadBefore.map((value) => value.toFixed(1)).join(' ')} before and ${loadavg()
          .map((value) => value.toFixed(1))
          .join(' ')} after; ${Math.round((Date.now() - began) / 1000)} s in all.\n`,
      );
      return;
    }
    const five = readConfig(bench, FIXTURE);
    const versions = checkTargets(five);
    const tokens = await measureTokens(bench, five);
    // GATEWAY_BENCH_ONLY=start: the start figures alone (a minute or two), e.g. after a change to start-up.
    if (only === 'start') {
      await measureStart(bench, five, tokens.tools);
      return;
    }
    const calls = { ...(await measureCalls(bench)), where: await measureWhere(bench) };
    const start = await measureStart(bench, five, tokens.tools);
    const wire = await measureWire(bench, start.lock, tokens);
    const memory = await measureMemory(bench, start);
    const flood = await measureFlood(bench);
    const figures = {
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model ?? 'unknown',
        memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
        node: process.version,
        loadAverage: { before: loadBefore.map(round1), after: loadavg().map(round1) },
        platform: `${process.platform} ${process.arch}`,
        date: new Date().toISOString(),
      },
      servers: versions,
      gatewayRunsFrom: FROM_BUILD
        ? 'dist/cli/bin.js: the build, as the published package runs'
        : 'bin/toolpact.js: the TypeScript sources through tsx',
      tokens: { ...tokens.figures, wire },
      calls,
      start: start.figures,
      memory,
      flood,
      leftoverProcesses: bench.leftover,
      elapsedSeconds: Math.round((Date.now() - began) / 1000),
    };
    mkdirSync(dirname(OUTPUT), { recursive: true });
    writeFileSync(OUTPUT, `${JSON.stringify(figures, null, 2)}\n`);
    process.stdout.write(
      `\n${bench.leftover.length === 0 ? 'Every process started here ended with its client.' : `${bench.leftover.length} processes outlived their client: ${bench.leftover.map((each) => `${each.pid} ${each.command}`).join('; ')}`}\n${cpus().length} CPUs, load average ${loadBefore.map((value) => value.toFixed(1)).join(' ')} before and ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')} after; ${figures.elapsedSeconds} s in all.\nFigures written to ${OUTPUT}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// 1. Tokens

interface TokenFigures {
  /** Tools the gateway lists without search. */
  readonly tools: number;
  readonly figures: {
    readonly perServer: { [server: string]: { era: string; tools: number; openai: number } };
    readonly formats: { [format: string]: { all: number; searchSession: number; searchModern: number } };
    readonly listed: { all: number; searchSession: string[]; searchModern: string[] };
  };
}

async function measureTokens(bench: Bench, config: GatewayConfig): Promise<TokenFigures> {
  const logs: string[] = [];
  const gateway = await startGateway({
    config,
    lockFile: join(bench.dir, 'tokens.lock.json'),
    watch: false,
    log: (line) => logs.push(line),
  });
  try {
    const status = gateway.status();
    const down = status.filter((server) => server.state !== 'up');
    if (down.length > 0) {
      throw new Error(
        `These servers did not start: ${down.map((server) => `${server.name} (${server.reason})`).join(', ')}\n${logs.join('\n')}`,
      );
    }
    const all = [...gateway.listing.schemas()];
    const perServer: TokenFigures['figures']['perServer'] = {};
    for (const server of status) {
      const contracts = all.filter((contract) => server.served.includes(contract.name));
      perServer[server.name] = {
        era: server.era ?? 'unknown',
        tools: contracts.length,
        openai: tokenReport(contracts, 'openai').total,
      };
    }
    // What `toolpact gateway --search` lists: the gateway's registry with search_tools, nothing always loaded.
    const search = withToolSearch(gateway.registry);
    const session = [...search.schemas()];
    const modern = [...search.stateless.schemas()];
    search.close();
    const formats: TokenFigures['figures']['formats'] = {};
    for (const format of FORMATS) {
      formats[format] = {
        all: tokenReport(all, format).total,
        searchSession: tokenReport(session, format).total,
        searchModern: tokenReport(modern, format).total,
      };
    }

    process.stdout.write(
      `Tokens of one request through the gateway (o200k_base over the tools JSON each format sends)\n\n`,
    );
    printRows(
      ['server', 'era', 'tools', 'openai tokens'],
      status.map((server) => {
        const entry = perServer[server.name]!;
        return [server.name, entry.era, String(entry.tools), String(entry.openai)];
      }),
    );
    process.stdout.write('\n');
    const names = (contracts: readonly ToolContract[]) => contracts.map((contract) => contract.name);
    printRows(
      [
        'format',
        `all ${all.length} tools`,
        `--search, 2025 session (${names(session).join(', ')})`,
        'saved',
        `--search, 2026-07-28 (${names(modern).join(', ')})`,
        'saved',
      ],
      FORMATS.map((format) => {
        const row = formats[format]!;
        return [
          format,
          String(row.all),
          String(row.searchSession),
          percentSaved(row.searchSession, row.all),
          String(row.searchModern),
          percentSaved(row.searchModern, row.all),
        ];
      }),
    );
    return {
      tools: all.length,
      figures: {
        perServer,
        formats,
        listed: { all: all.length, searchSession: names(session), searchModern: names(modern) },
      },
    };
  } finally {
    await gateway.close();
  }
}

/** What a client of the CLI is listed: the tools JSON of its `tools/list`, counted the same way. */
async function measureWire(bench: Bench, lock: string, tokens: TokenFigures) {
  const listed = async (search: boolean, era: Era) => {
    const running = await spawnGateway(bench, FIXTURE, lock, { search, era });
    try {
      return wireTokens(running.tools);
    } finally {
      await running.close();
    }
  };
  const all = await listed(false, 'legacy');
  const session = await listed(true, 'legacy');
  const modern = await listed(true, 'modern');
  process.stdout.write(
    `\nWhat a client of the CLI is listed (the tools array of its tools/list as JSON, o200k_base): ` +
      `${all.tools} tools ${all.tokens} tokens; --search, 2025-11-25 client: ${session.names.join(', ')}, ` +
      `${session.tokens} tokens; --search, 2026-07-28 client: ${modern.names.join(', ')}, ${modern.tokens} tokens ` +
      `(the mcp rows above: ${tokens.figures.formats.mcp!.all}, ${tokens.figures.formats.mcp!.searchSession}, ${tokens.figures.formats.mcp!.searchModern}).\n`,
  );
  return { all, searchSession: session, searchModern: modern };
}

function wireTokens(tools: readonly Tool[]) {
  return {
    tools: tools.length,
    names: tools.map((tool) => tool.name),
    tokens: countTokens(JSON.stringify(tools)),
  };
}

// ---------------------------------------------------------------------------------------------------------
// 2. Call overhead

interface CallCase {
  readonly name: string;
  readonly call: () => Promise<unknown>;
  readonly samples: number[];
  readonly roundMedians: number[];
}

/** The document of everything's that `resources/read` reads in every leg. */
const RESOURCE_URI = 'demo://resource/static/document/architecture.md';

async function measureCalls(bench: Bench) {
  const config = subsetConfig(bench, ['memory', 'everything'], 'call.json');
  const parsed = readConfig(bench, config);
  const targetOf = (name: ServerName) => stdioTarget(parsed, name);

  const directEverything = await connectDirect(targetOf('everything'), 'legacy');
  const directMemory = await connectDirect(targetOf('memory'), 'legacy');
  const viaRelay = await spawnRelay(bench, targetOf('everything'));
  const viaGateway = await spawnGateway(bench, config, join(bench.dir, 'call.lock.json'), { era: 'legacy' });
  const viaGatewayModern = await spawnGateway(bench, config, join(bench.dir, 'call-modern.lock.json'), {
    era: 'modern',
  });
  // The audit log on the disk (a folder of its own, as a deployment keeps it), and in memory (tmpfs):
  // a line is written before the call's result goes out, so the disk's latency is the call's.
  const auditDir = join(bench.dir, 'audit');
  mkdirSync(auditDir, { recursive: true });
  const viaGatewayAudited = await spawnGateway(bench, config, join(bench.dir, 'call-audit.lock.json'), {
    era: 'legacy',
    audit: join(auditDir, 'calls.jsonl'),
  });
  const memoryDir = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/toolpact-gateway-bench-') : undefined;
  const viaGatewayAuditedInMemory = memoryDir
    ? await spawnGateway(bench, config, join(bench.dir, 'call-audit-tmpfs.lock.json'), {
        era: 'legacy',
        audit: join(memoryDir, 'calls.jsonl'),
      })
    : undefined;
  try {
    for (const name of ['echo', 'read_graph']) {
      for (const running of [viaGateway, viaGatewayModern, viaGatewayAudited]) {
        if (!running.tools.some((tool) => tool.name === name)) {
          throw new Error(
            `The gateway does not list "${name}": ${running.tools.map((tool) => tool.name).join(', ')}`,
          );
        }
      }
    }
    for (const client of [directEverything.client, viaRelay.client]) {
      if (!(await listsResource(client))) throw new Error(`${RESOURCE_URI} is not listed`);
    }
    // Through the gateway only once it serves resources; until then this leg says so, and is not faked.
    const gatewayReads = await listsResource(viaGateway.client);
    const echo = (client: Client) => async () => {
      const result = await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
      if (result.isError || !JSON.stringify(result.content).includes('hello')) {
        throw new Error(`echo answered ${JSON.stringify(result)}`);
      }
    };
    const readGraph = (client: Client) => async () => {
      const result = await client.callTool({ name: 'read_graph', arguments: {} });
      if (result.isError) throw new Error(`read_graph answered ${JSON.stringify(result)}`);
    };
    const read = (client: Client) => async () => {
      const result = await client.readResource({ uri: RESOURCE_URI });
      const [first] = result.contents;
      if (!first || !('text' in first) || !first.text.includes('Architecture')) {
        throw new Error(`resources/read answered ${JSON.stringify(result).slice(0, 300)}`);
      }
    };
    const cases: CallCase[] = [
      { name: 'everything echo: SDK client → server', call: echo(directEverything.client) },
      { name: 'everything echo: SDK client → gateway → server', call: echo(viaGateway.client) },
      { name: 'everything echo: 2026-07-28 client → gateway → server', call: echo(viaGatewayModern.client) },
      { name: 'memory read_graph: SDK client → server', call: readGraph(directMemory.client) },
      { name: 'memory read_graph: SDK client → gateway → server', call: readGraph(viaGateway.client) },
      { name: 'everything echo: SDK client → bare relay → server', call: echo(viaRelay.client) },
      {
        name: 'everything echo: SDK client → gateway --audit → server',
        call: echo(viaGatewayAudited.client),
      },
      { name: 'everything resources/read: SDK client → server', call: read(directEverything.client) },
      {
        name: 'everything resources/read: SDK client → bare relay → server',
        call: read(viaRelay.client),
      },
      ...(viaGatewayAuditedInMemory
        ? [
            {
              name: 'everything echo: SDK client → gateway --audit on tmpfs → server',
              call: echo(viaGatewayAuditedInMemory.client),
            },
          ]
        : []),
      ...(gatewayReads
        ? [
            {
              name: 'everything resources/read: SDK client → gateway → server',
              call: read(viaGateway.client),
            },
          ]
        : []),
    ].map((entry) => ({ ...entry, samples: [], roundMedians: [] }));

    for (let round = -CALL_WARMUP; round < CALL_ROUNDS; round++) {
      for (let step = 0; step < cases.length; step++) {
        const entry = cases[(step + Math.max(round, 0)) % cases.length]!;
        const times: number[] = [];
        for (let index = 0; index < CALLS_PER_TURN; index++) {
          const started = process.hrtime.bigint();
          await entry.call();
          times.push(Number(process.hrtime.bigint() - started) / 1e6);
        }
        if (round < 0) continue;
        entry.samples.push(...times);
        entry.roundMedians.push(quantile(times, 0.5));
      }
    }

    const summary = cases.map((entry) => ({
      case: entry.name,
      calls: entry.samples.length,
      medianMs: round3(quantile(entry.samples, 0.5)),
      p10Ms: round3(quantile(entry.samples, 0.1)),
      p90Ms: round3(quantile(entry.samples, 0.9)),
      q1Ms: round3(quantile(entry.samples, 0.25)),
      q3Ms: round3(quantile(entry.samples, 0.75)),
    }));
    const ratio = (through: CallCase, direct: CallCase) => {
      const perRound = through.roundMedians.map((value, index) => value / direct.roundMedians[index]!);
      return {
        of: through.name,
        to: direct.name,
        ratioOfMedians: round3(quantile(through.samples, 0.5) / quantile(direct.samples, 0.5)),
        addedMs: round3(quantile(through.samples, 0.5) - quantile(direct.samples, 0.5)),
        perRoundRatio: {
          median: round3(quantile(perRound, 0.5)),
          q1: round3(quantile(perRound, 0.25)),
          q3: round3(quantile(perRound, 0.75)),
        },
      };
    };
    const [echoDirect, echoGateway, echoModern, graphDirect, graphGateway, echoRelay, echoAudited] = cases;
    const byName = (fragment: string) => cases.find((entry) => entry.name.includes(fragment));
    const readDirect = byName('resources/read: SDK client → server');
    const readRelay = byName('resources/read: SDK client → bare relay');
    const readGateway = byName('resources/read: SDK client → gateway');
    const echoAuditedInMemory = byName('--audit on tmpfs');
    const ratios = [
      ratio(echoGateway!, echoDirect!),
      ratio(echoModern!, echoDirect!),
      ratio(graphGateway!, graphDirect!),
      ratio(echoRelay!, echoDirect!),
      ratio(echoAudited!, echoDirect!),
      ...(echoAuditedInMemory ? [ratio(echoAuditedInMemory, echoDirect!)] : []),
      ratio(readRelay!, readDirect!),
      ...(readGateway ? [ratio(readGateway, readDirect!)] : []),
    ];
    const overRelay = [
      relayRow(
        'tools/call echo',
        ratio(echoGateway!, echoRelay!),
        ratio(echoRelay!, echoDirect!),
        ratios[0]!,
      ),
      relayRow(
        'tools/call echo, gateway --audit',
        ratio(echoAudited!, echoRelay!),
        ratio(echoRelay!, echoDirect!),
        ratio(echoAudited!, echoDirect!),
      ),
      ...(echoAuditedInMemory
        ? [
            relayRow(
              'tools/call echo, gateway --audit on tmpfs',
              ratio(echoAuditedInMemory, echoRelay!),
              ratio(echoRelay!, echoDirect!),
              ratio(echoAuditedInMemory, echoDirect!),
            ),
          ]
        : []),
      ...(readGateway
        ? [
            relayRow(
              'resources/read',
              ratio(readGateway, readRelay!),
              ratio(readRelay!, readDirect!),
              ratio(readGateway, readDirect!),
            ),
          ]
        : []),
    ];
    const notMeasured = readGateway
      ? undefined
      : 'resources/read through the gateway: not measured: the gateway does not serve resources';

    process.stdout.write(
      `\ntools/call and resources/read, sequential, ${CALL_ROUNDS} interleaved rounds of ${CALLS_PER_TURN} calls per case after ${CALL_WARMUP} warm-up rounds; ms per call over all calls\n` +
        `(the v2 SDK Client over stdio; the gateway is the CLI in a child process, the relay one too; clients on 2025-11-25 unless marked; the servers speak 2025-11-25)\n\n`,
    );
    printRows(
      ['case', 'median', 'p10', 'p90', 'IQR'],
      summary.map((row) => [
        row.case,
        row.medianMs.toFixed(3),
        row.p10Ms.toFixed(3),
        row.p90Ms.toFixed(3),
        `${row.q1Ms.toFixed(3)}–${row.q3Ms.toFixed(3)}`,
      ]),
    );
    process.stdout.write('\n');
    printRows(
      ['through the middle / direct', 'ratio of medians', 'added ms', 'per-round ratio, median [IQR]'],
      ratios.map((row) => [
        row.of.replace(/ → server$/, ''),
        `${row.ratioOfMedians.toFixed(2)}x`,
        row.addedMs.toFixed(3),
        `${row.perRoundRatio.median.toFixed(2)}x [${row.perRoundRatio.q1.toFixed(2)}–${row.perRoundRatio.q3.toFixed(2)}]`,
      ]),
    );
    process.stdout.write('\nThe gateway against the bare relay (goal: within 1.3x)\n\n');
    printRows(
      [
        'call',
        'relay adds ms',
        'gateway adds ms',
        'gateway / relay, ratio of medians',
        'per-round ratio, median [IQR]',
      ],
      overRelay.map((row) => [
        row.call,
        row.relayAddsMs.toFixed(3),
        row.gatewayAddsMs.toFixed(3),
        `${row.gatewayOverRelay.toFixed(2)}x`,
        `${row.perRound.median.toFixed(2)}x [${row.perRound.q1.toFixed(2)}–${row.perRound.q3.toFixed(2)}]`,
      ]),
    );
    if (notMeasured) process.stdout.write(`${notMeasured}.\n`);
    return {
      rounds: CALL_ROUNDS,
      warmupRounds: CALL_WARMUP,
      callsPerTurn: CALLS_PER_TURN,
      resource: RESOURCE_URI,
      cases: summary,
      ratios,
      overRelay,
      ...(notMeasured ? { notMeasured } : {}),
    };
  } finally {
    await Promise.all([
      closeFollowed(bench, directEverything),
      closeFollowed(bench, directMemory),
      viaRelay.close(),
      viaGateway.close(),
      viaGatewayModern.close(),
      viaGatewayAudited.close(),
      viaGatewayAuditedInMemory?.close(),
    ]);
    if (memoryDir) rmSync(memoryDir, { recursive: true, force: true });
  }
}

type Ratio = {
  readonly ratioOfMedians: number;
  readonly addedMs: number;
  readonly perRoundRatio: { readonly median: number; readonly q1: number; readonly q3: number };
};

/** One call's row against the relay: what each adds over direct, and the gateway's ratio to the relay. */
function relayRow(call: string, gatewayOverRelay: Ratio, relayOverDirect: Ratio, gatewayOverDirect: Ratio) {
  return {
    call,
    relayAddsMs: relayOverDirect.addedMs,
    gatewayAddsMs: gatewayOverDirect.addedMs,
    gatewayOverRelay: gatewayOverRelay.ratioOfMedians,
    perRound: gatewayOverRelay.perRoundRatio,
  };
}

/** Whether the client is listed the document every `resources/read` leg reads. */
async function listsResource(client: Client): Promise<boolean> {
  if (!client.getServerCapabilities()?.resources) return false;
  const { resources } = await client.listResources();
  return resources.some((resource) => resource.uri === RESOURCE_URI);
}

// ---------------------------------------------------------------------------------------------------------
// 2b. Where the gateway's time goes

/** The bare relay, the gateway and the gateway with `--audit`, each in front of everything. */
async function measureWhere(bench: Bench) {
  const config = subsetConfig(bench, ['everything'], 'where.json');
  const target = stdioTarget(readConfig(bench, config), 'everything');
  const lock = join(bench.dir, 'where.lock.json');
  mkdirSync(join(bench.dir, 'audit'), { recursive: true });
  const profiles = join(bench.dir, 'profiles');
  mkdirSync(profiles, { recursive: true });
  const kinds: readonly MiddleKind[] = [
    {
      name: 'bare relay',
      start: async (nodeArgs) => ({ name: 'bare relay', ...(await spawnRelay(bench, target, { nodeArgs })) }),
    },
    {
      name: 'gateway',
      start: async (nodeArgs) => ({
        name: 'gateway',
        ...(await spawnGateway(bench, config, lock, { nodeArgs })),
      }),
    },
    {
      name: 'gateway --audit',
      start: async (nodeArgs) => ({
        name: 'gateway --audit',
        ...(await spawnGateway(bench, config, lock, {
          nodeArgs,
          audit: join(bench.dir, 'audit', 'where.jsonl'),
        })),
      }),
    },
  ];
  return {
    calls: WHERE_CALLS,
    rounds: WHERE_ROUNDS,
    profileIntervalUs: PROFILE_INTERVAL_US,
    rows: await measureMiddles(kinds, profiles),
  };
}

// ---------------------------------------------------------------------------------------------------------
// 3. Start to the first tools/list

interface StartResult {
  /** The lock the timed starts wrote, to reuse. */
  readonly lock: string;
  /** Memory read in the lock-present runs, after they settled. */
  readonly memory: MemoryReading[];
  /** Server RSS when a plain client started each server (KiB), per run. */
  readonly directRss: { [server: string]: number[] };
  readonly figures: object;
}

async function measureStart(bench: Bench, config: GatewayConfig, tools: number): Promise<StartResult> {
  const targets = SERVERS.map((server) => stdioTarget(config, server.name));
  // Untimed: the disk cache, tsx's transform cache and the servers' first loads.
  const warm = await spawnGateway(bench, FIXTURE, join(bench.dir, 'warm.lock.json'), {});
  await warm.close();

  const absent: number[] = [];
  const present: number[] = [];
  const absentModern: number[] = [];
  const presentModern: number[] = [];
  const direct: number[] = [];
  // Each server's own start (spawn to its first tools/list) in the parallel run; the slowest of each run.
  const slowest: number[] = [];
  const memory: MemoryReading[] = [];
  const directRss: { [server: string]: number[] } = {};
  let lock = '';
  for (let repetition = 0; repetition < START_REPETITIONS; repetition++) {
    lock = join(bench.dir, `start-${repetition}.lock.json`);
    // The 2026-07-28 client first, on a fresh lock of its own; then the legacy one, whose lock is reused.
    const modernLock = join(bench.dir, `start-modern-${repetition}.lock.json`);
    const firstModern = await spawnGateway(bench, FIXTURE, modernLock, { expectTools: tools, era: 'modern' });
    absentModern.push(firstModern.startMs);
    await firstModern.close();
    const againModern = await spawnGateway(bench, FIXTURE, modernLock, { expectTools: tools, era: 'modern' });
    presentModern.push(againModern.startMs);
    await againModern.close();

    const first = await spawnGateway(bench, FIXTURE, lock, { expectTools: tools });
    absent.push(first.startMs);
    await first.close();
    const written = JSON.parse(readFileSync(lock, 'utf8')) as {
      servers: { [name: string]: { era?: string } };
    };
    const unknown = SERVERS.filter((server) => !written.servers[server.name]?.era);
    if (unknown.length > 0) {
      throw new Error(`The lock holds no era for ${unknown.map((server) => server.name).join(', ')}`);
    }

    const again = await spawnGateway(bench, FIXTURE, lock, { expectTools: tools });
    present.push(again.startMs);
    await sleep(SETTLE_MS);
    memory.push(readMemory(again.pid));
    await again.close();

    // A host's way: each server with its own client, all in parallel.
    const started = process.hrtime.bigint();
    let slowestMs = 0;
    const clients = await Promise.all(
      targets.map(async (target) => {
        const own = process.hrtime.bigint();
        const connected = await connectDirect(target, 'legacy');
        await connected.client.listTools();
        slowestMs = Math.max(slowestMs, Number(process.hrtime.bigint() - own) / 1e6);
        return connected;
      }),
    );
    direct.push(Number(process.hrtime.bigint() - started) / 1e6);
    slowest.push(slowestMs);
    await sleep(SETTLE_MS);
    clients.forEach((connected, index) => {
      const name = SERVERS[index]!.name;
      const rss = treeRss(connected.pid);
      if (rss !== undefined) directRss[name] = [...(directRss[name] ?? []), rss];
    });
    await Promise.all(clients.map((connected) => closeFollowed(bench, connected)));
  }
  const figures = {
    repetitions: START_REPETITIONS,
    tools,
    lockAbsentMs: { median: round1(quantile(absent, 0.5)), runs: absent.map(round1) },
    lockPresentMs: { median: round1(quantile(present, 0.5)), runs: present.map(round1) },
    modernLockAbsentMs: { median: round1(quantile(absentModern, 0.5)), runs: absentModern.map(round1) },
    modernLockPresentMs: { median: round1(quantile(presentModern, 0.5)), runs: presentModern.map(round1) },
    slowestServerMs: { median: round1(quantile(slowest, 0.5)), runs: slowest.map(round1) },
    lockPresentOverSlowest: round1(quantile(present, 0.5) / quantile(slowest, 0.5)),
    modernLockPresentOverSlowest: round1(quantile(presentModern, 0.5) / quantile(slowest, 0.5)),
    directParallelMs: { median: round1(quantile(direct, 0.5)), runs: direct.map(round1) },
  };
  process.stdout.write(
    `\nSpawn to the first tools/list holding all ${tools} tools of the five servers, ms (median of ${START_REPETITIONS}; the runs)\n\n`,
  );
  printRows(
    ['start', 'median', 'runs'],
    [
      ['gateway CLI, no lock (first start: era probed, then pinned)', absent],
      ['gateway CLI, lock present (era known, no probe)', present],
      ['gateway CLI, 2026-07-28 client, no lock', absentModern],
      ['gateway CLI, 2026-07-28 client, lock present', presentModern],
      ['the five servers, a client each, in parallel (no gateway)', direct],
      ['the slowest of the five, its own start', slowest],
    ].map(([label, values]) => [
      label as string,
      quantile(values as number[], 0.5).toFixed(0),
      (values as number[]).map((value) => value.toFixed(0)).join(', '),
    ]),
  );
  return { lock, memory, directRss, figures };
}

// ---------------------------------------------------------------------------------------------------------
// 4. Memory

interface MemoryReading {
  /** The gateway's own RSS, KiB. */
  readonly gateway: number;
  /** Each server's RSS (with its descendants), KiB, by name. */
  readonly servers: { [server: string]: number };
  /** Other children of the gateway (not a configured server), with RSS in KiB. */
  readonly others: { command: string; rss: number }[];
}

async function measureMemory(bench: Bench, start: StartResult) {
  const readings = async (names: readonly ServerName[], file: string): Promise<MemoryReading[]> => {
    const config = subsetConfig(bench, names, file);
    const result: MemoryReading[] = [];
    for (let repetition = 0; repetition < MEMORY_REPETITIONS; repetition++) {
      const running = await spawnGateway(bench, config, start.lock, {});
      await sleep(SETTLE_MS);
      result.push(readMemory(running.pid));
      await running.close();
    }
    return result;
  };
  const empty = await readings([], 'none.json');
  const alone: { [server: string]: MemoryReading[] } = {};
  for (const server of SERVERS) alone[server.name] = await readings([server.name], `${server.name}.json`);
  const browser = await browserOpen(bench, start.lock);
  const five = start.memory;

  const median = (values: readonly number[]) => quantile(values, 0.5);
  const gatewayEmpty = median(empty.map((reading) => reading.gateway));
  const gatewayFive = median(five.map((reading) => reading.gateway));
  // The first upstream loads the MCP client code too; each further one costs only its own connection.
  const gatewayAloneMean =
    SERVERS.reduce((sum, server) => sum + median(alone[server.name]!.map((reading) => reading.gateway)), 0) /
    SERVERS.length;
  const rows = SERVERS.map((server) => {
    const inFive = median(five.map((reading) => reading.servers[server.name] ?? Number.NaN));
    const plain = median(start.directRss[server.name] ?? [Number.NaN]);
    const gatewayAlone = median(alone[server.name]!.map((reading) => reading.gateway));
    return {
      server: server.name,
      serverRssMiB: mib(inFive),
      serverRssDirectMiB: mib(plain),
      gatewayRssAloneMiB: mib(gatewayAlone),
      gatewayGrowthMiB: mib(gatewayAlone - gatewayEmpty),
    };
  });
  const others = [...new Set(five.flatMap((reading) => reading.others.map((other) => other.command)))];
  const figures = {
    repetitions: { fiveServers: five.length, perServer: MEMORY_REPETITIONS, empty: MEMORY_REPETITIONS },
    settleMs: SETTLE_MS,
    gatewayRssNoServerMiB: mib(gatewayEmpty),
    gatewayRssFiveServersMiB: mib(gatewayFive),
    gatewayGrowthPerServerOfFiveMiB: mib((gatewayFive - gatewayEmpty) / SERVERS.length),
    gatewayGrowthFirstServerMiB: mib(gatewayAloneMean - gatewayEmpty),
    gatewayGrowthEachFurtherServerMiB: mib((gatewayFive - gatewayAloneMean) / (SERVERS.length - 1)),
    serversRssTotalMiB: mib(rows.reduce((sum, row) => sum + row.serverRssMiB * 1024, 0)),
    perServer: rows,
    playwrightWithBrowser: browser,
    otherChildren: others,
    readingsKiB: { empty, alone, five },
  };
  process.stdout.write(
    `\nMemory: VmRSS in MiB, read ${SETTLE_MS} ms after the first tools/list (medians; the gateway is node + tsx running the sources)\n\n`,
  );
  printRows(
    [
      'server',
      'server RSS under the gateway',
      'same, started by a plain client',
      'gateway RSS, it alone',
      'gateway growth',
    ],
    rows.map((row) => [
      row.server,
      row.serverRssMiB.toFixed(1),
      row.serverRssDirectMiB.toFixed(1),
      row.gatewayRssAloneMiB.toFixed(1),
      `${row.gatewayGrowthMiB >= 0 ? '+' : ''}${row.gatewayGrowthMiB.toFixed(1)}`,
    ]),
  );
  process.stdout.write(
    `\ngateway RSS with no server ${figures.gatewayRssNoServerMiB.toFixed(1)} MiB, with all five ${figures.gatewayRssFiveServersMiB.toFixed(1)} MiB: ` +
      `${figures.gatewayGrowthPerServerOfFiveMiB.toFixed(1)} MiB per upstream on average (the first, which also pays one-time costs such as importing the MCP client SDK, ` +
      `${figures.gatewayGrowthFirstServerMiB.toFixed(1)} MiB on average; each further one ${figures.gatewayGrowthEachFurtherServerMiB.toFixed(1)} MiB); the five servers ${figures.serversRssTotalMiB.toFixed(1)} MiB together` +
      `${others.length > 0 ? `; other children of the gateway: ${others.join('; ')}` : ''}.\n`,
  );
  process.stdout.write(
    `playwright once a tool opened its browser (browser_navigate to a data: URL through the gateway, ${browser.firstCallMs.toFixed(0)} ms for that first call): ` +
      `the server and its ${browser.processes - 1} Chromium processes ${browser.rssMiB.toFixed(1)} MiB RSS summed (shared pages counted in each), ${browser.pssMiB.toFixed(1)} MiB PSS.\n`,
  );
  return figures;
}

/** The playwright server behind the gateway after one tool call opened Chromium: its whole process tree. */
async function browserOpen(bench: Bench, lock: string) {
  const running = await spawnGateway(bench, subsetConfig(bench, ['playwright'], 'browser.json'), lock, {});
  try {
    const started = process.hrtime.bigint();
    const result = await running.client.callTool({
      name: 'browser_navigate',
      arguments: { url: 'data:text/html,<h1>Gateway bench</h1>' },
    });
    const firstCallMs = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.isError || !JSON.stringify(result.content).includes('Gateway bench')) {
      throw new Error(`browser_navigate answered ${JSON.stringify(result).slice(0, 500)}`);
    }
    await sleep(SETTLE_MS);
    const server = childrenOf(running.pid).find((pid) => commandOf(pid).includes('/@playwright/mcp/'));
    if (server === undefined) throw new Error('The gateway has no playwright child.');
    const tree = [server, ...descendantsOf(server)];
    const sum = (read: (pid: number) => number | undefined) =>
      tree.reduce((total, pid) => total + (read(pid) ?? 0), 0);
    return {
      firstCallMs: round1(firstCallMs),
      processes: tree.length,
      rssMiB: mib(sum(rssOf)),
      pssMiB: mib(sum(pssOf)),
    };
  } finally {
    await running.close();
  }
}

function readMemory(gatewayPid: number): MemoryReading {
  const servers: { [server: string]: number } = {};
  const others: { command: string; rss: number }[] = [];
  for (const child of childrenOf(gatewayPid)) {
    const command = commandOf(child);
    const server = SERVERS.find((entry) => command.includes(`/${entry.package}/`));
    const rss = treeRss(child) ?? 0;
    if (server) servers[server.name] = (servers[server.name] ?? 0) + rss;
    else others.push({ command: command.replace(ROOT, '.'), rss });
  }
  return { gateway: rssOf(gatewayPid) ?? Number.NaN, servers, others };
}

// ---------------------------------------------------------------------------------------------------------
// 5. Flood

const FLOOD_SERVER = join(ROOT, 'test', 'fixtures', 'gateway', 'flood-server.mjs');
const FLOOD_COUNT = 300_000;
const FLOOD_REPETITIONS = 3;
/** Calls to the other server with no flood, and during each flood (the first two not counted). */
const FLOOD_CALLS = 40;

async function measureFlood(bench: Bench) {
  const quiet: number[] = [];
  const during: number[] = [];
  const rows: {
    rssBeforeMiB: number;
    rssRiseMiB: number;
    floodSeconds: number;
    sent: number;
    listings: number;
  }[] = [];
  for (let repetition = 0; repetition < FLOOD_REPETITIONS; repetition++) {
    const log = join(bench.dir, `flood-${repetition}.log`);
    const stop = join(bench.dir, `flood-${repetition}.stop`);
    const config = join(bench.dir, `flood-${repetition}.json`);
    const entry = (env: { [name: string]: string }) => ({
      command: process.execPath,
      args: [FLOOD_SERVER],
      env,
    });
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          flood: entry({ FLOOD_LOG: log, FLOOD_STOP: stop, FLOOD_COUNT: String(FLOOD_COUNT) }),
          other: entry({}),
        },
        toolpact: { policy: { rules: [{ id: 'all', action: 'allow', source: 'mcp:*' }] } },
      }),
    );
    const running = await spawnGateway(bench, config, join(bench.dir, `flood-${repetition}.lock.json`), {
      expectTools: 4,
    });
    try {
      const echo = async (): Promise<number> => {
        const started = process.hrtime.bigint();
        const result = await running.client.callTool({ name: 'other_echo', arguments: { text: 'x' } });
        if (result.isError) throw new Error(`other_echo answered ${JSON.stringify(result)}`);
        return Number(process.hrtime.bigint() - started) / 1e6;
      };
      for (let call = 0; call < FLOOD_CALLS; call++) quiet.push(await echo());
      await sleep(SETTLE_MS);
      const before = rssOf(running.pid) ?? Number.NaN;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssOf(running.pid) ?? 0);
      }, 20);
      const started = process.hrtime.bigint();
      await running.client.callTool({ name: 'flood', arguments: {} });
      // The flood goes on until it sees the stop file: every call timed here was answered during it.
      for (let call = 0; call < FLOOD_CALLS + 2; call++) {
        const ms = await echo();
        if (call >= 2) during.push(ms);
      }
      writeFileSync(stop, '');
      while (!(existsSync(log) && readFileSync(log, 'utf8').includes('done '))) await sleep(10);
      const floodSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      clearInterval(sampler);
      peak = Math.max(peak, rssOf(running.pid) ?? 0);
      const [, sent, listings] = readFileSync(log, 'utf8').match(/^done (\d+) (\d+)$/m) ?? [];
      rows.push({
        rssBeforeMiB: mib(before),
        rssRiseMiB: mib(peak - before),
        floodSeconds: round1(floodSeconds),
        sent: Number(sent),
        listings: Number(listings),
      });
    } finally {
      await running.close();
    }
  }
  const quietMedian = quantile(quiet, 0.5);
  const duringMedian = quantile(during, 0.5);
  const figures = {
    notifications: `${FLOOD_COUNT} list_changed, each with a log notification (more while calls go on)`,
    repetitions: FLOOD_REPETITIONS,
    callsPerRepetition: FLOOD_CALLS,
    quietMs: { median: round1(quietMedian), p90: round1(quantile(quiet, 0.9)) },
    duringMs: {
      median: round1(duringMedian),
      p90: round1(quantile(during, 0.9)),
      max: round1(Math.max(...during)),
    },
    latencyRatio: round1(duringMedian / quietMedian),
    rssRiseMiB: {
      median: round1(
        quantile(
          rows.map((row) => row.rssRiseMiB),
          0.5,
        ),
      ),
      max: Math.max(...rows.map((row) => row.rssRiseMiB)),
    },
    perRepetition: rows,
  };
  process.stdout.write(
    `\nFlood: another server's echo through the gateway while one server sends ${FLOOD_COUNT} list_changed + log notifications (${FLOOD_REPETITIONS} gateways, ${FLOOD_CALLS} calls each)\n\n`,
  );
  printRows(
    ['', 'median ms', 'p90 ms'],
    [
      ['no flood', figures.quietMs.median.toFixed(1), figures.quietMs.p90.toFixed(1)],
      ['during the flood', figures.duringMs.median.toFixed(1), figures.duringMs.p90.toFixed(1)],
    ],
  );
  process.stdout.write(
    `\nratio ${figures.latencyRatio}× (max during ${figures.duringMs.max} ms); gateway RSS rise ${rows.map((row) => `${row.rssRiseMiB}`).join(', ')} MiB from ${rows.map((row) => `${row.rssBeforeMiB}`).join(', ')}; ` +
      `floods of ${rows.map((row) => `${row.sent} in ${row.floodSeconds} s with ${row.listings} listings`).join('; ')}.\n`,
  );
  return figures;
}

// ---------------------------------------------------------------------------------------------------------
// Processes

interface RunningGateway {
  readonly client: Client;
  readonly pid: number;
  readonly tools: readonly Tool[];
  /** Spawn to the listing that holds every expected tool. */
  readonly startMs: number;
  close(): Promise<void>;
}

/** Spawns `toolpact gateway` with a client on its stdio and waits for its first full listing. */
async function spawnGateway(
  bench: Bench,
  config: string,
  lock: string,
  options: {
    search?: boolean;
    era?: Era;
    expectTools?: number;
    /** A JSON Lines audit log (`--audit`). */
    audit?: string;
    /** Options of node itself, before the script (e.g. `--cpu-prof`). */
    nodeArgs?: readonly string[];
  },
): Promise<RunningGateway> {
  const started = process.hrtime.bigint();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...(options.nodeArgs ?? []),
      CLI,
      'gateway',
      '--config',
      config,
      '--lock',
      lock,
      ...(options.search ? ['--search'] : []),
      ...(options.audit ? ['--audit', options.audit] : []),
    ],
    cwd: ROOT,
    env: { ...bench.env },
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as Readable).on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = newClient(options.era ?? 'legacy');
  let tools: Tool[] = [];
  try {
    await client.connect(transport);
    const negotiated = client.getNegotiatedProtocolVersion();
    if ((negotiated === MODERN) !== (options.era === 'modern')) {
      throw new Error(`the client negotiated ${negotiated}, not the ${options.era ?? 'legacy'} era`);
    }
    const deadline = Date.now() + 60_000;
    for (;;) {
      tools = await listAll(client);
      if (options.expectTools === undefined || tools.length >= options.expectTools) break;
      if (Date.now() > deadline) throw new Error(`listed ${tools.length} of ${options.expectTools} tools`);
      await sleep(10);
    }
  } catch (error) {
    await client.close().catch(() => {});
    throw new Error(
      `toolpact gateway (${config}): ${error instanceof Error ? error.message : String(error)}\n${stderr}`,
    );
  }
  const startMs = Number(process.hrtime.bigint() - started) / 1e6;
  const pid = transport.pid!;
  return {
    client,
    pid,
    tools,
    startMs,
    close: async () => {
      const tree = [pid, ...descendantsOf(pid)];
      await client.close();
      await awaitExit(bench, tree);
    },
  };
}

const RELAY = join(ROOT, 'bench', 'fixtures', 'gateway', 'bare-relay.ts');

/**
 * Spawns the bare relay in front of the server, through tsx as the gateway runs from a checkout, with
 * a client on its stdio. The relay starts the server with the target's environment added to its own.
 */
async function spawnRelay(
  bench: Bench,
  target: StdioTarget,
  options: { nodeArgs?: readonly string[] } = {},
): Promise<Omit<RunningGateway, 'startMs'>> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(options.nodeArgs ?? []), '--import', 'tsx', RELAY, target.command, ...target.args],
    cwd: target.cwd ?? ROOT,
    env: { ...target.env },
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as Readable).on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = newClient('legacy');
  let tools: Tool[];
  try {
    await client.connect(transport);
    tools = await listAll(client);
  } catch (error) {
    await client.close().catch(() => {});
    throw new Error(`the bare relay: ${error instanceof Error ? error.message : String(error)}\n${stderr}`);
  }
  const pid = transport.pid!;
  return {
    client,
    pid,
    tools,
    close: async () => {
      const tree = [pid, ...descendantsOf(pid)];
      await client.close();
      await awaitExit(bench, tree);
    },
  };
}

interface DirectClient {
  readonly client: Client;
  readonly pid: number;
}

async function connectDirect(target: StdioTarget, era: Era): Promise<DirectClient> {
  const transport = new StdioClientTransport({
    command: target.command,
    args: [...target.args],
    env: { ...target.env },
    ...(target.cwd ? { cwd: target.cwd } : {}),
    stderr: 'ignore',
  });
  const client = newClient(era);
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

async function closeFollowed(bench: Bench, connected: DirectClient): Promise<void> {
  const tree = [connected.pid, ...descendantsOf(connected.pid)];
  await connected.client.close();
  await awaitExit(bench, tree);
}

function newClient(era: Era): Client {
  return new Client(
    { name: 'gateway-bench', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
}

async function listAll(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** Waits until every pid has exited; one still running after 8 s is reported, then killed. */
async function awaitExit(bench: Bench, pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + 8_000;
  let running = pids.filter(isRunning);
  while (running.length > 0 && Date.now() < deadline) {
    await sleep(25);
    running = running.filter(isRunning);
  }
  for (const pid of running) {
    bench.leftover.push({ pid, command: commandOf(pid).replace(ROOT, '.') });
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}

/** A zombie still answers kill(0); its state in /proc says it has exited. */
function isRunning(pid: number): boolean {
  const state = statOf(pid)?.state;
  return state !== undefined && state !== 'Z' && state !== 'X';
}

function statOf(pid: number): { state: string; ppid: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // pid (comm) state ppid …; the command name may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0]!, ppid: Number(fields[1]) };
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (stat?.ppid === pid && stat.state !== 'Z') children.push(Number(entry));
  }
  return children;
}

function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of childrenOf(queue.shift()!)) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function rssOf(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Proportional set size (shared pages divided among their processes), KiB. */
function pssOf(pid: number): number | undefined {
  try {
    const match = /^Pss:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** RSS of a process and its descendants, KiB. */
function treeRss(pid: number): number | undefined {
  const own = rssOf(pid);
  if (own === undefined) return undefined;
  return descendantsOf(pid).reduce((sum, child) => sum + (rssOf(child) ?? 0), own);
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------------------
// Configs

function readConfig(bench: Bench, file: string): GatewayConfig {
  return readGatewayConfig(file, { env: { ...process.env, ...bench.env } });
}

/** The fixture with only the named servers, written into the bench's folder. */
function subsetConfig(bench: Bench, names: readonly ServerName[], file: string): string {
  const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as {
    mcpServers: { [name: string]: unknown };
    toolpact: unknown;
  };
  const mcpServers = Object.fromEntries(names.map((name) => [name, fixture.mcpServers[name]]));
  const path = join(bench.dir, file);
  writeFileSync(path, `${JSON.stringify({ mcpServers, toolpact: fixture.toolpact }, null, 2)}\n`);
  return path;
}

function stdioTarget(config: GatewayConfig, name: ServerName): StdioTarget {
  const server = config.servers.find((entry) => entry.name === name);
  if (server?.target.kind !== 'stdio') throw new Error(`The config has no stdio server "${name}".`);
  return server.target;
}

/** Every fixture server starts its package's own bin script with this node; answers the versions. */
function checkTargets(config: GatewayConfig): { [server: string]: string } {
  const versions: { [server: string]: string } = {};
  for (const server of SERVERS) {
    const manifest = JSON.parse(readFileSync(join(MODULES, server.package, 'package.json'), 'utf8')) as {
      version: string;
      bin: string | { [name: string]: string };
    };
    const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0]!;
    const target = stdioTarget(config, server.name);
    const script = join(MODULES, server.package, bin);
    if (target.command !== process.execPath || target.args[0] !== script || !existsSync(script)) {
      throw new Error(
        `${server.name}: the fixture starts ${target.command} ${target.args.join(' ')}, not ${script}`,
      );
    }
    versions[server.name] = `${server.package}@${manifest.version}`;
  }
  return versions;
}

// ---------------------------------------------------------------------------------------------------------
// Figures

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

const round1 = (value: number) => Math.round(value * 10) / 10;
const round3 = (value: number) => Math.round(value * 1000) / 1000;
const mib = (kib: number) => round1(kib / 1024);

function percentSaved(part: number, whole: number): string {
  return `${Math.round((1 - part / whole) * 100)}%`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
