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

/** One case of {@link interleave}: a name, the operation, and how many calls make one of its rounds. */
export interface InterleavedCase {
  readonly name: string;
  readonly operation: () => unknown;
  readonly iterations: number;
  /** Run before each of the case's turns, untimed (e.g. to empty an in-memory exporter). */
  readonly beforeRound?: () => unknown;
  /** Run at the end of each of the case's turns, timed with it (e.g. to flush a batch). */
  readonly afterRound?: () => unknown;
}

/** What {@link interleave} measured for one case: nanoseconds per call in each round, wall and CPU. */
export interface InterleavedSeries {
  readonly name: string;
  /** Wall-clock nanoseconds per call, one figure per round, in round order. */
  readonly wall: readonly number[];
  /** CPU nanoseconds (user + system, the whole process) per call, one figure per round. */
  readonly cpu: readonly number[];
}

/**
 * Times several cases in rounds: every round runs each case once, its `iterations` calls back to back,
 * and the order rotates from round to round, so each case follows every other as often and drift on a
 * busy machine, JIT tiering and collection debt fall on all of them alike. Every case is warmed up
 * first (`warmup` rounds of the whole rotation, default 2). Wall time comes from `hrtime`, CPU time from
 * `process.cpuUsage()`, which a crowded machine disturbs less. (A forced collection before each turn
 * was tried and dropped: it raised every dispatcher's ratio to the floor instead of steadying it.)
 */
export async function interleave(
  cases: readonly InterleavedCase[],
  options: { rounds?: number; warmup?: number } = {},
): Promise<InterleavedSeries[]> {
  const rounds = options.rounds ?? 15;
  const warmup = options.warmup ?? 2;
  const wall = cases.map(() => [] as number[]);
  const cpu = cases.map(() => [] as number[]);
  for (let round = -warmup; round < rounds; round++) {
    for (let step = 0; step < cases.length; step++) {
      const index = (step + Math.max(round, 0)) % cases.length;
      const { operation, iterations, beforeRound, afterRound } = cases[index]!;
      await beforeRound?.();
      const cpuStarted = process.cpuUsage();
      const started = process.hrtime.bigint();
      for (let call = 0; call < iterations; call++) await operation();
      await afterRound?.();
      const elapsed = Number(process.hrtime.bigint() - started);
      const used = process.cpuUsage(cpuStarted);
      if (round < 0) continue;
      wall[index]!.push(elapsed / iterations);
      cpu[index]!.push(((used.user + used.system) * 1000) / iterations);
    }
  }
  return cases.map(({ name }, index) => ({ name, wall: wall[index]!, cpu: cpu[index]! }));
}

/** The median and the quartiles of some figures. */
export interface Spread {
  readonly median: number;
  readonly q1: number;
  readonly q3: number;
  readonly min: number;
  readonly max: number;
}

/** Median, quartiles and range of `values` (quartiles by linear interpolation). */
export function spreadOf(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction: number) => {
    const position = (sorted.length - 1) * fraction;
    const low = Math.floor(position);
    const high = Math.ceil(position);
    return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
  };
  return { median: at(0.5), q1: at(0.25), q3: at(0.75), min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** The ratio of two series round by round (each pair measured in the same round, close in time). */
export function roundRatios(series: readonly number[], baseline: readonly number[]): number[] {
  return series.map((value, index) => value / baseline[index]!);
}

/**
 * Prints interleaved series: per case the median wall and CPU time per call with their interquartile
 * range over the rounds, and the median of the per-round ratios against `baseline` with their IQR.
 */
export function printSpreadTable(
  series: readonly InterleavedSeries[],
  baseline: InterleavedSeries,
  per = 'op',
): void {
  const width = Math.max(...series.map((entry) => entry.name.length));
  const rounds = baseline.wall.length;
  process.stdout.write(
    `${rounds} interleaved rounds; median [IQR] over the rounds; ratios are per round against ${baseline.name}\n`,
  );
  process.stdout.write(
    `${'case'.padEnd(width)}  ${`wall µs/${per}`.padStart(20)}  ${`cpu µs/${per}`.padStart(20)}  ${'wall ratio'.padStart(20)}  ${'cpu ratio'.padStart(20)}\n`,
  );
  const micros = (spread: Spread) =>
    `${(spread.median / 1000).toFixed(2)} [${(spread.q1 / 1000).toFixed(2)}–${(spread.q3 / 1000).toFixed(2)}]`;
  const times = (spread: Spread) =>
    `${spread.median.toFixed(2)}x [${spread.q1.toFixed(2)}–${spread.q3.toFixed(2)}]`;
  for (const entry of series) {
    process.stdout.write(
      `${entry.name.padEnd(width)}  ${micros(spreadOf(entry.wall)).padStart(20)}  ${micros(spreadOf(entry.cpu)).padStart(20)}  ${times(spreadOf(roundRatios(entry.wall, baseline.wall))).padStart(20)}  ${times(spreadOf(roundRatios(entry.cpu, baseline.cpu))).padStart(20)}\n`,
    );
  }
}

/**
 * Prints a plain table: a header, a rule and the rows, columns as wide as their widest cell. With
 * `numbers`, every column after the first is right-aligned.
 *
 * @example
 * printRows(['case', 'calls/s'], [['direct', '1,084']], { numbers: true });
 */
export function printRows(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: { readonly numbers?: boolean } = {},
): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const pad = (cell: string, column: number) =>
    options.numbers && column > 0 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!);
  const line = (cells: readonly string[]) => cells.map(pad).join('  ').trimEnd();
  process.stdout.write(
    `${[line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n')}\n`,
  );
}
