/** Small, dependency-free timing helpers shared by the benchmarks. */

export interface Measurement {
  readonly name: string;
  /** Median nanoseconds per operation over the rounds. */
  readonly nsPerOp: number;
  readonly opsPerSecond: number;
}

/**
 * Times `operation` (sync or async): a warm-up, then `rounds` rounds of `iterations` calls each; the median
 * round decides, which is steadier than the mean on a noisy machine.
 */
export async function measure(
  name: string,
  operation: () => unknown,
  options: { iterations?: number; rounds?: number; warmup?: number } = {},
): Promise<Measurement> {
  const iterations = options.iterations ?? 20_000;
  const rounds = options.rounds ?? 7;
  for (let index = 0; index < (options.warmup ?? Math.min(iterations, 5_000)); index++) await operation();
  const perRound: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < iterations; index++) await operation();
    perRound.push(Number(process.hrtime.bigint() - started) / iterations);
  }
  perRound.sort((a, b) => a - b);
  const nsPerOp = perRound[Math.floor(rounds / 2)]!;
  return { name, nsPerOp, opsPerSecond: 1e9 / nsPerOp };
}

/** Prints measurements as a table, with each one's time relative to `baseline`. */
export function printTable(rows: readonly Measurement[], baseline: Measurement): void {
  const width = Math.max(...rows.map((row) => row.name.length));
  process.stdout.write(
    `${'case'.padEnd(width)}  ${'µs/op'.padStart(9)}  ${'ops/s'.padStart(10)}  vs ${baseline.name}\n`,
  );
  for (const row of rows) {
    const ratio = row.nsPerOp / baseline.nsPerOp;
    process.stdout.write(
      `${row.name.padEnd(width)}  ${(row.nsPerOp / 1000).toFixed(2).padStart(9)}  ${Math.round(
        row.opsPerSecond,
      )
        .toString()
        .padStart(10)}  ${ratio.toFixed(2)}x\n`,
    );
  }
}
