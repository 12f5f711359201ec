import * as z from 'zod';
import { type AnyTool, defineTool, ToolError } from '../../src/index.js';
import { createBubblewrapSandbox, type SandboxLimits } from '../../src/sandbox/index.js';

/**
 * run_command (execute): one shell command, run by `sh -c` inside a bubblewrap sandbox whose only
 * writable folder is the workspace (seen as `/workspace`), with no network and bounded time,
 * memory, processes and output. When the sandbox cannot start, the call is refused; it never runs
 * outside. The sandbox is declared in `meta.sandbox`, which the permission gate requires.
 */
export function createRunCommand(root: string, limits: Partial<SandboxLimits> = {}): AnyTool {
  const sandbox = createBubblewrapSandbox({ workspace: root, limits });
  const seconds = Math.round(sandbox.limits.wallClockMs / 1000);
  return defineTool({
    name: 'run_command',
    title: 'Run command',
    category: 'execute',
    description: [
      'Run one shell command with sh -c in the workspace and return its exit code, standard output and standard error.',
      'Use it to build, test or inspect with command-line programs. To read a file use read_file, to find text use grep, to change a file use write_file: they are faster and need no approval.',
      `The command runs in a sandbox: the workspace is the current folder (/workspace) and the only place it can write; there is no network; it is stopped after ${seconds} s; output past ${Math.round(sandbox.limits.maxOutputBytes / 1024)} KB is cut. It may change files in the workspace, so it is neither read-only nor idempotent.`,
      'A non-zero exit code is a result, not an error: read stderr. Do not start servers or other programs that never end.',
    ].join('\n\n'),
    input: z.object({
      command: z
        .string()
        .min(1)
        .max(10_000)
        .describe('The shell command, e.g. "ls -la docs" or "grep -rn TODO ."; run by sh -c in /workspace.'),
    }),
    output: z.object({
      exit_code: z.number().int().nullable(),
      signal: z.string().nullable(),
      stdout: z.string(),
      stderr: z.string(),
      output_truncated: z.boolean(),
      stopped: z.enum(['output_limit']).optional(),
    }),
    returns:
      'The exit code (null when a signal ended it), the signal, stdout and stderr, and whether the output was cut.',
    timeoutMs: sandbox.limits.wallClockMs + 5_000,
    meta: { sandbox },
    async execute({ command }, { signal }) {
      const run = await sandbox.run(command, { signal });
      if (run.kind === 'unavailable') {
        throw new ToolError(`The command was not run: the sandbox cannot start (${run.reason}).`, {
          type: 'sandbox_unavailable',
          hint: 'Commands run only inside the sandbox. Use read_file, list_dir, grep or write_file instead.',
        });
      }
      if (run.stopped === 'wall_clock') {
        throw new ToolError(`The command ran longer than ${seconds} s and was stopped.`, {
          type: 'command_timeout',
          hint: 'Run something that ends sooner, e.g. on fewer files, or without waiting for input.',
          details: { stdout: run.stdout.slice(-2_000), stderr: run.stderr.slice(-2_000) },
        });
      }
      return {
        exit_code: run.exitCode,
        signal: run.signal,
        stdout: run.stdout,
        stderr: run.stderr,
        output_truncated: run.truncated,
        ...(run.stopped === 'output_limit' ? { stopped: 'output_limit' as const } : {}),
      };
    },
  });
}
