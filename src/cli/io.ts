/** Where a command reads and writes: the process's streams in `bin/`, buffers in tests. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** The working directory that relative paths are resolved against. */
  readonly cwd: string;
  /** Whether stdin and stdout are a terminal a person can answer at. */
  readonly interactive: boolean;
  /** Reads one line from the person at the terminal (for y/N prompts); undefined when there is none. */
  readonly prompt?: (question: string) => Promise<string | undefined>;
  readonly env: { readonly [name: string]: string | undefined };
}

/** 0 clean, 1 findings or a failed call, 2 usage or fatal error. */
export type ExitCode = 0 | 1 | 2;

/** One subcommand, loaded lazily. */
export interface Command {
  readonly name: string;
  /** One line for `toolpact --help`. */
  readonly summary: string;
  readonly usage: string;
  readonly run: (args: readonly string[], io: CliIo) => Promise<ExitCode>;
}

/** A usage error: wrong flags, a missing argument, a module that cannot be loaded. Exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
