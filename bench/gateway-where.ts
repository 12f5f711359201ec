/**
 * Where the time of a process between an MCP client and a server goes, for `npm run bench -- gateway`:
 * the CPU each kind of middle process spends per `tools/call`, then a CPU profile of each summed by who
 * owns the running code (the SDK, Node.js, and toolpact's steps).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { type ProfileFrame, profileParts } from './cpu-profile.js';
import { printRows } from './measure.js';

const ROOT = join(import.meta.dirname, '..');

/** Calls per process for the CPU figures: enough that /proc's 10 ms ticks are a few percent of them. */
export const WHERE_CALLS = 3_000;
export const WHERE_ROUNDS = 10;
const WHERE_WARMUP = 300;
/** Sampling interval of the CPU profile, µs. */
export const PROFILE_INTERVAL_US = 100;

/**
 * toolpact's steps that call nothing of the SDK: a sample anywhere under one (a digest or a write of
 * the audit, ajv's compiled validator, `JSON.stringify` of the envelope) counts for it.
 */
const STEPS: readonly (readonly [RegExp, string])[] = [
  [/\/dispatch\/(validate-|validation|parse\.)/, 'toolpact: validation (arguments, result)'],
  [/\/(policy\/|dispatch\/gate)/, 'toolpact: gate (policy)'],
  [/\/audit\//, 'toolpact: audit (entry, digest, redaction, write)'],
  [
    /\/(schema\/mcp|dispatch\/(envelope|serialize|deliver|shorten-json|completed)|mcp\/remote-result)\./,
    'toolpact: envelope and re-wrap (JSON)',
  ],
];

/** The rest of toolpact's code, by the file of the innermost frame that has a script. */
const OWNERS: readonly (readonly [RegExp, string])[] = [
  [
    /\/(mcp\/(stdio-transport|connect|remote-tool)|gateway\/(upstream|served-tool))\./,
    'toolpact: upstream client (transport, call)',
  ],
  [/\/(mcp|cli)\//, 'toolpact: MCP face (handler, request context, stdin)'],
  [/\/(dispatch|registry)\//, 'toolpact: pipeline (other steps)'],
];

const isToolpact = (url: string) => url.includes(ROOT) && !url.includes('/node_modules/');

/**
 * Which part a sampled stack (innermost frame first) goes to: the innermost of toolpact's steps it
 * is under, else whoever owns the innermost code with a script (the SDK, Node.js, toolpact).
 *
 * @example
 * profileParts(file, partOf, window); // Map { 'MCP SDK: JSON-RPC, zod checks of each message' => 812.4, … }
 */
export function partOf(stack: readonly ProfileFrame[]): string {
  for (const frame of stack) {
    if (!isToolpact(frame.url)) continue;
    for (const [pattern, part] of STEPS) if (pattern.test(frame.url)) return part;
  }
  const owner = stack.find((frame) => frame.url !== '');
  if (!owner) {
    const leaf = stack[0]!.functionName;
    if (leaf === '(garbage collector)') return 'garbage collection';
    if (leaf === '(program)') return 'V8 and native code outside JavaScript';
    return 'V8 builtins outside any script';
  }
  const url = owner.url;
  if (url.includes('/@modelcontextprotocol/') || url.includes('/zod/')) {
    return 'MCP SDK: JSON-RPC, zod checks of each message';
  }
  if (url.startsWith('node:')) return 'Node.js: pipes, streams, timers, abort signals';
  if (isToolpact(url)) {
    for (const [pattern, part] of OWNERS) if (pattern.test(url)) return part;
    return 'toolpact: other';
  }
  return 'other scripts';
}

/** A kind of middle process, and how to start one (with options of node itself, e.g. `--cpu-prof`). */
export interface MiddleKind {
  readonly name: string;
  start(nodeArgs: readonly string[]): Promise<Middle>;
}

/** One middle process's CPU per call and its sampled time by part, µs per call. */
export interface WhereRow {
  readonly middle: string;
  readonly calls: number;
  readonly wallUsPerCall: number;
  readonly mainThreadCpuUsPerCall: number;
  readonly otherThreadsCpuUsPerCall: number;
  /** The server's CPU (the middle process's children, every thread). */
  readonly serverCpuUsPerCall: number;
  /** The client's: this process's CPU while it made the calls. */
  readonly clientCpuUsPerCall: number;
  /** Client, middle and server together. */
  readonly chainCpuUsPerCall: number;
  readonly sampledUsPerCall: number;
  readonly parts: { readonly [part: string]: number };
}

/** A process between the bench's client and the server, with a client connected to it. */
export interface Middle {
  readonly name: string;
  readonly client: Client;
  readonly pid: number;
  close(): Promise<void>;
}

/**
 * Each kind's CPU per echo call without the profiler (user + system from /proc, main thread and the
 * others; all kinds side by side in interleaved rounds after a warm-up), then each again alone under
 * `node --cpu-prof`, its main thread's samples over the window of its calls summed by {@link partOf}.
 * Profiles are written to `profiles`. Prints the figures; the first kind is the floor the others are
 * compared with, the second the one the parts are sorted by.
 *
 * @example
 * const rows = await measureWhere([relay, gateway, audited], join(dir, 'profiles'));
 */
export async function measureWhere(kinds: readonly MiddleKind[], profiles: string): Promise<WhereRow[]> {
  const echoOf = (middle: Middle) => async () => {
    const result = await middle.client.callTool({ name: 'echo', arguments: { message: 'hello' } });
    if (result.isError) throw new Error(`${middle.name}: echo answered ${JSON.stringify(result)}`);
  };

  // CPU without the profiler: every kind side by side, in interleaved rounds. Besides the middle
  // process, the server behind it (its children) and this process, the client: the whole chain's CPU
  // per call, which a crowded machine does not inflate as it does the wall time.
  const cpu = kinds.map(() => ({ wallMs: 0, mainMs: 0, otherMs: 0, serverMs: 0, clientMs: 0 }));
  const unprofiled: Middle[] = [];
  try {
    for (const kind of kinds) unprofiled.push(await kind.start([]));
    for (const middle of unprofiled) for (let call = 0; call < WHERE_WARMUP; call++) await echoOf(middle)();
    const servers = unprofiled.map((middle) => childrenOf(middle.pid));
    for (let round = 0; round < WHERE_ROUNDS; round++) {
      for (let step = 0; step < unprofiled.length; step++) {
        const index = (step + round) % unprofiled.length;
        const middle = unprofiled[index]!;
        const echo = echoOf(middle);
        const serverMs = () => servers[index]!.reduce((sum, pid) => sum + cpuOf(pid).allMs, 0);
        const before = { middle: cpuOf(middle.pid), server: serverMs(), client: process.cpuUsage() };
        const started = process.hrtime.bigint();
        for (let call = 0; call < WHERE_CALLS / WHERE_ROUNDS; call++) await echo();
        const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
        const client = process.cpuUsage(before.client);
        const after = cpuOf(middle.pid);
        const totals = cpu[index]!;
        totals.wallMs += wallMs;
        totals.mainMs += after.mainMs - before.middle.mainMs;
        totals.otherMs += after.allMs - after.mainMs - (before.middle.allMs - before.middle.mainMs);
        totals.serverMs += serverMs() - before.server;
        totals.clientMs += (client.user + client.system) / 1000;
      }
    }
  } finally {
    await Promise.all(unprofiled.map((middle) => middle.close()));
  }

  // Then each under the profiler, alone, its profile cut to the window of its calls.
  const rows: WhereRow[] = [];
  const profiled = ['--cpu-prof', `--cpu-prof-dir=${profiles}`, `--cpu-prof-interval=${PROFILE_INTERVAL_US}`];
  for (const [index, kind] of kinds.entries()) {
    const middle = await kind.start(profiled);
    let window: { from: number; to: number };
    try {
      const echo = echoOf(middle);
      for (let call = 0; call < WHERE_WARMUP; call++) await echo();
      const from = process.hrtime.bigint();
      for (let call = 0; call < WHERE_CALLS; call++) await echo();
      window = { from: Number(from / 1000n), to: Number(process.hrtime.bigint() / 1000n) };
    } finally {
      await middle.close();
    }
    // The main thread's profile (thread 0), written as the process exits.
    const file = readdirSync(profiles).find((name) => name.includes(`.${middle.pid}.0.`));
    if (!file) throw new Error(`${middle.name} (pid ${middle.pid}) wrote no CPU profile in ${profiles}`);
    const parts = profileParts(join(profiles, file), partOf, window);
    const sampled = [...parts.values()].reduce((sum, ms) => sum + ms, 0);
    const perCall = (ms: number) => round1((ms * 1000) / WHERE_CALLS);
    rows.push({
      middle: kind.name,
      calls: WHERE_CALLS,
      wallUsPerCall: perCall(cpu[index]!.wallMs),
      mainThreadCpuUsPerCall: perCall(cpu[index]!.mainMs),
      otherThreadsCpuUsPerCall: perCall(cpu[index]!.otherMs),
      serverCpuUsPerCall: perCall(cpu[index]!.serverMs),
      clientCpuUsPerCall: perCall(cpu[index]!.clientMs),
      chainCpuUsPerCall: perCall(
        cpu[index]!.mainMs + cpu[index]!.otherMs + cpu[index]!.serverMs + cpu[index]!.clientMs,
      ),
      sampledUsPerCall: perCall(sampled),
      parts: Object.fromEntries(
        [...parts].sort((a, b) => b[1] - a[1]).map(([part, ms]) => [part, perCall(ms)]),
      ),
    });
  }
  process.stdout.write(
    `\nWhere the time goes: ${WHERE_CALLS} echo calls through each middle process after ${WHERE_WARMUP} warm-up calls, µs per call.\n` +
      `CPU: user + system from /proc (the client: this process), all side by side in ${WHERE_ROUNDS} interleaved rounds, no profiler. Sampled: the same calls again under\n` +
      `node --cpu-prof (every ${PROFILE_INTERVAL_US} µs, which slows the process), the main thread over the calls' window, idle left out,\n` +
      'each sample counted for the code that was running (a builtin such as JSON.stringify for the script that called it).\n\n',
  );
  const [floor, compared] = [rows[0]!, rows[1] ?? rows[0]!];
  printRows(
    [
      'middle process',
      'wall',
      'CPU: main thread',
      'other threads',
      'server',
      'client',
      'whole chain',
      `chain / ${floor.middle}`,
      'sampled, main thread',
    ],
    rows.map((row) => [
      row.middle,
      row.wallUsPerCall.toFixed(0),
      row.mainThreadCpuUsPerCall.toFixed(0),
      row.otherThreadsCpuUsPerCall.toFixed(0),
      row.serverCpuUsPerCall.toFixed(0),
      row.clientCpuUsPerCall.toFixed(0),
      row.chainCpuUsPerCall.toFixed(0),
      `${(row.chainCpuUsPerCall / floor.chainCpuUsPerCall).toFixed(2)}x`,
      row.sampledUsPerCall.toFixed(0),
    ]),
    { numbers: true },
  );
  const names = [...new Set(rows.flatMap((row) => Object.keys(row.parts)))].sort(
    (a, b) => (compared.parts[b] ?? 0) - (compared.parts[a] ?? 0),
  );
  process.stdout.write('\n');
  printRows(
    [
      'sampled µs per call, by part',
      ...rows.map((row) => row.middle),
      `${compared.middle} − ${floor.middle}`,
    ],
    names.map((name) => [
      name,
      ...rows.map((row) => (row.parts[name] ?? 0).toFixed(1)),
      ((compared.parts[name] ?? 0) - (floor.parts[name] ?? 0)).toFixed(1),
    ]),
    { numbers: true },
  );
  return rows;
}

/** The processes whose parent is `pid` (read from /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid …; the command name may hold spaces and parentheses.
    if (Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
  }
  return children;
}

/** User + system CPU time of a process (every thread) and of its main thread, ms, from /proc (10 ms ticks). */
function cpuOf(pid: number): { allMs: number; mainMs: number } {
  const ticks = (file: string) => {
    const text = readFileSync(file, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime), counted from the state (field 3).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  };
  return { allMs: ticks(`/proc/${pid}/stat`), mainMs: ticks(`/proc/${pid}/task/${pid}/stat`) };
}

/** USER_HZ: Linux reports process times in hundredths of a second on every architecture Node runs on. */
const CLOCK_TICKS = 100;

const round1 = (value: number) => Math.round(value * 10) / 10;
