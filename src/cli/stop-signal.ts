import { constants } from 'node:os';
import { endProcessGroups, signalProcessGroups, TERM_GRACE_MS } from '../util/process-group.js';
import { UsageError } from './io.js';

type SignalListener = (signal: NodeJS.Signals) => void;

/** What listens to SIGINT and SIGTERM now, in the order they began to. */
const listeners = new Set<SignalListener>();
let routing = false;

/**
 * The one listener this process gives SIGINT and SIGTERM, installed at the first {@link onStopSignal}
 * and never removed while one is wanted. Node delivers a signal to the listeners present when its event
 * loop comes to it, not when it arrived: were the last listener removed and the next added in one tick
 * (a command going from loading its module to serving it), a signal that arrived in between would
 * reach neither, and the command would serve on with its servers. With no listener left, the signal
 * takes its default action, as if none had ever been installed.
 */
function route(signal: NodeJS.Signals): void {
  if (listeners.size === 0) {
    process.off('SIGINT', route);
    process.off('SIGTERM', route);
    routing = false;
    // Another listener of the process's own (where the CLI runs inside another program) has it already.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    return;
  }
  for (const listener of [...listeners]) listener(signal);
}

/**
 * Calls `listener` on each SIGINT or SIGTERM until the function it answers is called. Listeners added
 * and removed in any order never let a signal fall between them (see {@link route}).
 *
 * @example
 * const off = onStopSignal((signal) => io.stderr(`${signal}\n`));
 * off();
 */
export function onStopSignal(listener: SignalListener): () => void {
  if (!routing) {
    routing = true;
    process.on('SIGINT', route);
    process.on('SIGTERM', route);
  }
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/**
 * Resolves with the name of the first SIGINT or SIGTERM, for commands that run until stopped
 * (`serve`, `studio`, `run`), which then close what they opened and return; `dispose` removes the
 * listeners. Both listeners go at the first signal, so a second one ends the process at once the
 * default way (a close that takes too long can always be cut short with another Ctrl-C).
 *
 * @example
 * const stop = stopSignal();
 * try { io.stderr(`stopped by ${await stop.signalled}\n`); } finally { stop.dispose(); }
 */
export function stopSignal(): { signalled: Promise<string>; dispose: () => void } {
  let resolveSignal: (signal: string) => void = () => {};
  const signalled = new Promise<string>((resolve) => {
    resolveSignal = resolve;
  });
  const dispose = onStopSignal((signal) => {
    dispose();
    resolveSignal(signal);
  });
  return { signalled, dispose };
}

/**
 * A whole-number flag value from `min` to `max`, or a usage error naming the flag and what came.
 *
 * @example
 * wholeNumberFlag('port', '3000', 0, 65_535); // 3000
 */
export function wholeNumberFlag(
  flag: string,
  text: string | boolean,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = Number(text);
  if (typeof text !== 'string' || !/^\d+$/.test(text) || value < min || value > max) {
    throw new UsageError(`--${flag} needs a whole number from ${min} to ${max}, received "${String(text)}".`);
  }
  return value;
}

let signalledExit: Promise<number> | undefined;

/**
 * The status a one-shot command's process ends with once a signal stopped it (see
 * {@link endProcessGroupsOnSignal}), after its servers are gone; undefined when none came. A command
 * that returns meanwhile (its servers' deaths failing what it was doing) does not end the process
 * with its own status first.
 */
export function exitBySignal(): Promise<number> | undefined {
  return signalledExit;
}

/**
 * Keeps the process groups a command started (the gateway's MCP servers, with whatever they fork) from
 * outliving it, whichever way a signal comes. Installed for the whole command, unlike
 * {@link stopSignal}, so that a signal during a shutdown already under way (the client closed stdin,
 * then sends SIGTERM) is handled too; without a listener, its default action would kill this process
 * and leave the servers behind.
 *
 * - `shutdown` (a command that stops gracefully on its own {@link stopSignal}, installed in the same
 *   tick): the first SIGINT or SIGTERM ends every group (SIGTERM, SIGKILL after a short grace) while
 *   the command closes the rest.
 * - `exit` (a one-shot command): the first one ends every group the same way, then the process exits.
 *
 * A second signal kills every group at once and exits (status 128 + the signal's number).
 *
 * @example
 * const groups = endProcessGroupsOnSignal('shutdown');
 * try { return await serveTools(io, options); } finally { groups.dispose(); }
 */
export function endProcessGroupsOnSignal(mode: 'shutdown' | 'exit'): { dispose: () => void } {
  let signals = 0;
  const dispose = onStopSignal(onSignal);
  function onSignal(signal: NodeJS.Signals): void {
    signals++;
    const status = 128 + (constants.signals[signal] ?? 15);
    if (signals > 1) {
      signalProcessGroups('SIGKILL');
      process.exit(status);
    }
    const ending = endProcessGroups(TERM_GRACE_MS);
    if (mode === 'exit') {
      signalledExit = ending.then(
        () => status,
        () => status,
      );
      void signalledExit.then((code) => process.exit(code));
    }
  }
  return { dispose };
}
