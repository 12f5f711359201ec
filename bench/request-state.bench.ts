/**
 * The sealed `requestState` of an MCP multi round-trip request: what sealing, opening and consuming
 * (open plus the single-use check) cost per operation, against the MCP SDK's HMAC codec
 * (`createRequestStateCodec` of `@modelcontextprotocol/server`, signed and not encrypted, no single use)
 * minting and verifying a payload that carries the same binding. Both in this process, in interleaved
 * rounds (wall and CPU time, median and IQR); ratios are per round.
 */
import { createRequestStateCodec } from '@modelcontextprotocol/server';
import { bindingFor, MemoryUsedStateStore, RequestStateSealer } from '../src/mcp/request-state.js';
import { interleave, printSpreadTable, roundRatios, spreadOf } from './measure.js';

const KEY = Buffer.alloc(32, 7);
const ITERATIONS = 2_000;
const binding = bindingFor('write_file', { path: 'notes/todo.md', text: 'buy milk' }, 'ask-writes', 'alice');

export default async function run(): Promise<void> {
  const sealer = new RequestStateSealer({
    key: KEY,
    usedStates: new MemoryUsedStateStore({ maxEntries: 10_000_000 }),
  });
  const codec = createRequestStateCodec<Record<string, unknown>>({ key: KEY });
  // The SDK codec has no binding of its own here (its `bind` needs a request context), so the binding
  // rides in the payload and is compared after verify, as toolpact compares after opening.
  const payload = { ...binding, id: 'g7dQmQ0mS1a2b3c4d5e6fA' };
  const sdkVerify = async (state: string) => {
    const opened = await codec.verify(state, undefined as never);
    if (opened.tool !== binding.tool || opened.argumentsDigest !== binding.argumentsDigest)
      throw new Error('bind');
    return opened;
  };

  const state = sealer.seal(binding);
  const sdkState = await codec.mint(payload);
  if (!sealer.open(state, binding).ok || (await sdkVerify(sdkState)).tool !== binding.tool) {
    throw new Error('the benchmark states do not open');
  }
  process.stdout.write(`state length: toolpact ${state.length} chars, SDK codec ${sdkState.length} chars\n`);

  // consume uses each state once: every turn gets fresh states, sealed before the turn (untimed).
  let fresh: string[] = [];
  let next = 0;
  const refill = () => {
    fresh = Array.from({ length: ITERATIONS }, () => sealer.seal(binding));
    next = 0;
  };
  const series = await interleave([
    { name: 'sdk mint', operation: () => codec.mint(payload), iterations: ITERATIONS },
    { name: 'sdk verify', operation: () => sdkVerify(sdkState), iterations: ITERATIONS },
    {
      name: 'sdk mint+verify',
      operation: async () => sdkVerify(await codec.mint(payload)),
      iterations: ITERATIONS,
    },
    { name: 'toolpact seal', operation: () => sealer.seal(binding), iterations: ITERATIONS },
    { name: 'toolpact open', operation: () => sealer.open(state, binding), iterations: ITERATIONS },
    {
      name: 'toolpact consume',
      operation: () => sealer.consume(fresh[next++], binding),
      iterations: ITERATIONS,
      beforeRound: refill,
    },
    {
      name: 'toolpact seal+consume',
      operation: () => sealer.consume(sealer.seal(binding), binding),
      iterations: ITERATIONS,
    },
  ]);
  const named = (name: string) => series.find((entry) => entry.name === name)!;
  printSpreadTable(series, named('sdk mint+verify'));

  const pairs = [
    ['toolpact seal', 'sdk mint'],
    ['toolpact open', 'sdk verify'],
    ['toolpact consume', 'sdk verify'],
    ['toolpact seal+consume', 'sdk mint+verify'],
  ] as const;
  process.stdout.write('pairwise, per round (CPU time):\n');
  for (const [ours, theirs] of pairs) {
    const spread = spreadOf(roundRatios(named(ours).cpu, named(theirs).cpu));
    process.stdout.write(
      `  ${ours} / ${theirs}: ${spread.median.toFixed(2)}x [${spread.q1.toFixed(2)}–${spread.q3.toFixed(2)}]\n`,
    );
  }
}
