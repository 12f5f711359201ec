import { realpathSync, statSync } from 'node:fs';
import type { SandboxCheck, SandboxDeclaration } from '../policy/sandbox-declaration.js';
import { findOnPath } from '../util/executables.js';
import { bubblewrapArgs, type ProcessLimitMethod } from './bubblewrap-args.js';
import { runBubblewrap } from './run-bubblewrap.js';
import { resolveLimits, type SandboxLimits } from './sandbox-limits.js';
import type { SandboxRun } from './sandbox-result.js';

/** Options of {@link createBubblewrapSandbox}. */
export interface BubblewrapSandboxOptions {
  /** The folder bound read-write at `/workspace`; nothing else of the host is writable. */
  readonly workspace: string;
  readonly limits?: Partial<SandboxLimits>;
  /** The bwrap program (default: `bwrap` found on PATH). */
  readonly bwrap?: string;
}

/** A bubblewrap sandbox for one workspace; put it in an execute tool's `meta.sandbox`. */
export interface BubblewrapSandbox extends SandboxDeclaration {
  readonly kind: 'bubblewrap';
  readonly limits: SandboxLimits;
  /** How processes are counted: the PID namespace's `pid_max` when the host user is root, else RLIMIT_NPROC. */
  readonly processLimit: ProcessLimitMethod;
  /** Runs `sh -c command` confined; `unavailable` when the sandbox cannot start (it never runs outside). */
  readonly run: (command: string, options?: { readonly signal?: AbortSignal }) => Promise<SandboxRun>;
  /** Starts one empty sandbox to see whether this host can (remembered after the first success). */
  readonly check: () => SandboxCheck | Promise<SandboxCheck>;
}

/**
 * A sandbox for shell commands with bubblewrap: its own user, PID, network, IPC and UTS
 * namespaces, the workspace read-write, `/usr` read-only, the rest of the host absent, and limits
 * on wall clock, CPU, memory, processes, output and file size.
 *
 * @example
 * const sandbox = createBubblewrapSandbox({ workspace: '/srv/project', limits: { wallClockMs: 5_000 } });
 * const run = await sandbox.run('ls -la');
 * if (run.kind === 'finished') console.log(run.exitCode, run.stdout);
 */
export function createBubblewrapSandbox(options: BubblewrapSandboxOptions): BubblewrapSandbox {
  const limits = resolveLimits(options.limits);
  let workspace: string;
  try {
    workspace = realpathSync(options.workspace);
    if (!statSync(workspace).isDirectory()) throw new Error('not a directory');
  } catch {
    throw new RangeError(`The sandbox workspace "${options.workspace}" is not an existing folder.`);
  }
  // RLIMIT_NPROC is not enforced for the host's root user (the kernel exempts it), so as root the
  // process count is bounded by the sandbox's own PID namespace instead.
  const processLimit: ProcessLimitMethod = process.getuid?.() === 0 ? 'pid-namespace' : 'rlimit';
  const bwrap = options.bwrap ?? findOnPath('bwrap');
  let confirmed = false;

  const run = async (
    command: string,
    runOptions: { readonly signal?: AbortSignal } = {},
  ): Promise<SandboxRun> => {
    if (!bwrap) {
      return {
        kind: 'unavailable',
        reason: 'bubblewrap (bwrap) is not installed; install the "bubblewrap" package',
      };
    }
    return runBubblewrap({
      bwrap,
      args: bubblewrapArgs(workspace, command, limits, processLimit),
      wallClockMs: limits.wallClockMs,
      maxOutputBytes: limits.maxOutputBytes,
      ...(runOptions.signal ? { signal: runOptions.signal } : {}),
    });
  };

  // After one success the answer is synchronous, so a gated call pays nothing for the check.
  const check = (): SandboxCheck | Promise<SandboxCheck> => {
    if (confirmed) return CONFIRMED;
    return run('true').then((probe): SandboxCheck => {
      if (probe.kind === 'unavailable') return { ok: false, reason: probe.reason };
      if (probe.exitCode !== 0) {
        return { ok: false, reason: `an empty command failed in it (exit status ${String(probe.exitCode)})` };
      }
      confirmed = true;
      return CONFIRMED;
    });
  };

  return Object.freeze({ kind: 'bubblewrap' as const, limits, processLimit, run, check });
}

const CONFIRMED: SandboxCheck = Object.freeze({ ok: true });
