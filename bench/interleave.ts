/**
 * Interleaved rounds: a round of each case, then the next round, so a noisy neighbour on a shared
 * machine slows every case alike. Each round records wall time and this process's CPU time (user +
 * system); a case's figure is the median over rounds, and its ratio to the baseline is the median of
 * the per-round ratios, with the interquartile range as the spread.
 */

export interface Case {
  readonly name: string;
  readonly operation: () => unknown;
  /** Run before each round, untimed (e.g. to empty an in-memory exporter). */
  readonly beforeRound?: () => unknown;
  /** Run at the end of each round, timed (e.g. to flush a batch). */
  readonly afterRound?: () => unknown;
}

export interface Series {
  readonly name: string;
  /** Wall nanoseconds per operation, per round. */
  readonly wall: readonly number[];
  /** CPU nanoseconds per operation, per round. */
  readonly cpu: readonly number[];
}

export async function interleavedRounds(
  cases: readonly Case[],
  options: { iterations: number; rounds: number; warmup?: number },
): Promise<Series[]> {
  const warmup = options.warmup ?? Math.min(options.iterations, 2_000);
  for (const each of cases) {
    await each.beforeRound?.();
    for (let index = 0; index < warmup; index++) await each.operation();
    await each.afterRound?.();
  }
  const series = cases.map((each) => ({ name: each.name, wall: [] as number[], cpu: [] as number[] }));
  for (let round = 0; round < options.rounds; round++) {
    for (const [index, each] of cases.entries()) {
      await each.beforeRound?.();
      const cpuStart = process.cpuUsage();
      const started = process.hrtime.bigint();
      for (let call = 0; call < options.iterations; call++) await each.operation();
      await each.afterRound?.();
      const wall = Number(process.hrtime.bigint() - started);
      const cpu = process.cpuUsage(cpuStart);
      series[index]!.wall.push(wall / options.iterations);
      series[index]!.cpu.push(((cpu.user + cpu.system) * 1000) / options.iterations);
    }
  }
  return series;
}

/** The value at quantile `q` (0..1) of `values`. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Per-round ratios of `series` to `baseline` (wall or CPU). */
export function ratios(series: Series, baseline: Series, of: 'wall' | 'cpu' = 'wall'): number[] {
  return series[of].map((value, index) => value / baseline[of][index]!);
}

/** Prints the cases with wall and CPU time per operation and the ratio to the first case. */
export function printRounds(series: readonly Series[], unit: { per: string } = { per: 'op' }): void {
  const [baseline] = series;
  if (!baseline) return;
  const width = Math.max(4, ...series.map((each) => each.name.length));
  const percent = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;
  process.stdout.write(
    `${'case'.padEnd(width)}  ${`wall µs/${unit.per}`.padStart(12)}  ${`cpu µs/${unit.per}`.padStart(11)}  ${`${unit.per}s/s`.padStart(9)}  wall vs first (IQR)          cpu vs first\n`,
  );
  for (const each of series) {
    const wall = quantile(each.wall, 0.5);
    const cpu = quantile(each.cpu, 0.5);
    const wallRatios = ratios(each, baseline);
    const cpuRatios = ratios(each, baseline, 'cpu');
    const spread =
      each === baseline
        ? ''
        : `${percent(quantile(wallRatios, 0.5))} (${percent(quantile(wallRatios, 0.25))} .. ${percent(quantile(wallRatios, 0.75))})`;
    process.stdout.write(
      `${each.name.padEnd(width)}  ${(wall / 1000).toFixed(2).padStart(12)}  ${(cpu / 1000).toFixed(2).padStart(11)}  ${Math.round(
        1e9 / wall,
      )
        .toString()
        .padStart(9)}  ${spread.padEnd(27)}  ${each === baseline ? '' : percent(quantile(cpuRatios, 0.5))}\n`,
    );
  }
}
