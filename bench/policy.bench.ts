/**
 * The permission gate's cost per call, and the sandbox's start-up cost per run_command call.
 *
 * Gate: the same call with no gate, through a policy gate of ten rules (globs, sources, argument
 * tests; the call is decided by an argument rule), and through the gate plus the audit log (one
 * JSON line written per call). Measured on a trivial in-memory tool (the worst case for a ratio) and on
 * the example read_file tool reading a real file. Sandbox: `sandbox.run('true')` (bubblewrap with
 * every namespace, the limits and the capability drop) against spawning `sh -c true` directly.
 * Audit sinks: records kept per second by each sink's `observe` (redaction and digest included), in
 * interleaved rounds with wall and CPU time: the JSON Lines file, SQLite (WAL, synchronous=NORMAL),
 * and OpenTelemetry log records through the SDK's batch processor to an in-memory exporter, the flush
 * at the end of each round timed with it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchLogRecordProcessor, InMemoryLogRecordExporter, LoggerProvider } from '@opentelemetry/sdk-logs';
import { createWorkspaceTools } from '../examples/workspace/tools.js';
import { type CallRecord, defineTool, Registry } from '../src/index.js';
import { createOtelAuditSink } from '../src/otel/index.js';
import { createPolicyGate, definePolicy, openAuditLog, openSqliteAuditLog } from '../src/policy/index.js';
import { createBubblewrapSandbox } from '../src/sandbox/index.js';
import { interleave, measure, printSpreadTable, printTable, roundRatios, spreadOf } from './measure.js';

const policy = definePolicy({
  rules: [
    { id: 'no-delete', action: 'deny', tool: ['delete_*', 'rm*'] },
    { id: 'no-mcp-writes', action: 'deny', source: 'mcp:*', category: 'write' },
    { id: 'secrets', action: 'deny', arguments: { path: { under: ['secrets', '.git'] } } },
    { id: 'docs-writable', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } },
    { id: 'shell-asks', action: 'ask', category: 'execute' },
    { id: 'delegation-asks', action: 'ask', category: 'delegate' },
    { id: 'mcp-asks', action: 'ask', source: 'mcp:*' },
    { id: 'reads', action: 'allow', category: ['read', 'search'] },
    { id: 'big-reads', action: 'ask', tool: 'read_file', arguments: { path: { glob: '**/*.log' } } },
    { id: 'docs-read', action: 'allow', tool: 'read_file', arguments: { path: { under: 'docs' } } },
  ],
});

/**
 * Twenty path rules, relative and absolute, `under` and globs (`**` segments, `~/`), as a policy that
 * guards a workspace and the home folder would have; every call is read against the roots and home.
 */
function pathPolicy(workspace: string) {
  return definePolicy({
    rules: [
      { id: 'ssh', action: 'deny', arguments: { path: { under: '~/.ssh' } } },
      { id: 'aws', action: 'deny', arguments: { path: { under: '~/.aws' } } },
      { id: 'gnupg', action: 'deny', arguments: { path: { glob: '~/.gnupg/**' } } },
      { id: 'etc', action: 'deny', arguments: { path: { glob: '/etc/**' } } },
      { id: 'proc', action: 'deny', arguments: { path: { under: ['/proc', '/sys'] } } },
      { id: 'dot-env', action: 'deny', arguments: { path: { glob: '**/.env' } } },
      { id: 'pem', action: 'deny', arguments: { path: { glob: '**/*.pem' } } },
      { id: 'keys', action: 'deny', arguments: { path: { glob: '**/id_*' } } },
      { id: 'git', action: 'deny', arguments: { path: { under: '.git' } } },
      { id: 'secrets', action: 'deny', arguments: { path: { under: ['secrets', `${workspace}/private`] } } },
      { id: 'node-modules', action: 'ask', arguments: { path: { under: 'node_modules' } } },
      { id: 'logs', action: 'ask', arguments: { path: { glob: '**/*.log' } } },
      { id: 'dist', action: 'ask', arguments: { path: { glob: 'dist/**' } } },
      { id: 'lock-files', action: 'ask', arguments: { path: { glob: '**/*-lock.json' } } },
      { id: 'build', action: 'ask', arguments: { path: { under: `${workspace}/build` } } },
      { id: 'docs-read', action: 'allow', tool: 'read_file', arguments: { path: { under: 'docs' } } },
      {
        id: 'src-read',
        action: 'allow',
        tool: 'read_file',
        arguments: { path: { under: `${workspace}/src` } },
      },
      { id: 'tests-read', action: 'allow', tool: 'read_file', arguments: { path: { glob: 'test/**/*.ts' } } },
      { id: 'readme', action: 'allow', tool: 'read_file', arguments: { path: { equals: 'README.md' } } },
      { id: 'reads', action: 'allow', category: ['read', 'search'] },
    ],
  });
}

export default async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'toolpact-bench-policy-'));
  try {
    await gateOverhead(dir);
    await auditSinkThroughput(dir);
    await sandboxStartup(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function gateOverhead(dir: string): Promise<void> {
  const echo = defineTool({
    name: 'read_file',
    description: 'Echo (a trivial tool for the benchmark).',
    category: 'read',
    input: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    execute: (args: { path: string }) => args.path,
  });
  const workspace = join(dir, 'ws');
  await import('node:fs/promises').then((fs) => fs.mkdir(join(workspace, 'docs'), { recursive: true }));
  writeFileSync(join(workspace, 'docs', 'guide.md'), '# Guide\n\nSome text to read.\n'.repeat(20));
  const readFile = createWorkspaceTools(workspace).find((tool) => tool.contract.name === 'read_file')!;
  const audit = openAuditLog(join(dir, 'audit.jsonl'));
  const args = '{"path":"docs/guide.md"}';

  for (const [label, tool, iterations] of [
    ['trivial tool', echo, 10_000],
    ['read_file (real file)', readFile, 1_000],
  ] as const) {
    const plain = new Registry().register(tool);
    const gated = new Registry({ ...createPolicyGate(policy).registryOptions }).register(tool);
    const paths = new Registry({
      ...createPolicyGate(pathPolicy(workspace), { roots: [workspace] }).registryOptions,
    }).register(tool);
    const audited = new Registry({
      ...createPolicyGate(policy, { observe: audit.observe }).registryOptions,
    }).register(tool);
    const check = JSON.parse(await gated.dispatch('read_file', args)) as { ok: boolean };
    if (!check.ok) throw new Error('the benchmark call was not allowed');
    const pathCheck = JSON.parse(await paths.dispatch('read_file', args)) as { ok: boolean };
    if (!pathCheck.ok) throw new Error('the benchmark call was not allowed by the path rules');
    const series = await interleave(
      [
        { name: `${label}: no gate`, operation: () => plain.dispatch('read_file', args), iterations },
        { name: `${label}: policy gate`, operation: () => gated.dispatch('read_file', args), iterations },
        {
          name: `${label}: gate, 20 path rules`,
          operation: () => paths.dispatch('read_file', args),
          iterations,
        },
        { name: `${label}: gate + audit`, operation: () => audited.dispatch('read_file', args), iterations },
      ],
      { rounds: 15 },
    );
    const [none, gate, pathGate, logged] = series;
    printSpreadTable(series, none!);
    const overhead = (of: typeof none) => spreadOf(roundRatios(of!.wall, none!.wall)).median;
    const extra = spreadOf(gate!.wall).median - spreadOf(none!.wall).median;
    process.stdout.write(
      `  gate overhead ${pct(overhead(gate))} (median of per-round ratios; ${(extra / 1000).toFixed(2)} µs), 20 path rules ${pct(overhead(pathGate))}, with audit ${pct(overhead(logged))}\n\n`,
    );
  }
  audit.close();
}

async function auditSinkThroughput(dir: string): Promise<void> {
  const record: CallRecord = {
    tool: 'write_file',
    category: 'write',
    callId: 'call_bench',
    arguments: { path: 'docs/guide.md', content: 'Some text to write. '.repeat(10), token: 'not-a-secret' },
    decision: { action: 'allow', rule: 'docs-writable', reason: 'docs are writable' },
    outcome: 'ok',
    startedAt: Date.now(),
    durationMs: 0.4,
    state: undefined,
  };
  const file = openAuditLog(join(dir, 'sinks.jsonl'));
  const sqlite = openSqliteAuditLog(join(dir, 'sinks.db'));
  const exporter = new InMemoryLogRecordExporter();
  const processor = new BatchLogRecordProcessor({ exporter, maxQueueSize: 100_000, maxExportBatchSize: 512 });
  const loggers = new LoggerProvider({ processors: [processor] });
  const otel = createOtelAuditSink({ logger: loggers.getLogger('toolpact') });
  const iterations = 5_000;
  process.stdout.write(`audit sinks: ${iterations} records a round, 9 interleaved rounds\n`);
  const sinks = await interleave(
    [
      { name: 'JSON Lines file', operation: () => file.observe(record), iterations },
      { name: 'SQLite (WAL)', operation: () => sqlite.observe(record), iterations },
      {
        name: 'OpenTelemetry log records',
        operation: () => otel.observe(record),
        iterations,
        beforeRound: () => exporter.reset(),
        afterRound: () => loggers.forceFlush(),
      },
    ],
    { rounds: 9, warmup: 1 },
  );
  printSpreadTable(sinks, sinks[0]!, 'record');
  const kept = [file, sqlite, otel].map((sink) => sink.written());
  const lost = [file, sqlite, otel].reduce((total, sink) => total + sink.failed(), 0);
  if (lost > 0 || new Set(kept).size !== 1) throw new Error(`a sink lost records: kept ${kept.join(', ')}`);
  if (exporter.getFinishedLogRecords().length !== iterations)
    throw new Error('the log exporter missed records');
  process.stdout.write(`  every sink kept all ${kept[0]} records\n\n`);
  file.close();
  sqlite.close();
  await loggers.shutdown();
}

async function sandboxStartup(dir: string): Promise<void> {
  const sandbox = createBubblewrapSandbox({ workspace: dir });
  const check = await sandbox.check();
  if (!check.ok) {
    process.stdout.write(`sandbox start-up: not measured, bubblewrap cannot start here (${check.reason})\n`);
    return;
  }
  const direct = await measure(
    'sh -c true (no sandbox)',
    () =>
      new Promise<void>((resolve, reject) => {
        const child = spawn('sh', ['-c', 'true'], { stdio: 'ignore' });
        child.on('error', reject);
        child.on('close', () => resolve());
      }),
    { iterations: 20, rounds: 7, warmup: 5 },
  );
  const sandboxed = await measure(
    `run in sandbox (${sandbox.processLimit})`,
    async () => {
      const result = await sandbox.run('true');
      if (result.kind !== 'finished' || result.exitCode !== 0) throw new Error('sandbox run failed');
    },
    { iterations: 20, rounds: 7, warmup: 5 },
  );
  printTable([direct, sandboxed], direct);
  process.stdout.write(
    `  sandbox start-up per run_command call: ${(sandboxed.nsPerOp / 1e6).toFixed(2)} ms (${((sandboxed.nsPerOp - direct.nsPerOp) / 1e6).toFixed(2)} ms more than a bare spawn)\n`,
  );
}

function pct(ratio: number): string {
  const percent = (ratio - 1) * 100;
  return `${percent >= 0 ? '+' : ''}${percent.toFixed(1)}%`;
}
