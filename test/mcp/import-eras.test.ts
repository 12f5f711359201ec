import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Registry, ToolDefinitionError } from '../../src/index.js';
import {
  type ImportMcpOptions,
  importMcpTools,
  type McpImport,
  type UpstreamElicitation,
} from '../../src/mcp/index.js';
import { instrument } from '../../src/otel/index.js';
import { ROOT } from './support/wire.js';

// Two peers that share no era: a server that speaks only 2026-07-28 (the v2 server package, legacy
// rejected) and one that speaks only the legacy era (the v1 SDK). Each logs its spawns and every
// message it receives, with the message's _meta, to FIXTURE_LOG.
const MODERN = join(ROOT, 'test', 'fixtures', 'mcp', 'modern-only-server.mjs');
const LEGACY = join(ROOT, 'test', 'fixtures', 'mcp', 'legacy-only-server.mjs');
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

let dir: string;
let logCount = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolpact-import-eras-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function peer(file: string, env: Record<string, string> = {}) {
  const log = join(dir, `log-${++logCount}.txt`);
  const target = {
    command: process.execPath,
    args: [file],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', FIXTURE_LOG: log, ...env },
  };
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  return {
    target,
    spawns: () => lines().flatMap((line) => (line.startsWith('spawn ') ? [Number(line.slice(6))] : [])),
    received: (method: string) =>
      lines().flatMap((line) => {
        const [pid, name, ...meta] = line.split(' ');
        return name === method
          ? [{ pid: Number(pid), meta: JSON.parse(meta.join(' ')) as Record<string, unknown> }]
          : [];
      }),
  };
}

/** True while `pid` runs (not gone, not a zombie). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms = 5_000): Promise<boolean> {
  for (let waited = 0; waited < ms && !check(); waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

const eras = [
  { era: 'modern', file: MODERN, version: '2026-07-28' },
  { era: 'legacy', file: LEGACY, version: '2025-11-25' },
] as const;

describe.each(eras)('a $era-only server', ({ era, file, version }) => {
  const elicitations: UpstreamElicitation[] = [];
  let answer: 'accept' | 'decline' = 'accept';
  let server: ReturnType<typeof peer>;
  let registry: Registry;
  let imported: McpImport;

  beforeAll(async () => {
    server = peer(file);
    registry = new Registry();
    const options: ImportMcpOptions = {
      probeTimeoutMs: 10_000,
      onElicitation: async (elicitation) => {
        elicitations.push(elicitation);
        return answer === 'accept' ? { action: 'accept', content: { note: 'yes' } } : { action: 'decline' };
      },
    };
    imported = await importMcpTools(registry, server.target, options);
  });
  afterAll(() => imported?.close());

  test('is imported over the negotiated era, which the import reports', () => {
    expect(imported.era).toBe(era);
    expect(imported.protocolVersion).toBe(version);
    expect(imported.prior.kind).toBe(era);
    expect(registry.get('add')?.meta.source).toBe(`mcp:${era}-only`);
  });

  test('the probe ran in a second process of the server, which is gone once connected', async () => {
    const [probe, session, ...more] = server.spawns();
    expect(more).toEqual([]);
    expect(server.received('server/discover').map((entry) => entry.pid)).toEqual([probe]);
    expect(server.received('tools/list')[0]?.pid).toBe(session);
    expect(await until(() => !alive(probe!))).toBe(true);
    expect(alive(session!)).toBe(true);
  });

  test('a call through the registry runs on the server', async () => {
    expect(await registry.call('add', { a: 2, b: 3 })).toEqual({ ok: true, result: { sum: 5 } });
  });

  test("the call's traceparent reaches the server in _meta", async () => {
    const envelope = await registry.call('meta', {}, { state: { traceparent: TRACEPARENT } });
    expect(envelope.ok).toBe(true);
    expect(JSON.parse(envelope.ok ? (envelope.result as string) : '{}')).toMatchObject({
      traceparent: TRACEPARENT,
    });
    const calls = server.received('tools/call');
    expect(calls.at(-1)?.meta.traceparent).toBe(TRACEPARENT);
  });

  test('an elicitation reaches onElicitation with the call, and the call completes after accept', async () => {
    answer = 'accept';
    const envelope = await registry.call('confirm', {}, { state: { user: 'ada' } });
    expect(envelope).toEqual({ ok: true, result: 'confirmed: yes' });
    expect(elicitations.at(-1)).toMatchObject({
      server: `${era}-only`,
      request: { message: 'Go ahead?' },
      call: { tool: 'confirm', remoteName: 'confirm', state: { user: 'ada' } },
    });
  });

  test('a declined elicitation is refused by the server', async () => {
    answer = 'decline';
    const envelope = await registry.call('confirm', {});
    expect(envelope).toMatchObject({
      ok: false,
      error: { type: 'mcp_tool_error', message: 'refused: decline' },
    });
  });

  test('a server that asks for sampling is refused', async () => {
    const envelope = await registry.call('sample', {});
    expect(envelope.ok).toBe(false);
    if (era === 'modern') {
      // The server checks the declared capabilities before asking: we declared neither.
      expect(envelope).toMatchObject({
        error: { type: 'mcp_input_unsupported', details: { asked: ['sampling'] } },
      });
      const roots = await registry.call('roots', {});
      expect(roots).toMatchObject({
        ok: false,
        error: { type: 'mcp_input_unsupported', details: { asked: ['roots'] } },
      });
    } else {
      // A legacy server that asks anyway gets "method not found" from the client.
      expect(envelope).toMatchObject({
        error: { type: 'mcp_tool_error', message: expect.stringContaining('-32601') },
      });
    }
  });

  test("the server's tool list changes are followed", async () => {
    expect(registry.has('extra')).toBe(false);
    await registry.call('grow', {});
    expect(await until(() => registry.has('extra'))).toBe(true);
    expect(await registry.call('extra', {})).toEqual({ ok: true, result: 'extra' });
    if (era === 'modern') expect(server.received('subscriptions/listen')).toHaveLength(1);
  });

  test('prior skips the probe: a second import of the same server starts one process', async () => {
    const again = peer(file);
    const other = new Registry();
    const second = await importMcpTools(other, again.target, { prior: imported.prior });
    try {
      expect(second.era).toBe(era);
      expect(again.spawns()).toHaveLength(1);
      expect(again.received('server/discover')).toEqual([]);
      expect(await other.call('add', { a: 1, b: 1 })).toEqual({ ok: true, result: { sum: 2 } });
    } finally {
      await second.close();
    }
  });

  test('close() ends every process the import started', async () => {
    const started = server.spawns();
    await imported.close();
    expect(await until(() => started.every((pid) => !alive(pid)))).toBe(true);
  });
});

test('the tool list is kept for the ttlMs the server gives; refresh() lists again once it has passed', async () => {
  const server = peer(MODERN, { FIXTURE_TTL_MS: '60000' });
  const registry = new Registry();
  const imported = await importMcpTools(registry, server.target, { probeTimeoutMs: 10_000 });
  try {
    expect(imported.freshUntil()).toBeGreaterThan(Date.now() + 50_000);
    await imported.refresh();
    expect(server.received('tools/list')).toHaveLength(1);
    await imported.refresh({ force: true });
    expect(server.received('tools/list')).toHaveLength(2);
  } finally {
    await imported.close();
  }
  // A legacy server gives no ttlMs: its list is stale at once, and refresh() lists again.
  const legacy = peer(LEGACY);
  const other = new Registry();
  const old = await importMcpTools(other, legacy.target, { era: 'legacy' });
  try {
    expect(old.freshUntil()).toBeLessThanOrEqual(Date.now());
    await old.refresh();
    expect(legacy.received('tools/list')).toHaveLength(2);
    // era 'legacy' never probes.
    expect(legacy.spawns()).toHaveLength(1);
  } finally {
    await old.close();
  }
});

test('a legacy server that stays silent on the probe is reached after the probe timeout, and the probe process is gone', async () => {
  const server = peer(LEGACY, { FIXTURE_SILENT: '1' });
  const registry = new Registry();
  const imported = await importMcpTools(registry, server.target, { probeTimeoutMs: 1_000 });
  try {
    // The import settling at all, as legacy, is the proof that the probe gave up after its timeout
    // (how long that takes is measured in bench/, never asserted here).
    expect(imported.era).toBe('legacy');
    // Under load the probe process may be reaped before it has even logged; what counts is that
    // the session runs in another process and every other process is gone.
    const session = server.received('initialize')[0]?.pid;
    expect(server.received('server/discover').every((entry) => entry.pid !== session)).toBe(true);
    const others = server.spawns().filter((pid) => pid !== session);
    expect(others.length).toBeLessThanOrEqual(1);
    expect(await until(() => others.every((pid) => !alive(pid)))).toBe(true);
    expect(alive(session!)).toBe(true);
    expect(await registry.call('add', { a: 1, b: 2 })).toEqual({ ok: true, result: { sum: 3 } });
  } finally {
    await imported.close();
  }
});

test('a modern-only server too slow for the probe refuses initialize, and is started again on 2026-07-28; every process but the session is gone', async () => {
  const server = peer(MODERN);
  const registry = new Registry();
  // No process answers in 1 ms: the probe always gives up, and the verdict falls to legacy.
  const imported = await importMcpTools(registry, server.target, { probeTimeoutMs: 1 });
  try {
    expect(imported.era).toBe('modern');
    expect(imported.prior.kind).toBe('modern');
    const session = server.received('tools/list')[0]?.pid;
    expect(session).toBeDefined();
    const others = server.spawns().filter((pid) => pid !== session);
    // The timed-out probe (if it got as far as logging) and the process that refused initialize.
    expect(others.length).toBeLessThanOrEqual(2);
    expect(await until(() => others.every((pid) => !alive(pid)))).toBe(true);
    expect(await registry.call('add', { a: 2, b: 3 })).toEqual({ ok: true, result: { sum: 5 } });
  } finally {
    await imported.close();
  }
  expect(await until(() => server.spawns().every((pid) => !alive(pid)))).toBe(true);
});

test('era "modern" refuses a legacy-only server, and "legacy" a modern-only one, saying what was tried', async () => {
  const toLegacy = await importMcpTools(new Registry(), peer(LEGACY).target, {
    era: 'modern',
    probeTimeoutMs: 10_000,
  }).catch((caught: unknown) => caught);
  expect(toLegacy).toBeInstanceOf(ToolDefinitionError);
  expect((toLegacy as Error).message).toMatch(/Could not connect to the MCP server started by/);
  const toModern = await importMcpTools(new Registry(), peer(MODERN).target, { era: 'legacy' }).catch(
    (caught: unknown) => caught,
  );
  expect(toModern).toBeInstanceOf(ToolDefinitionError);
});

test("the active OpenTelemetry span's trace context goes with the call when the state has none", async () => {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const provider = new BasicTracerProvider();
  const server = peer(MODERN);
  const registry = new Registry();
  const stop = instrument(registry, { tracer: provider.getTracer('test') });
  const imported = await importMcpTools(registry, server.target, { probeTimeoutMs: 10_000 });
  try {
    const parent = provider.getTracer('test').startSpan('agent');
    const envelope = await context.with(trace.setSpan(context.active(), parent), () =>
      registry.call('meta', {}),
    );
    parent.end();
    const meta = JSON.parse(envelope.ok ? (envelope.result as string) : '{}') as { traceparent?: string };
    // The execute_tool span is the parent the server sees: same trace, another span than "agent".
    expect(meta.traceparent).toMatch(
      new RegExp(`^00-${parent.spanContext().traceId}-(?!${parent.spanContext().spanId})[0-9a-f]{16}-01$`),
    );
  } finally {
    stop();
    await imported.close();
    context.disable();
  }
});
