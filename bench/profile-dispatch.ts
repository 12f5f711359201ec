/**
 * Runs one case of the dispatch benchmark in a loop and nothing else, for a profiler:
 *
 *     node --import tsx --cpu-prof bench/profile-dispatch.ts json 500000
 *
 * Cases: `floor` (parse + precompiled ajv + call + stringify), `json`, `zod`, `json-output` and
 * `zod-output` (toolpact dispatch of the JSON Schema or zod tool, without or with an output schema),
 * `gate`. For instruction counts that a busy machine does not disturb, bundle it (esbuild) and run the
 * bundle under `valgrind --tool=callgrind` at two call counts; the difference divided by the difference
 * in calls is the cost of one call, with start-up taken out.
 */
import { floorCall, forecastRegistries, raw } from './dispatch-cases.js';

const { registry, gated } = forecastRegistries();
const operations: Record<string, () => unknown> = {
  floor: floorCall(),
  json: () => registry.dispatch('forecast', raw),
  zod: () => registry.dispatch('forecast_zod', raw),
  'json-output': () => registry.dispatch('forecast_checked', raw),
  'zod-output': () => registry.dispatch('forecast_zod_checked', raw),
  gate: () => gated.dispatch('forecast', raw),
};
const name = process.argv[2] ?? 'json';
const calls = Number(process.argv[3] ?? 200_000);
const operation = operations[name];
if (!operation || !(calls >= 0)) {
  process.stderr.write(`usage: profile-dispatch.ts <${Object.keys(operations).join('|')}> [calls]\n`);
  process.exit(2);
}
const started = process.hrtime.bigint();
for (let call = 0; call < calls; call++) await operation();
const elapsed = Number(process.hrtime.bigint() - started);
process.stderr.write(
  `${name}: ${calls} calls, ${(elapsed / Math.max(calls, 1)).toFixed(0)} ns per call (wall)\n`,
);
