/**
 * What OpenTelemetry instrumentation costs one dispatch (parse → validate → gate → run → envelope) of a
 * trivial JSON Schema tool through a policy gate, the worst case for a ratio. Block 1: no
 * instrumentation against `instrument(registry)` with no SDK registered (the global no-op API; the goal
 * is within 3%). Block 2: no instrumentation against the real SDK with in-memory span and metric
 * exporters and the AsyncLocalStorage context manager, as `NodeTracerProvider.register()` sets it up
 * (every call a recorded span, a histogram value and a counter increment). Each block runs its cases
 * in interleaved rounds, wall and CPU time.
 *
 * From source, tsx wraps every function it compiles in a name-keeping helper, which makes each closure
 * a call creates dearer than in the published build; `npm run build && TOOLPACT_DIST=dist npm run
 * bench -- otel` measures the tsc output in dist/ instead.
 */

import { pathToFileURL } from 'node:url';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type * as Root from '../src/index.js';
import type * as Otel from '../src/otel/index.js';
import type * as Policy from '../src/policy/index.js';
import { interleavedRounds, printRounds } from './interleave.js';

const dist = process.env.TOOLPACT_DIST;
const from = (path: string) =>
  dist ? pathToFileURL(`${dist}/${path}.js`).href : new URL(`../src/${path}.ts`, import.meta.url).href;
const { defineTool, Registry } = (await import(from('index'))) as typeof Root;
const { instrument } = (await import(from('otel/index'))) as typeof Otel;
const { createPolicyGate, definePolicy } = (await import(from('policy/index'))) as typeof Policy;

const forecast = defineTool({
  name: 'forecast',
  description: 'Weather forecast (a trivial tool for the benchmark).',
  category: 'read',
  input: {
    type: 'object',
    properties: {
      city: { type: 'string', minLength: 1 },
      days: { type: 'integer', minimum: 1, maximum: 14 },
      units: { enum: ['metric', 'imperial'] },
    },
    required: ['city', 'days'],
    additionalProperties: false,
  },
  execute: (args: { city: string; days: number }) => ({
    city: args.city,
    days: args.days,
    highs: [21, 22, 19],
  }),
});
const raw = '{"city":"Lisbon","days":3,"units":"metric"}';
const policy = definePolicy({ rules: [{ id: 'reads', action: 'allow', category: 'read' }] });

function registry(): Root.Registry {
  return new Registry({ ...createPolicyGate(policy).registryOptions }).register(forecast);
}

class QuietReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export default async function run(): Promise<void> {
  const iterations = 20_000;
  const rounds = 21;
  const plain = registry();
  const check = JSON.parse(await plain.dispatch('forecast', raw)) as { ok: boolean };
  if (!check.ok) throw new Error('the benchmark call failed');

  const noSdk = registry();
  instrument(noSdk);
  process.stdout.write(
    `dispatch from ${dist ? `the build in ${dist}` : 'source (tsx)'}, ${iterations} calls a round, ${rounds} interleaved rounds\n\n`,
  );
  printRounds(
    await interleavedRounds(
      [
        { name: 'no instrumentation', operation: () => plain.dispatch('forecast', raw) },
        { name: 'instrumented, no SDK registered', operation: () => noSdk.dispatch('forecast', raw) },
      ],
      { iterations, rounds },
    ),
  );

  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const meterProvider = new MeterProvider({ readers: [new QuietReader()] });
  const recorded = registry();
  instrument(recorded, {
    tracer: tracerProvider.getTracer('bench'),
    meter: meterProvider.getMeter('toolpact'),
  });
  process.stdout.write('\n');
  printRounds(
    await interleavedRounds(
      [
        { name: 'no instrumentation (context manager on)', operation: () => plain.dispatch('forecast', raw) },
        {
          name: 'in-memory exporter: span + metrics',
          operation: () => recorded.dispatch('forecast', raw),
          beforeRound: () => spans.reset(),
        },
      ],
      { iterations, rounds },
    ),
  );
  if (spans.getFinishedSpans().length !== iterations) throw new Error('the in-memory exporter missed spans');
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  manager.disable();
  context.disable();
}
