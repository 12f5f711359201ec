/** Why a command was stopped before it ended by itself. */
export type StopReason = 'wall_clock' | 'output_limit' | 'aborted';

/** What running one command in the sandbox came to. */
export type SandboxRun =
  | {
      readonly kind: 'finished';
      /** The exit status, or null when a signal ended it. */
      readonly exitCode: number | null;
      /** The signal that ended it (`SIGKILL` when the sandbox stopped it, `SIGXCPU` past the CPU limit). */
      readonly signal: string | null;
      readonly stdout: string;
      readonly stderr: string;
      /** True when output beyond `maxOutputBytes` was dropped. */
      readonly truncated: boolean;
      /** Set when the sandbox stopped the command. */
      readonly stopped: StopReason | undefined;
      readonly durationMs: number;
    }
  | {
      /** The sandbox could not start; the command did not run. */
      readonly kind: 'unavailable';
      readonly reason: string;
    };
