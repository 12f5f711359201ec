/**
 * What OpenTelemetry instrumentation costs one dispatch (parse → validate → gate → run → envelope) of a
 * trivial JSON Schema tool (two properties) through a policy gate, the worst case for a ratio. Block 1: no
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
import type * as Root from '../src/index.js';
import type * as Otel from '../src/otel/index.js';
import type * as Policy from '../src/policy/index.js';
import { telemetry, useAsyncContext } from '../test/otel/support.js';
import { interleave, printSpreadTable } from './measure.js';

const dist = process.env.TOOLPACT_DIST;
const from = (path: string) =>
  dist ? pathToFileURL(`${dist}/${path}.js`).href : new URL(`../src/${path}.ts`, import.meta.url).href;
const { defineTool, Registry } = (await import(from('index'))) as typeof Root;
const { instrument } = (await import(from('otel/index'))) as typeof Otel;
const { createPolicyGate, definePolicy } = (await import(from('policy/index'))) as typeof Policy;

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a word up (a trivial tool for the benchmark).',
  category: 'read',
  input: {
    type: 'object',
    properties: { word: { type: 'string', minLength: 1 }, limit: { type: 'integer', minimum: 1 } },
    required: ['word'],
    additionalProperties: false,
  },
  execute: (args: { word: string }) => ({ word: args.word, senses: 2 }),
});
const raw = '{"word":"pact","limit":3}';
const policy = definePolicy({ rules: [{ id: 'reads', action: 'allow', category: 'read' }] });

function registry(): Root.Registry {
  return new Registry({ ...createPolicyGate(policy).registryOptions }).register(lookup);
}

export default async function run(): Promise<void> {
  const iterations = 20_000;
  const rounds = 21;
  const plain = registry();
  const check = JSON.parse(await plain.dispatch('lookup', raw)) as { ok: boolean };
  if (!check.ok) throw new Error('the benchmark call failed');

  const noSdk = registry();
  instrument(noSdk);
  process.stdout.write(
    `dispatch from ${dist ? `the build in ${dist}` : 'source (tsx)'}, ${iterations} calls a round, ${rounds} interleaved rounds\n\n`,
  );
  const bare = await interleave(
    [
      { name: 'no instrumentation', operation: () => plain.dispatch('lookup', raw), iterations },
      {
        name: 'instrumented, no SDK registered',
        operation: () => noSdk.dispatch('lookup', raw),
        iterations,
      },
    ],
    { rounds },
  );
  printSpreadTable(bare, bare[0]!);

  const restoreContext = useAsyncContext();
  const sdk = telemetry();
  const recorded = registry();
  instrument(recorded, { tracer: sdk.tracer, meter: sdk.meter });
  process.stdout.write('\n');
  const traced = await interleave(
    [
      {
        name: 'no instrumentation (context manager on)',
        operation: () => plain.dispatch('lookup', raw),
        iterations,
      },
      {
        name: 'in-memory exporter: span + metrics',
        operation: () => recorded.dispatch('lookup', raw),
        iterations,
        beforeRound: () => sdk.clearSpans(),
      },
    ],
    { rounds },
  );
  printSpreadTable(traced, traced[0]!);
  if (sdk.spans().length !== iterations) throw new Error('the in-memory exporter missed spans');
  await sdk.shutdown();
  restoreContext();
}
