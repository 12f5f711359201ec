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
 * The tool's own abort signal, made only when the tool asks for it: most tools never do, and an
 * AbortSignal is the most expensive object a call would otherwise create.
 */
export class LazySignal {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/**
 * Runs `execute(args, context)`, where `context` is (or extends) the tool's own {@link LazySignal}, and
 * answers synchronously when the tool does. The outcome is decided by whichever comes first: the tool
 * settling, the timeout, or the caller's abort. The tool's signal is aborted in the latter two cases, so a
 * cooperative tool stops; an uncooperative one is left to finish in the background, and whatever it later
 * returns or throws is ignored. (Arguments and context are passed through rather than closed over: this
 * runs on every call.)
 */
export function runTool<A, C extends LazySignal>(
  execute: (args: A, context: C) => unknown,
  args: A,
  context: C,
  limits: RunLimits,
): RunOutcome | Promise<RunOutcome> {
  const { signal: outer, timeoutMs } = limits;
  if (outer?.aborted) return { kind: 'aborted' };
  const signal: LazySignal = context;

  let started: unknown;
  try {
    started = execute(args, context);
  } catch (error) {
    return { kind: 'threw', error };
  }
  // A synchronous result is settled here and now: no timer, no extra turn of the event loop.
  if (!isPromiseLike(started)) return { kind: 'returned', value: started };

  const hasTimeout = timeoutMs !== undefined && Number.isFinite(timeoutMs) && timeoutMs > 0;
  if (!hasTimeout && !outer) {
    return Promise.resolve(started).then(returned, threw);
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
      signal.abort(outer?.reason);
      finish({ kind: 'aborted' });
    };
    if (hasTimeout) {
      timer = setTimeout(() => {
        signal.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError'));
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

function returned(value: unknown): RunOutcome {
  return { kind: 'returned', value };
}

function threw(error: unknown): RunOutcome {
  return { kind: 'threw', error };
}
