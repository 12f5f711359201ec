import { execute } from '../../src/cli/main.js';

/** Runs the CLI in-process with buffers for its output, as a person would run `toolpact …`. */
export async function runCli(
  argv: readonly string[],
  options: {
    cwd?: string;
    interactive?: boolean;
    answers?: string[];
    env?: Readonly<Record<string, string | undefined>>;
  } = {},
) {
  let stdout = '';
  let stderr = '';
  const answers = [...(options.answers ?? [])];
  const code = await execute(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? {},
    interactive: options.interactive ?? false,
    prompt: options.interactive ? async () => answers.shift() : undefined,
  });
  return { code, stdout, stderr };
}
