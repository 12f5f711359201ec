import type { ToolContract } from '../contract/index.js';
import type { ToolExecuteContext } from '../contract/tool.js';

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
  // Undefined until the signal is asked for or aborted: then its controller, or, when the abort came
  // first, the reason the signal will carry once it is made.
  #controller: AbortController | { readonly reason: unknown } | undefined;

  get signal(): AbortSignal {
    const state = this.#controller;
    if (state instanceof AbortController) return state.signal;
    const controller = new AbortController();
    if (state) controller.abort(state.reason);
    this.#controller = controller;
    return controller.signal;
  }

  abort(reason: unknown): void {
    const state = this.#controller;
    if (state instanceof AbortController) state.abort(reason);
    else if (!state) this.#controller = { reason };
  }
}

/**
 * Waits for what `execute(args, context)` started, where `context` is (or extends) the tool's own
 * {@link LazySignal}. (A synchronous result or throw is settled by the caller, with no timer and no
 * turn of the event loop.) The outcome is decided by whichever comes first: the tool settling, the
 * timeout, or the caller's abort. The tool's signal is aborted in the latter two cases, so a
 * cooperative tool stops; an uncooperative one is left to finish in the background, and whatever it
 * later returns or throws is ignored.
 */
export function settleRun(
  started: PromiseLike<unknown>,
  signal: LazySignal,
  limits: RunLimits,
): Promise<RunOutcome> {
  const { signal: outer, timeoutMs } = limits;
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
    if (outer?.aborted) {
      onAbort();
      return;
    }
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

/** True for anything `await` would wait for. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
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

/** The context a tool's `execute` receives: it is the call's own lazy signal too, so one object serves both. */
export class ExecuteContext extends LazySignal implements ToolExecuteContext {
  readonly tool: ToolContract;
  readonly callId: string | undefined;
  readonly state: unknown;
  readonly registry: ToolExecuteContext['registry'];
  constructor(
    tool: ToolContract,
    callId: string | undefined,
    state: unknown,
    registry: ToolExecuteContext['registry'],
  ) {
    super();
    this.tool = tool;
    this.callId = callId;
    this.state = state;
    this.registry = registry;
  }
}
