import { randomBytes } from 'node:crypto';
import type { ClientCapabilities, InputRequest } from '@modelcontextprotocol/server';
import type { Envelope } from '../dispatch/envelope.js';
import {
  declaresInput,
  type InputKind,
  inputRequestOf,
  isInputKey,
  type MisansweredInput,
  readInputAnswer,
} from './input-round.js';
import {
  forwardRequestContext,
  holdRequestContext,
  type InputAsker,
  type McpRequestContext,
  useInputRound,
} from './request-context.js';

/** One question a held run waits on. */
interface PendingAsk {
  readonly kind: InputKind;
  readonly params: unknown;
  readonly request: InputRequest;
  readonly resolve: (answer: unknown) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The questions of a held run: each ask waits, unanswered, until a later request of the client
 * brings its answer, while the run itself goes on waiting for it in this process. A key names a
 * question only for its round: a key that cannot travel (or is already waiting) is replaced by
 * `<kind>-<n>`.
 */
class HeldRound implements InputAsker {
  readonly #capabilities: ClientCapabilities | undefined;
  readonly #pending = new Map<string, PendingAsk>();
  #count = 0;
  #missing: ClientCapabilities | undefined;
  #wake: (() => void) | undefined;
  #closed: Error | undefined;

  constructor(capabilities: ClientCapabilities | undefined) {
    this.#capabilities = capabilities;
  }

  ask(kind: InputKind, key: string | undefined, params: unknown): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closed);
    this.#count += 1;
    let name = key !== undefined && isInputKey(key) && !this.#pending.has(key) ? key : undefined;
    for (let n = this.#count; name === undefined; n += 1) {
      const candidate = `${kind}-${n}`;
      if (!this.#pending.has(candidate)) name = candidate;
    }
    const key_ = name;
    return new Promise((resolve, reject) => {
      if (!declaresInput(this.#capabilities, kind)) this.#missing = { ...this.#missing, [kind]: {} };
      this.#pending.set(key_, { kind, params, request: inputRequestOf(kind, params), resolve, reject });
      const wake = this.#wake;
      this.#wake = undefined;
      wake?.();
    });
  }

  /** Whether the run waits on a question no request has answered yet. */
  get waiting(): boolean {
    return this.#pending.size > 0;
  }

  /** The capabilities a question needed that the client did not declare. */
  get missingCapabilities(): ClientCapabilities | undefined {
    return this.#missing;
  }

  /** The questions waiting, as the next round's `inputRequests`. */
  get requests(): Record<string, InputRequest> {
    return Object.fromEntries([...this.#pending].map(([key, { request }]) => [key, request]));
  }

  /**
   * Resolves once the run waits on a question, after the questions asked alongside it have joined
   * (the run gets a few turns of the event loop to ask them).
   */
  asking(): Promise<void> {
    return new Promise((resolve) => {
      const settle = () => {
        let seen = this.#count;
        let quiet = 0;
        const turn = () => {
          if (this.#count !== seen) {
            seen = this.#count;
            quiet = 0;
          } else quiet += 1;
          if (quiet >= JOIN_TURNS) resolve();
          else setImmediate(turn);
        };
        setImmediate(turn);
      };
      if (this.#pending.size > 0) settle();
      else this.#wake = settle;
    });
  }

  /** Answers the waiting questions `responses` answer; the first response of the wrong kind, if any. */
  answer(responses: Readonly<Record<string, unknown>> | undefined): MisansweredInput | undefined {
    for (const [key, ask] of this.#pending) {
      const read = readInputAnswer(key, ask.kind, ask.params, responses);
      if ('misanswered' in read) return read.misanswered;
      if (read.answer === undefined) continue;
      this.#pending.delete(key);
      ask.resolve(read.answer);
    }
    return undefined;
  }

  /** Fails every waiting question, and every later one, with `error`. */
  close(error: Error): void {
    this.#closed ??= error;
    for (const ask of this.#pending.values()) ask.reject(error);
    this.#pending.clear();
    this.#wake = undefined;
  }
}

const JOIN_TURNS = 3;

/**
 * One call of a held tool that waits for its client's answers across requests of revision
 * 2026-07-28: the tool runs once, in this process, and each of its questions pauses the request that
 * waits on it (an input-required result) rather than the run.
 */
export class HeldCall {
  #id: string | undefined;
  readonly #controller = new AbortController();
  readonly #round: HeldRound;
  readonly #context: McpRequestContext;
  #outcome: Promise<Envelope> | undefined;
  #expiry: NodeJS.Timeout | undefined;

  constructor(context: McpRequestContext) {
    this.#context = context;
    this.#round = new HeldRound(context.clientCapabilities);
    holdRequestContext(context, this.#controller.signal);
    useInputRound(context, this.#round);
  }

  /** The id its sealed state names it by (made when first asked for: most calls never ask). */
  get id(): string {
    this.#id ??= randomBytes(16).toString('base64url');
    return this.#id;
  }

  /** The run's signal: aborted when the call is given up (cancelled, expired, refused). */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Starts the run (once). */
  start(run: () => Promise<Envelope>): void {
    this.#outcome = run();
  }

  /**
   * Waits, for `request`, until the run ends (its envelope) or waits on questions (their
   * `inputRequests`); the run is given up when `request` is cancelled, or asks what its client did
   * not declare (`missing`).
   */
  async drive(
    request: McpRequestContext,
  ): Promise<
    | { readonly envelope: Envelope }
    | { readonly inputRequests: Record<string, InputRequest> }
    | { readonly missing: ClientCapabilities }
  > {
    clearTimeout(this.#expiry);
    const outcome = this.#outcome;
    if (!outcome) throw new Error('HeldCall.drive before start');
    forwardRequestContext(this.#context, request);
    const cancel = () => this.abandon(new Error('The client cancelled the call.'));
    request.signal.addEventListener('abort', cancel, { once: true });
    try {
      const next = this.#round.waiting
        ? undefined
        : await Promise.race([outcome.then((envelope) => ({ envelope })), this.#round.asking()]);
      if (next) return next;
      const missing = this.#round.missingCapabilities;
      if (missing) {
        this.abandon(new Error('The client cannot answer what the call asked.'));
        return { missing };
      }
      return { inputRequests: this.#round.requests };
    } finally {
      request.signal.removeEventListener('abort', cancel);
      forwardRequestContext(this.#context, undefined);
    }
  }

  /** Answers the run's waiting questions from a retry's `inputResponses`. */
  answer(responses: Readonly<Record<string, unknown>> | undefined): MisansweredInput | undefined {
    return this.#round.answer(responses);
  }

  /** Gives the run up after `ms` without a request waiting on it. */
  expireAfter(ms: number, onExpired: () => void): void {
    clearTimeout(this.#expiry);
    this.#expiry = setTimeout(() => {
      this.abandon(
        new Error(
          `The MCP client did not answer within ${Math.round(ms / 1000)} s, so the call was given up.`,
        ),
      );
      onExpired();
    }, ms);
    this.#expiry.unref();
  }

  /** Gives the run up: its questions fail with `reason`, and its signal aborts. */
  abandon(reason: Error): void {
    clearTimeout(this.#expiry);
    this.#round.close(reason);
    this.#controller.abort(reason);
  }
}

/**
 * The held calls waiting for a retry, by the id their sealed `requestState` carries, each given up
 * when its client does not come back within the window.
 *
 * @example
 * const calls = new HeldCalls(600_000);
 * calls.keep(call); // then, on the retry: calls.take(id)
 */
export class HeldCalls {
  readonly #calls = new Map<string, HeldCall>();
  readonly #windowMs: number;

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  /** Keeps `call` until a retry takes it, or the window passes. */
  keep(call: HeldCall): void {
    this.#calls.set(call.id, call);
    call.expireAfter(this.#windowMs, () => this.#calls.delete(call.id));
  }

  /** The call `id` names, no longer kept; undefined when it ended, expired or never ran here. */
  take(id: string): HeldCall | undefined {
    const call = this.#calls.get(id);
    this.#calls.delete(id);
    return call;
  }

  /** Gives up every call kept, with `reason`. */
  abandonAll(reason: Error): void {
    for (const call of this.#calls.values()) call.abandon(reason);
    this.#calls.clear();
  }

  /** How many calls wait for their client. */
  get size(): number {
    return this.#calls.size;
  }
}
