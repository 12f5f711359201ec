import { createInterface } from 'node:readline/promises';
import { execute } from './main.js';

// The only place that touches the process: everything else is `execute(argv, io)`.
const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
const code = await execute(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
  interactive,
  prompt: interactive
    ? async (question) => {
        // The question goes to stderr, so stdout carries only the envelope.
        const reader = createInterface({ input: process.stdin, output: process.stderr });
        try {
          return await reader.question(question);
        } finally {
          reader.close();
        }
      }
    : undefined,
});
process.exitCode = code;
