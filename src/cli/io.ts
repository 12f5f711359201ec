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

/**
 * A usage error: an unknown flag, a missing argument, a value a flag does not take. Exit code 2; the
 * message is followed by the command's usage line.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * What the command was given cannot be used, though the command line is right: a config, policy or
 * module file that is missing or wrong, an output file that already exists. Exit code 2; the message
 * alone is printed (a usage line would point at the command line, which is not at fault).
 */
export class InputError extends Error {
  override readonly name = 'InputError';
}
