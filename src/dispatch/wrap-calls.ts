import type { CallEnd, CallOptions, CallStart, CallWrapper } from './call.js';
import type { Completed } from './completed.js';

/** Runs one call through the pipeline; `withRecord` adds the observers' record to what it answers. */
export type Attempt = (
  name: unknown,
  args: unknown,
  options: CallOptions,
  withRecord: boolean,
) => Completed | Promise<Completed>;

/**
 * The wrappers of a registry's calls (`registry.wrapCalls`), outermost first, each with what says
 * whether it wants calls at all.
 */
export class CallWrappers {
  #list: readonly CallWrapper[] = [];
  /** Per wrapper, what says whether it wants calls at all (absent: always). */
  readonly #active = new Map<CallWrapper, () => boolean>();

  get size(): number {
    return this.#list.length;
  }

  /** Adds a wrapper inside the ones before it; returns a function that removes it. */
  add(wrapper: CallWrapper, active: (() => boolean) | undefined): () => void {
    this.#list = [...this.#list, wrapper];
    if (active) this.#active.set(wrapper, active);
    return () => {
      this.#list = this.#list.filter((each) => each !== wrapper);
      this.#active.delete(wrapper);
    };
  }

  /** Each wrapper with its `active` test, outermost first (to wrap a subset the same way). */
  entries(): [CallWrapper, (() => boolean) | undefined][] {
    return this.#list.map((wrapper) => [wrapper, this.#active.get(wrapper)]);
  }

  /** The wrappers that want a call now, outermost first. */
  live(): readonly CallWrapper[] {
    const list = this.#list;
    if (list.length === 1) return this.#isActive(list[0]!) ? list : NONE;
    return this.#active.size === 0 ? list : list.filter((wrapper) => this.#isActive(wrapper));
  }

  #isActive(wrapper: CallWrapper): boolean {
    const active = this.#active.get(wrapper);
    try {
      return active ? active() !== false : true;
    } catch {
      return true;
    }
  }
}

const NONE: readonly CallWrapper[] = Object.freeze([]);

/** A call under wrappers: how to run it, and its promise once it runs. */
interface WrappedCall {
  readonly attempt: Attempt;
  readonly name: unknown;
  readonly args: unknown;
  readonly options: CallOptions;
  pending: Promise<Completed & CallEnd> | undefined;
}

/**
 * Runs one call inside `wrappers` (outermost first): each is given the call and a `run` that goes
 * on inward, and the innermost `run` attempts the call, once however often it is called. When every
 * wrapper declines, the call runs as if there were none.
 */
export function wrapCall(
  wrappers: readonly CallWrapper[],
  call: CallStart,
  attempt: Attempt,
  name: unknown,
  args: unknown,
  options: CallOptions,
): Completed | Promise<Completed> {
  // Plain objects and a bound function rather than closures: a declined call should cost next to nothing.
  const state: WrappedCall = { attempt, name, args, options, pending: undefined };
  const run = runWrapped.bind(undefined, state);
  for (let index = 0; index < wrappers.length; index++) {
    const inner = index === wrappers.length - 1 ? run : nestedRun(wrappers, index + 1, call, run, state);
    let result: unknown;
    try {
      result = wrappers[index]!(call, inner);
    } catch {
      result = undefined;
    }
    if (state.pending || result !== undefined) return settleWrapped(result, run, state);
  }
  return attempt(name, args, options, false);
}

/** The `run` a wrapper is given: starts the call the first time, answers the same promise after. */
function runWrapped(state: WrappedCall): Promise<Completed & CallEnd> {
  state.pending ??= Promise.resolve(
    state.attempt(state.name, state.args, state.options, true) as Completed & CallEnd,
  );
  return state.pending;
}

/** What a wrapper's promise settles into: the call's own result, run now if the wrapper never ran it. */
function settleWrapped(
  result: unknown,
  run: () => Promise<Completed & CallEnd>,
  state: WrappedCall,
): Promise<Completed & CallEnd> {
  // A wrapper that hands back run's own promise costs no further turn of the event loop.
  if (state.pending && result === state.pending) return state.pending;
  return result instanceof Promise ? result.then(run, run) : run();
}

/** The `run` given to an outer wrapper: the wrappers inside it, then the call, at most once. */
function nestedRun(
  wrappers: readonly CallWrapper[],
  index: number,
  call: CallStart,
  run: () => Promise<Completed & CallEnd>,
  state: WrappedCall,
): () => Promise<Completed & CallEnd> {
  let started: Promise<Completed & CallEnd> | undefined;
  return () => {
    if (started) return started;
    const inner = index === wrappers.length - 1 ? run : nestedRun(wrappers, index + 1, call, run, state);
    try {
      started = settleWrapped(wrappers[index]!(call, inner), inner, state);
    } catch {
      started = inner();
    }
    return started;
  };
}
