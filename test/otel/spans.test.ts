import { trace } from '@opentelemetry/api';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import { ATTRIBUTES, instrument, METRICS, UNKNOWN_TOOL_NAME } from '../../src/otel/index.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';
import { connectAs } from '../support/mcp-caller.js';
import { telemetry, useAsyncContext } from './support.js';

// Secrets in shapes the redactor knows, built at run time so no scanner mistakes this file for a leak.
const API_KEY = `sk-proj-${'Q7w8E9r0'.repeat(4)}`;
const PASSWORD = 'correct-horse-battery-staple';

let sdk: ReturnType<typeof telemetry>;
let restoreContext: () => void;
beforeAll(() => {
  restoreContext = useAsyncContext();
});
afterAll(() => restoreContext());
afterEach(async () => {
  await sdk?.shutdown();
});

function tools(tracer: ReturnType<typeof telemetry>['tracer']) {
  return [
    defineTool({
      name: 'read_file',
      category: 'read',
      description: 'Read a text file of the workspace and return its content (a telemetry test tool).',
      input: z.object({ path: z.string().describe('The path, relative to the workspace.') }),
      // What the tool traces itself must nest under its execute_tool span.
      execute: async ({ path }) =>
        tracer.startActiveSpan('fs.read', async (span) => {
          await new Promise((resolve) => setTimeout(resolve, 2));
          span.end();
          return `# ${path}`;
        }),
    }),
    defineTool({
      name: 'login',
      category: 'read',
      description: 'Log in to a service and return a session (a telemetry test tool).',
      input: z.object({
        user: z.string().describe('The user name.'),
        password: z.string().describe('The password.'),
      }),
      execute: ({ user }) => ({ user, apiKey: API_KEY, banner: 'welcome '.repeat(2_000) }),
    }),
    defineTool({
      name: 'write_file',
      category: 'write',
      description: 'Write a text file of the workspace (a telemetry test tool).',
      input: z.object({ path: z.string().describe('The path.'), text: z.string().describe('The text.') }),
      execute: () => 'written',
    }),
    defineTool({
      name: 'explode',
      category: 'read',
      description: 'Always fails (a telemetry test tool).',
      input: z.object({}),
      execute: () => {
        throw new TypeError(`cannot read ${API_KEY}`);
      },
    }),
    defineTool({
      name: 'sleep',
      category: 'read',
      description: 'Waits longer than its time limit (a telemetry test tool).',
      input: z.object({}),
      timeoutMs: 20,
      execute: (_args, { signal }) =>
        new Promise((resolve) => {
          const timer = setTimeout(resolve, 2_000);
          signal.addEventListener('abort', () => clearTimeout(timer));
        }),
    }),
  ];
}

function gatedRegistry() {
  const gate = createPolicyGate(
    definePolicy({
      rules: [
        { id: 'no-env-writes', action: 'deny', tool: 'write_file', arguments: { path: { glob: '**/.env' } } },
        { id: 'docs-writable', action: 'allow', tool: 'write_file', arguments: { path: { under: 'docs' } } },
      ],
    }),
  );
  return new Registry({ ...gate.registryOptions }).register(tools(sdk.tracer));
}

const byName = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);

describe('execute_tool spans', () => {
  test('one INTERNAL span per call, named and attributed after the GenAI conventions, with the gate as toolpact attributes', async () => {
    sdk = telemetry();
    const registry = gatedRegistry();
    instrument(registry, { tracer: sdk.tracer, meter: sdk.meter });
    const envelope = await registry.call(
      'write_file',
      { path: 'docs/a.md', text: 'hello' },
      { callId: 'call_1' },
    );
    expect(envelope).toEqual({ ok: true, result: 'written' });
    const [span] = sdk.spans();
    expect(span?.name).toBe('execute_tool write_file');
    expect(span?.kind).toBe(0); // SpanKind.INTERNAL
    expect(span?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'write_file',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Write a text file of the workspace (a telemetry test tool).',
      'toolpact.tool.category': 'write',
      'toolpact.outcome': 'ok',
      'toolpact.gate.decision': 'allow',
      'toolpact.gate.rule': 'docs-writable',
      'toolpact.tool.source': 'local',
    });
    expect(span?.status.code).toBe(0); // UNSET: the conventions set ERROR only on failure
  });

  test('a call by an authenticated caller carries its subject as enduser.id and user.id; the local process none', async () => {
    sdk = telemetry();
    const registry = gatedRegistry();
    instrument(registry, { tracer: sdk.tracer, meter: sdk.meter });
    const alice = await connectAs(registry, 'agent', {
      subject: 'alice',
      issuer: 'https://id.test',
      clientId: 'ops-console',
    });
    await alice.callTool({ name: 'read_file', arguments: { path: 'a.md' } });
    await alice.close();
    const anonymous = await connectAs(registry, 'alice');
    await anonymous.callTool({ name: 'read_file', arguments: { path: 'b.md' } });
    await anonymous.close();
    const [byAlice, byNobody] = byName(sdk.spans(), 'execute_tool read_file');
    expect(byAlice?.attributes).toMatchObject({
      'enduser.id': 'alice',
      'user.id': 'alice',
    });
    expect(Object.keys(byNobody?.attributes ?? {})).not.toContain('enduser.id');
    expect(Object.keys(byNobody?.attributes ?? {})).not.toContain('user.id');
  });

  test("each span is a child of the caller's active span, and what the tool traces is a child of it", async () => {
    sdk = telemetry();
    const registry = gatedRegistry();
    instrument(registry, { tracer: sdk.tracer, meter: sdk.meter });
    await sdk.tracer.startActiveSpan('chat gpt-test', async (outer) => {
      await Promise.all([
        registry.dispatch('read_file', '{"path":"a.md"}'),
        registry.dispatch('read_file', '{"path":"b.md"}'),
      ]);
      outer.end();
    });
    const spans = sdk.spans();
    const [outer] = byName(spans, 'chat gpt-test');
    const calls = byName(spans, 'execute_tool read_file');
    const reads = byName(spans, 'fs.read');
    expect(calls).toHaveLength(2);
    expect(reads).toHaveLength(2);
    for (const call of calls) {
      expect(call.parentSpanContext?.spanId).toBe(outer!.spanContext().spanId);
      expect(call.spanContext().traceId).toBe(outer!.spanContext().traceId);
    }
    // Concurrent calls each keep their own span current: every read nests under a different call.
    const parents = reads.map((read) => read.parentSpanContext?.spanId).sort();
    expect(parents).toEqual(calls.map((call) => call.spanContext().spanId).sort());
  });

  test.each([
    ['an unknown tool', 'read_fil', '{}', 'unknown_tool', 'none'],
    ['bad JSON', 'read_file', '{"path":', 'invalid_json', 'none'],
    ['invalid arguments', 'read_file', '{"path":7}', 'invalid_arguments', 'none'],
    ['a denial', 'write_file', '{"path":"app/.env","text":"x"}', 'permission_denied', 'deny'],
    ['an ask with no approver', 'write_file', '{"path":"src/a.ts","text":"x"}', 'permission_denied', 'ask'],
    ["the tool's own failure", 'explode', '{}', 'TypeError', 'allow'],
    ['a timeout', 'sleep', '{}', 'timeout', 'allow'],
  ])(
    '%s sets error.type to the envelope type and the span status to ERROR',
    async (_label, name, args, type, decision) => {
      sdk = telemetry();
      const registry = gatedRegistry();
      instrument(registry, { tracer: sdk.tracer, meter: sdk.meter });
      const envelope = await registry.call(name, args);
      expect(envelope.ok || envelope.error.type).toBe(type);
      const [span] = sdk.spans().filter((each) => each.name.startsWith('execute_tool'));
      expect(span?.name).toBe(`execute_tool ${name}`);
      expect(span?.attributes[ATTRIBUTES.errorType]).toBe(type);
      expect(span?.attributes[ATTRIBUTES.outcome]).toBe(type);
      expect(span?.attributes[ATTRIBUTES.decision]).toBe(decision);
      expect(span?.status).toEqual({ code: 2 }); // ERROR, and no message: it is content
      if (type === 'permission_denied') {
        expect(span?.attributes[ATTRIBUTES.rule]).toBe(
          decision === 'deny' ? 'no-env-writes' : 'default:write',
        );
      }
    },
  );

  test('a tool name the model invented is bounded and redacted on the span', async () => {
    sdk = telemetry();
    const registry = gatedRegistry();
    instrument(registry, { tracer: sdk.tracer, meter: sdk.meter });
    await registry.call(`x-${API_KEY}${'y'.repeat(500)}`, {});
    const [span] = sdk.spans();
    expect(String(span?.attributes[ATTRIBUTES.toolName]).length).toBeLessThanOrEqual(128);
    expect(JSON.stringify(span?.attributes)).not.toContain(API_KEY);
    expect(span?.name).not.toContain(API_KEY);
  });
});

describe('arguments and results on spans', () => {
  test('are not recorded unless opted in, and no secret reaches any span', async () => {
    sdk = telemetry();
    const registry = gatedRegistry();
    instrument(registry, { tracer: sdk.tracer, meter: sdk.meter });
    await registry.call('login', { user: 'ada', password: PASSWORD });
    await registry.call('explode', {});
    await registry.call('read_file', { path: 7, password: PASSWORD });
    const spans = sdk.spans();
    expect(spans).toHaveLength(3);
    for (const span of spans) {
      expect(span.attributes).not.toHaveProperty(ATTRIBUTES.toolCallArguments);
      expect(span.attributes).not.toHaveProperty(ATTRIBUTES.toolCallResult);
      expect(span.status.message).toBeUndefined();
    }
    const everything = JSON.stringify(
      spans.map((span) => [span.name, span.attributes, span.status, span.events]),
    );
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(API_KEY);
    expect(everything).not.toContain('ada');
  });

  test('opted in, they are redacted as the audit log redacts and bounded in size', async () => {
    sdk = telemetry();
    const registry = gatedRegistry();
    instrument(registry, { tracer: sdk.tracer, meter: sdk.meter, recordContent: true, maxContentChars: 500 });
    await registry.call('login', { user: 'ada', password: PASSWORD });
    await registry.call('explode', {});
    const [login, explode] = sdk.spans();
    const args = JSON.parse(String(login?.attributes[ATTRIBUTES.toolCallArguments]));
    expect(args).toEqual({ user: 'ada', password: '[REDACTED]' });
    const result = String(login?.attributes[ATTRIBUTES.toolCallResult]);
    expect(result.length).toBeLessThanOrEqual(500);
    expect(result).toMatch(/… \(\d+ characters\)$/);
    expect(result).toContain('"user":"ada"');
    expect(result).toContain('"apiKey":"[REDACTED]"');
    expect(explode?.status.code).toBe(2);
    expect(explode?.status.message).toContain('[REDACTED]');
    expect(explode?.attributes).not.toHaveProperty(ATTRIBUTES.toolCallResult);
    expect(JSON.stringify(sdk.spans().map((span) => [span.attributes, span.status]))).not.toContain(API_KEY);
  });

  test('a limit below 100 characters is refused when instrumenting', () => {
    sdk = telemetry();
    expect(() => instrument(new Registry(), { tracer: sdk.tracer, maxContentChars: 10 })).toThrow(
      /maxContentChars must be a whole number of at least 100 characters, received 10/,
    );
  });
});

describe('metrics', () => {
  test('a duration histogram and a call counter, by tool, outcome and decision', async () => {
    sdk = telemetry();
    const registry = gatedRegistry();
    instrument(registry, { tracer: sdk.tracer, meter: sdk.meter });
    for (let index = 0; index < 3; index++) await registry.call('read_file', { path: `f${index}` });
    await registry.call('write_file', { path: 'app/.env', text: 'x' });
    await registry.call('no_such_tool', {});
    await registry.call('explode', {});

    const durations = await sdk.points(METRICS.duration);
    const key = (attributes: Record<string, unknown>) =>
      [attributes[ATTRIBUTES.toolName], attributes[ATTRIBUTES.outcome], attributes[ATTRIBUTES.decision]].join(
        ' ',
      );
    const counts = Object.fromEntries(
      durations.map((point) => [key(point.attributes), (point.value as Histogram).count]),
    );
    expect(counts).toEqual({
      'read_file ok allow': 3,
      'write_file permission_denied deny': 1,
      [`${UNKNOWN_TOOL_NAME} unknown_tool none`]: 1,
      'explode TypeError allow': 1,
    });
    const reads = durations.find((point) => point.attributes[ATTRIBUTES.toolName] === 'read_file')!;
    expect((reads.value as Histogram).min).toBeGreaterThan(0.001); // seconds: each read waits 2 ms
    expect((reads.value as Histogram).buckets.boundaries).toEqual([
      0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
    ]);
    const denied = durations.find((point) => point.attributes[ATTRIBUTES.toolName] === 'write_file')!;
    expect(denied.attributes).toEqual({
      'gen_ai.tool.name': 'write_file',
      'gen_ai.tool.type': 'function',
      'toolpact.outcome': 'permission_denied',
      'toolpact.gate.decision': 'deny',
      'error.type': 'permission_denied',
    });

    const calls = await sdk.points(METRICS.calls);
    expect(Object.fromEntries(calls.map((point) => [key(point.attributes), point.value]))).toEqual(counts);
  });
});

describe('without an SDK', () => {
  test('the global no-op API records nothing and every answer is the same as without instrumentation', async () => {
    sdk = telemetry();
    const plain = gatedRegistry();
    const instrumented = gatedRegistry();
    // No tracer or meter given, and no global provider registered: the API's no-ops.
    instrument(instrumented);
    for (const [name, args] of [
      ['read_file', '{"path":"a.md"}'],
      ['write_file', '{"path":"app/.env","text":"x"}'],
      ['nope', '{}'],
      ['explode', '{}'],
    ] as const) {
      expect(await instrumented.dispatch(name, args)).toBe(await plain.dispatch(name, args));
    }
    // Only the tool's own fs.read spans (from the in-memory tracer it was given) were recorded.
    expect(sdk.spans().map((span) => span.name)).toEqual(['fs.read', 'fs.read']);
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  test('an SDK registered after instrument() is used from the next call on', async () => {
    sdk = telemetry();
    const registry = gatedRegistry();
    instrument(registry);
    await registry.call('explode', {});
    expect(trace.setGlobalTracerProvider(sdk.tracerProvider)).toBe(true);
    try {
      await registry.call('explode', {});
    } finally {
      trace.disable();
    }
    expect(sdk.spans().map((span) => span.name)).toEqual(['execute_tool explode']);
  });

  test('the function instrument returns removes the instrumentation', async () => {
    sdk = telemetry();
    const registry = gatedRegistry();
    const remove = instrument(registry, { tracer: sdk.tracer, meter: sdk.meter });
    await registry.call('explode', {});
    remove();
    await registry.call('explode', {});
    expect(sdk.spans()).toHaveLength(1);
  });

  test('a subset made from an instrumented registry (a delegate) is traced too', async () => {
    sdk = telemetry();
    const registry = gatedRegistry();
    instrument(registry, { tracer: sdk.tracer, meter: sdk.meter });
    await registry.subset(['explode']).call('explode', {});
    expect(sdk.spans().map((span) => span.name)).toEqual(['execute_tool explode']);
  });
});
