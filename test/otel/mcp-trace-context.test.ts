import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { context, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { defineTool, Registry } from '../../src/index.js';
import {
  mcpContextOf,
  type RunningHttpServer,
  type RunningStdioServer,
  serveHttp,
  serveStdio,
  traceContextOf,
} from '../../src/mcp/index.js';
import { instrument } from '../../src/otel/index.js';
import { telemetry, useAsyncContext } from './support.js';

// A `traceparent` (and `tracestate`) in a tools/call request's `_meta` parents the call's execute_tool
// span, on both transports and both eras; a malformed one is ignored (a root span, no error).

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;
const TRACESTATE = 'vendor=abc,other=x1';
const MODERN = '2026-07-28';

const echo = defineTool({
  name: 'echo',
  description: 'Say what trace context the call saw.',
  category: 'read',
  input: { type: 'object', properties: {}, additionalProperties: false },
  execute: (_args, { state }) => {
    const mcp = mcpContextOf(state);
    return { traceparent: mcp?.traceparent ?? null, tracestate: mcp?.tracestate ?? null };
  },
});

const sdk = telemetry();
let restoreContext: () => void;
let registry: Registry;
let stopInstrument: () => void;

beforeAll(() => {
  restoreContext = useAsyncContext();
  registry = new Registry().register(echo);
  stopInstrument = instrument(registry, { tracer: sdk.tracer, meter: sdk.meter });
});

afterAll(async () => {
  stopInstrument();
  restoreContext();
  await sdk.shutdown();
});

afterEach(() => sdk.clearSpans());

function executeSpan(): ReadableSpan {
  const spans = sdk.spans().filter((span) => span.name === 'execute_tool echo');
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

function expectChildOfIncoming(span: ReadableSpan): void {
  expect(span.spanContext().traceId).toBe(TRACE_ID);
  expect(span.parentSpanContext?.spanId).toBe(SPAN_ID);
  expect(span.parentSpanContext?.isRemote).toBe(true);
}

function expectRoot(span: ReadableSpan): void {
  expect(span.parentSpanContext).toBeUndefined();
  expect(span.spanContext().traceId).not.toBe(TRACE_ID);
}

function modernMeta(extra: Record<string, unknown> = {}) {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    ...extra,
  };
}

interface RpcAnswer {
  readonly result?: { content?: { type: string; text: string }[]; isError?: boolean };
  readonly error?: { code: number; message: string };
}

/** What the echo tool answered (the text content is the envelope). */
const seen = (answer: RpcAnswer) =>
  (JSON.parse(answer.result?.content?.[0]?.text ?? '{}') as { result?: unknown }).result;

describe('over HTTP, revision 2026-07-28 (raw fetch)', () => {
  let running: RunningHttpServer;
  let nextId = 1;

  beforeAll(async () => {
    running = await serveHttp(registry, {});
  });
  afterAll(async () => {
    await running?.close();
  });

  async function call(meta: Record<string, unknown>): Promise<RpcAnswer> {
    const id = nextId++;
    const response = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'echo', arguments: {}, _meta: modernMeta(meta) },
      }),
    });
    expect(response.status).toBe(200);
    const raw = await response.text();
    const lines = response.headers.get('content-type')?.startsWith('text/event-stream')
      ? raw
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
      : [raw];
    const messages = lines.map((line) => JSON.parse(line) as RpcAnswer & { id?: unknown });
    return messages.find((message) => message.id === id) ?? {};
  }

  test('the _meta traceparent is the remote parent of the execute_tool span, tracestate kept', async () => {
    const answer = await call({ traceparent: TRACEPARENT, tracestate: TRACESTATE });
    expect(answer.error).toBeUndefined();
    expect(seen(answer)).toEqual({ traceparent: TRACEPARENT, tracestate: TRACESTATE });
    const span = executeSpan();
    expectChildOfIncoming(span);
    expect(span.spanContext().traceState?.serialize()).toBe(TRACESTATE);
  });

  test.each([
    ['a bad version', `ff-${TRACE_ID}-${SPAN_ID}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN_ID}-01`],
    ['an all-zero span id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`],
    ['a short span id', `00-${TRACE_ID}-${SPAN_ID.slice(1)}-01`],
    ['no flags', `00-${TRACE_ID}-${SPAN_ID}`],
    ['a number', 42],
  ])('a traceparent with %s is ignored: a root span, and the call succeeds', async (_label, traceparent) => {
    const answer = await call({ traceparent, tracestate: TRACESTATE });
    expect(answer.error).toBeUndefined();
    expect(answer.result?.isError).toBeFalsy();
    expect(seen(answer)).toEqual({ traceparent: null, tracestate: null });
    expectRoot(executeSpan());
  });

  test('without a traceparent the span is parented as before: a root span here', async () => {
    const answer = await call({});
    expect(seen(answer)).toEqual({ traceparent: null, tracestate: null });
    expectRoot(executeSpan());
  });
});

describe('over HTTP, the legacy era (v1 SDK client)', () => {
  let running: RunningHttpServer;
  let client: Client;

  beforeAll(async () => {
    running = await serveHttp(registry, {});
    client = new Client({ name: 'legacy', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
  });
  afterAll(async () => {
    await client?.close();
    await running?.close();
  });

  test("params._meta's traceparent parents the execute_tool span", async () => {
    const result = await client.callTool({
      name: 'echo',
      arguments: {},
      _meta: { traceparent: TRACEPARENT },
    });
    expect(result.isError).toBeFalsy();
    expect(seen({ result } as RpcAnswer)).toEqual({ traceparent: TRACEPARENT, tracestate: null });
    expectChildOfIncoming(executeSpan());
  });
});

/** A stdio server on in-memory streams, spoken to in raw newline-delimited JSON-RPC. */
class RawStdio {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  #buffer = '';
  #waiting = new Map<number, (answer: RpcAnswer) => void>();
  #nextId = 1;

  constructor() {
    this.stdout.setEncoding('utf8');
    this.stdout.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let end = this.#buffer.indexOf('\n');
      while (end >= 0) {
        const line = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 1);
        const message = JSON.parse(line) as RpcAnswer & { id?: number };
        if (typeof message.id === 'number') this.#waiting.get(message.id)?.(message);
        end = this.#buffer.indexOf('\n');
      }
    });
  }

  request(method: string, params: Record<string, unknown>): Promise<RpcAnswer> {
    const id = this.#nextId++;
    const answered = new Promise<RpcAnswer>((resolve) => this.#waiting.set(id, resolve));
    this.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answered;
  }

  notify(method: string): void {
    this.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }
}

describe('over stdio (raw JSON-RPC)', () => {
  let raw: RawStdio;
  let running: RunningStdioServer;

  beforeAll(async () => {
    raw = new RawStdio();
    running = await serveStdio(registry, { stdin: raw.stdin, stdout: raw.stdout });
  });
  afterAll(async () => {
    await running?.close();
  });

  test("legacy: params._meta's traceparent parents the execute_tool span", async () => {
    const init = await raw.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    expect(init.error).toBeUndefined();
    raw.notify('notifications/initialized');
    const answer = await raw.request('tools/call', {
      name: 'echo',
      arguments: {},
      _meta: { traceparent: TRACEPARENT, tracestate: TRACESTATE },
    });
    expect(seen(answer)).toEqual({ traceparent: TRACEPARENT, tracestate: TRACESTATE });
    expectChildOfIncoming(executeSpan());
  });

  test('legacy: a malformed traceparent gives a root span and no error', async () => {
    const answer = await raw.request('tools/call', {
      name: 'echo',
      arguments: {},
      _meta: { traceparent: `00-${TRACE_ID}-${SPAN_ID}-1` },
    });
    expect(answer.error).toBeUndefined();
    expect(seen(answer)).toEqual({ traceparent: null, tracestate: null });
    expectRoot(executeSpan());
  });

  test('revision 2026-07-28: the _meta traceparent parents the execute_tool span', async () => {
    const answer = await raw.request('tools/call', {
      name: 'echo',
      arguments: {},
      _meta: modernMeta({ traceparent: TRACEPARENT }),
    });
    expect(answer.error).toBeUndefined();
    expect(seen(answer)).toEqual({ traceparent: TRACEPARENT, tracestate: null });
    expectChildOfIncoming(executeSpan());
  });
});

describe('the call state, without MCP', () => {
  const other = sdk.tracerProvider.getTracer('test');

  test('a state traceparent parents the span, over an active span of another trace', async () => {
    const agent = other.startSpan('agent');
    await context.with(trace.setSpan(context.active(), agent), () =>
      registry.call('echo', {}, { state: { traceparent: TRACEPARENT } }),
    );
    agent.end();
    expectChildOfIncoming(executeSpan());
  });

  test("an active span in the state's own trace stays the parent (it descends from it)", async () => {
    const agent = other.startSpan('agent');
    const traceparent = `00-${agent.spanContext().traceId}-${SPAN_ID}-01`;
    await context.with(trace.setSpan(context.active(), agent), () =>
      registry.call('echo', {}, { state: { traceparent } }),
    );
    agent.end();
    expect(executeSpan().parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
  });

  test('the MCP context kept as state.mcp by a state function of your own still carries it', async () => {
    const mcp = Object.assign(Object.create(null) as object, {
      [Symbol.for('toolpact.mcp.context')]: true,
      traceparent: TRACEPARENT,
    });
    await registry.call('echo', {}, { state: { user: 'ada', mcp } });
    expectChildOfIncoming(executeSpan());
  });

  test('without a state traceparent the active span is the parent, as before', async () => {
    const agent = other.startSpan('agent');
    await context.with(trace.setSpan(context.active(), agent), () =>
      registry.call('echo', {}, { state: {} }),
    );
    agent.end();
    const span = executeSpan();
    expect(span.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
    expect(span.parentSpanContext?.isRemote).toBeFalsy();
  });

  test('traceContextOf passes the state traceparent on, or the active span of its trace', async () => {
    expect(traceContextOf({ traceparent: TRACEPARENT, tracestate: TRACESTATE })).toEqual({
      traceparent: TRACEPARENT,
      tracestate: TRACESTATE,
    });
    expect(traceContextOf({ traceparent: `01-${TRACE_ID}-${SPAN_ID}-01` })).toBeUndefined();
    const agent = other.startSpan('agent');
    const traceparent = `00-${agent.spanContext().traceId}-${SPAN_ID}-01`;
    const passed = context.with(trace.setSpan(context.active(), agent), () =>
      traceContextOf({ traceparent }),
    );
    agent.end();
    expect(passed?.traceparent).toBe(`00-${agent.spanContext().traceId}-${agent.spanContext().spanId}-01`);
  });
});
