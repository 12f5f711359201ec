/** The limits every sandboxed command runs under. */
export interface SandboxLimits {
  /** Wall-clock time before the whole sandbox is killed, in milliseconds. */
  readonly wallClockMs: number;
  /** CPU time, in seconds (RLIMIT_CPU). */
  readonly cpuSeconds: number;
  /** Address space per process, in bytes (RLIMIT_AS). */
  readonly memoryBytes: number;
  /** Processes alive at once inside the sandbox (at least 300; see `docs/policy.md`). */
  readonly maxProcesses: number;
  /** Bytes of stdout plus stderr kept; past this the command is killed and the output marked cut. */
  readonly maxOutputBytes: number;
  /** Largest file a command may write, in bytes (RLIMIT_FSIZE). */
  readonly maxFileBytes: number;
  /** Open files per process (RLIMIT_NOFILE). */
  readonly maxOpenFiles: number;
}

/** The defaults: 10 s wall clock, 10 s CPU, 1 GiB memory, 300 processes, 256 KiB output, 64 MiB files. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = Object.freeze({
  wallClockMs: 10_000,
  cpuSeconds: 10,
  memoryBytes: 1024 * 1024 * 1024,
  maxProcesses: 300,
  maxOutputBytes: 256 * 1024,
  maxFileBytes: 64 * 1024 * 1024,
  maxOpenFiles: 256,
});

// The kernel refuses a PID namespace's pid_max below 301 (RESERVED_PIDS + 1).
export const MIN_PROCESSES = 300;

/**
 * The defaults with `overrides` applied; a value that cannot work throws a RangeError naming it.
 *
 * @example
 * resolveLimits({ wallClockMs: 2_000 }).maxProcesses; // 300
 */
export function resolveLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  const limits = { ...DEFAULT_SANDBOX_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!(Number.isInteger(value) && value > 0)) {
      throw new RangeError(`Sandbox limit ${name} must be a positive integer, received ${String(value)}.`);
    }
  }
  if (limits.maxProcesses < MIN_PROCESSES) {
    throw new RangeError(
      `Sandbox limit maxProcesses must be at least ${MIN_PROCESSES} (the smallest pid_max the kernel accepts for a PID namespace), received ${limits.maxProcesses}.`,
    );
  }
  return Object.freeze(limits);
}
