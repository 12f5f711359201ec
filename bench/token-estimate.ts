// How close the token estimate (used when the optional peer gpt-tokenizer is not installed) comes to the
// exact o200k_base count, on the tool corpora. `npx tsx bench/token-estimate.ts`; docs/adapters.md
// quotes its output.
import {
  bfclDefinitions,
  bfclDescriptions,
  estimateError,
  sealToolsDefinitions,
} from '../test/support/token-estimate.js';

const percent = (value: number) => `${(100 * value).toFixed(1)} %`;
const rows: [string, string[]][] = [
  ['BFCL definitions (JSON)', bfclDefinitions()],
  ['BFCL descriptions (prose)', bfclDescriptions()],
  ['Seal-Tools definitions (JSON)', sealToolsDefinitions()],
];
console.log('corpus | texts | mean error per text | 95th percentile | worst | over the set');
for (const [name, texts] of rows) {
  const error = estimateError(texts);
  console.log(
    `${name} | ${error.texts} | ${percent(error.meanPerText)} | ${percent(error.p95PerText)} | ${percent(error.worstPerText)} | ${error.overSet >= 0 ? '+' : ''}${percent(error.overSet)}`,
  );
}
