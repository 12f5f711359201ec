import { UsageError } from './io.js';

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
  const dispose = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  function onSignal(signal: string): void {
    dispose();
    resolveSignal(signal);
  }
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
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
