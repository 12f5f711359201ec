import { spawn } from 'node:child_process';
import { SETUP_FAILED_EXIT, SETUP_MARKER } from './bubblewrap-args.js';
import type { SandboxRun, StopReason } from './sandbox-result.js';

/** Options of {@link runBubblewrap}. */
export interface RunBubblewrapOptions {
  readonly bwrap: string;
  readonly args: readonly string[];
  readonly wallClockMs: number;
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
}

/**
 * Starts bubblewrap and collects the command's output within the limits. Start-up is confirmed by
 * bubblewrap's `--json-status-fd` report of the child's pid: without it the run is `unavailable`,
 * never retried outside the sandbox. Stopping kills bubblewrap itself, and with it (through
 * `--die-with-parent` and the end of the PID namespace's init) every process the command started.
 *
 * @example
 * const run = await runBubblewrap({ bwrap: '/usr/bin/bwrap', args, wallClockMs: 10_000, maxOutputBytes: 65_536 });
 */
export function runBubblewrap(options: RunBubblewrapOptions): Promise<SandboxRun> {
  const started = Date.now();
  const split = options.args.indexOf('--');
  const bwrapOptions = split >= 0 ? options.args.slice(0, split) : options.args;
  const command = split >= 0 ? options.args.slice(split) : [];
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      // The options go through a pipe (`--args 4`): on the command line they would be readable inside
      // the sandbox as /proc/1/cmdline, host paths and all. bubblewrap takes the command itself from argv.
      child = spawn(options.bwrap, ['--args', '4', ...command], {
        stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
        env: {},
      });
    } catch (error) {
      resolve({ kind: 'unavailable', reason: `bubblewrap could not be started (${describe(error)})` });
      return;
    }
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    let stopped: StopReason | undefined;
    let childStarted = false;
    let status = '';
    let spawnError: unknown;

    const stop = (reason: StopReason) => {
      stopped ??= reason;
      child.kill('SIGKILL');
    };
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      const room = options.maxOutputBytes - kept;
      if (chunk.length <= room) {
        into.push(chunk);
        kept += chunk.length;
        return;
      }
      if (room > 0) into.push(chunk.subarray(0, room));
      kept = options.maxOutputBytes;
      truncated = true;
      stop('output_limit');
    };
    child.stdout?.on('data', collect(stdout));
    child.stderr?.on('data', collect(stderr));
    const argsStream = child.stdio[4] as NodeJS.WritableStream | null;
    argsStream?.on('error', () => {});
    argsStream?.end(Buffer.from(`${bwrapOptions.join('\0')}\0`, 'utf8'));
    const statusStream = child.stdio[3];
    statusStream?.on('data', (chunk: Buffer) => {
      status += chunk.toString('utf8');
      if (status.includes('"child-pid"')) childStarted = true;
    });
    statusStream?.on('error', () => {});
    child.on('error', (error) => {
      spawnError = error;
    });

    const timer = setTimeout(() => stop('wall_clock'), options.wallClockMs);
    const onAbort = () => stop('aborted');
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const errorText = Buffer.concat(stderr).toString('utf8');
      if (spawnError !== undefined) {
        resolve({ kind: 'unavailable', reason: `bubblewrap could not be started (${describe(spawnError)})` });
        return;
      }
      if (!childStarted && stopped === undefined) {
        const line =
          errorText.split('\n').find((text) => text.trim() !== '') ?? `exit status ${String(code)}`;
        resolve({ kind: 'unavailable', reason: `bubblewrap failed to set up the sandbox: ${line.trim()}` });
        return;
      }
      if (code === SETUP_FAILED_EXIT && errorText.startsWith(SETUP_MARKER)) {
        resolve({ kind: 'unavailable', reason: errorText.slice(SETUP_MARKER.length).trim() });
        return;
      }
      resolve({
        kind: 'finished',
        exitCode: stopped ? null : code,
        signal: stopped ? 'SIGKILL' : signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: errorText,
        truncated,
        stopped,
        durationMs: Date.now() - started,
      });
    });
  });
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'the bwrap program is not installed';
  if (code === 'EACCES') return 'the bwrap program may not be executed';
  return code ?? (error instanceof Error ? error.message : String(error));
}
