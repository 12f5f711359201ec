// `--otel` through the gateway: a span per call (instrument) and, under it, a client span per upstream
// request with the upstream's name, era and restarts, on the real SDK with an in-memory exporter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrument, upstreamSpans } from '../../src/otel/index.js';
import { telemetry, useAsyncContext } from '../otel/support.js';
import { faultEntry, until, workspace } from './support.js';

describe('gateway spans', () => {
  const ws = workspace();
  let stopContext: () => void;
  beforeAll(() => {
    stopContext = useAsyncContext();
  });
  afterAll(() => stopContext());

  it('each upstream request is a client span under the call, naming the upstream, its era and restarts', async () => {
    const otel = telemetry();
    ws.write('config.json', { mcpServers: { notes: faultEntry() } });
    const gateway = await ws.start({ wrapUpstreamCall: upstreamSpans(otel.tracer) });
    instrument(gateway.registry, { tracer: otel.tracer, meter: otel.meter });

    expect(await gateway.registry.call('echo', { text: 'traced' })).toMatchObject({ ok: true });
    await gateway.registry.call('crash', {});
    await until(() => gateway.status()[0]?.state === 'up', 'the server is back');
    expect(await gateway.registry.call('echo', { text: 'after' })).toMatchObject({ ok: true });

    const spans = otel.spans();
    const upstream = spans.filter((span) => span.name.startsWith('tools/call '));
    expect(upstream.map((span) => span.name)).toEqual([
      'tools/call echo',
      'tools/call crash',
      'tools/call echo',
    ]);
    expect(upstream[0]?.attributes).toMatchObject({
      'toolpact.upstream.name': 'notes',
      'toolpact.upstream.restarts': 0,
      'toolpact.upstream.tool': 'echo',
    });
    // The fault server speaks both eras; the probe decides which (a loaded machine may time it out).
    expect(['modern', 'legacy']).toContain(upstream[0]?.attributes['toolpact.upstream.era']);
    expect(upstream[1]?.attributes['error.type']).toBe('CONNECTION_CLOSED');
    expect(upstream[2]?.attributes['toolpact.upstream.restarts']).toBeGreaterThanOrEqual(1);
    // Each sits under the execute_tool span of its call.
    const parent = spans.find((span) => span.name === 'execute_tool echo');
    expect(upstream[0]?.parentSpanContext?.spanId).toBe(parent?.spanContext().spanId);
    await otel.shutdown();
  });
});
