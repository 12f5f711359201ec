import { createInterface } from 'node:readline/promises';
import { discoverFront } from './discover-front.js';
import { execute } from './main.js';
import { exitBySignal } from './stop-signal.js';

// The only place that touches the process: everything else is `execute(argv, io)`.
const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
const argv = process.argv.slice(2);
// A 2026-07-28 client's era probe of `toolpact gateway` is answered before the command loads: a
// process that was only that probe ends once its answers are written out.
if ((await discoverFront(argv, process.stdin, process.stdout)) === 'probed') {
  await flushed(process.stdout);
  process.exit(0);
}
const returned = await execute(argv, {
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
// Stopped by a signal while it ran: the signal's status, once the servers it started are gone.
const code = (await exitBySignal()) ?? returned;
process.exitCode = code;
// The command has printed and closed what it loaded (bounded by a grace period). Whatever the module
// left running besides (a socket, a timer, a child it never attached to its registry) must not keep a
// one-shot command, or a stopped server, from ending: exit once stdout and stderr have been written out,
// so piped output is never cut.
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);

/** Resolves once everything written to `stream` so far has been handed to the OS (or cannot be). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    try {
      stream.write('', () => resolve());
    } catch {
      resolve();
    }
  });
}
