/** How a tool's run ended. */
export type RunOutcome =
  | { readonly kind: 'returned'; readonly value: unknown }
  | { readonly kind: 'threw'; readonly error: unknown }
  | { readonly kind: 'timeout'; readonly timeoutMs: number }
  | { readonly kind: 'aborted' };

export interface RunLimits {
  /** The caller's signal: aborting it ends the call with `aborted`. */
  readonly signal?: AbortSignal | undefined;
  /** Wall-clock limit; past it the call ends with `timeout` whether or not the tool stops. */
  readonly timeoutMs?: number | undefined;
}

/**
 * Runs `execute` with a signal of its own. The outcome is decided by whichever comes first: the tool
 * settling, the timeout, or the caller's abort. The tool's signal is aborted in the latter two cases, so
 * a cooperative tool stops; an uncooperative one is left to finish in the background, and whatever it
 * later returns or throws is ignored.
 */
export function runTool(execute: (signal: AbortSignal) => unknown, limits: RunLimits): Promise<RunOutcome> {
  const { signal: outer, timeoutMs } = limits;
  if (outer?.aborted) return Promise.resolve({ kind: 'aborted' });
  const controller = new AbortController();

  let started: unknown;
  try {
    started = execute(controller.signal);
  } catch (error) {
    return Promise.resolve({ kind: 'threw', error });
  }
  if (!isPromiseLike(started)) {
    return Promise.resolve({ kind: 'returned', value: started });
  }

  const hasTimeout = timeoutMs !== undefined && Number.isFinite(timeoutMs) && timeoutMs > 0;
  if (!hasTimeout && !outer) {
    return Promise.resolve(started).then(
      (value): RunOutcome => ({ kind: 'returned', value }),
      (error): RunOutcome => ({ kind: 'threw', error }),
    );
  }

  return new Promise<RunOutcome>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const finish = (outcome: RunOutcome) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = () => {
      controller.abort(outer?.reason);
      finish({ kind: 'aborted' });
    };
    if (hasTimeout) {
      timer = setTimeout(() => {
        controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError'));
        finish({ kind: 'timeout', timeoutMs: timeoutMs as number });
      }, timeoutMs);
    }
    outer?.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(started).then(
      (value) => finish({ kind: 'returned', value }),
      (error) => finish({ kind: 'threw', error }),
    );
  });
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
