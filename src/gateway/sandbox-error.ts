/** Why a sandboxed server was not started. */
export type SandboxUnavailableCode =
  /** bubblewrap is not installed, or not at the path given. */
  | 'bubblewrap_missing'
  /** An `npx` package is not installed, and the sandbox has no network to fetch it. */
  | 'package_not_installed'
  /** The command fetches a package at start with a launcher that is not resolved (`pnpm dlx`, `bunx`, `uvx`…). */
  | 'unsupported_launcher'
  /** The command is not on PATH, or not an executable file. */
  | 'command_not_found'
  /** A granted path is not absolute, does not exist, or may not be granted (`/`, `/proc`, `/dev`). */
  | 'invalid_grant'
  /** The server's package folder is a shared one (`/tmp`, the home folder…), which is never shown whole. */
  | 'shared_package_folder'
  /** The `env` program, which starts bubblewrap with an empty environment, is missing. */
  | 'env_missing';

/**
 * A server that asks for a sandbox and cannot have one: it is not started (never unconfined). The
 * message names the server, says what is missing and what to do; it is for the person running the
 * gateway, not for the model.
 *
 * @example
 * try { sandboxedCommand(target, sandbox, { server: 'notes' }) } catch (error) {
 *   if (error instanceof SandboxUnavailableError) console.error(error.code, error.message);
 * }
 */
export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';
  constructor(
    readonly code: SandboxUnavailableCode,
    message: string,
    readonly server?: string,
  ) {
    super(message);
  }
}
