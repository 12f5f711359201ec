import { userInfo } from 'node:os';
import type { Principal } from '../dispatch/principal.js';
import type { Approval, PostgresStore } from '../store/postgres-store.js';

/** The shared store's approval queue as the studio's approvals page shows it. */
export interface StoreQueueView {
  /** The store, without its password: `postgres://user@host:port/db`. */
  readonly store: string;
  /** Who a decision made in the page is recorded as, unless the page names someone else. */
  readonly decider: string;
  /** The approvals waiting for a decision, newest first. */
  readonly pending: readonly Approval[];
  /**
   * The latest approvals no longer pending (approved, denied, used, expired), most recently decided
   * first. A pending approval past its expiry is shown here as `expired`.
   */
  readonly decided: readonly Approval[];
  /** Why the last read of the store failed (the lists are then those of the last read that worked). */
  readonly problem: string | null;
}

/** A decision taken in the studio on a queued approval. */
export interface StoreQueueDecision {
  readonly action: 'approve' | 'deny';
  /** Who decided (default: the decider's subject, else the feed's decider). */
  readonly by?: string;
  readonly reason?: string;
  /**
   * The signed-in person deciding: checked against the approval's `decidedBy` (its group, and that
   * it is not the caller). Without one the decision is the local process's.
   */
  readonly decider?: Principal;
}

/** Options of {@link StoreQueueFeed}. */
export interface StoreQueueFeedOptions {
  /** Who decides by default (default: the USER, else LOGNAME, of this process, else its OS user). */
  readonly decider?: string;
  /** How long between two reads of the store while someone follows (default 1,000 ms). */
  readonly pollMs?: number;
  /** How many pending approvals to show (default 100). */
  readonly pendingLimit?: number;
  /** How many decided approvals to show (default 30). */
  readonly decidedLimit?: number;
}

/**
 * Why a decision taken through {@link StoreQueueFeed} was not recorded, with the HTTP status that
 * fits: `unknown_approval` (404), `not_pending` (409: already decided, used or expired), `not_allowed`
 * (403: the approval's rule names who may decide it, and the decider is not one) or
 * `store_unavailable` (503).
 *
 * @example
 * try { await feed.decide(id, { action: 'deny' }); } catch (error) { if (error instanceof StoreQueueError) console.error(error.status, error.message); }
 */
export class StoreQueueError extends Error {
  override readonly name = 'StoreQueueError';
  readonly type: 'unknown_approval' | 'not_pending' | 'not_allowed' | 'store_unavailable';
  readonly status: 403 | 404 | 409 | 503;

  constructor(type: StoreQueueError['type'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.type = type;
    this.status =
      type === 'unknown_approval' ? 404 : type === 'not_pending' ? 409 : type === 'not_allowed' ? 403 : 503;
  }
}

/**
 * The shared store's approval queue, followed: while anyone follows, it reads the store every
 * `pollMs` and tells its listeners when what the page would show changed, whoever changed it (a
 * replica queueing a call, `toolpact approvals approve` in a terminal, another studio). Decisions
 * taken through it are recorded with who decided, and read back at once.
 *
 * @example
 * const feed = new StoreQueueFeed(store, { decider: 'alice' });
 * feed.onChange((view) => console.log(view.pending.length, 'pending'));
 * const unfollow = feed.follow();
 * await feed.decide('apr_x1', { action: 'approve', reason: 'release day' });
 * unfollow();
 */
export class StoreQueueFeed {
  readonly #store: PostgresStore;
  readonly #decider: string;
  readonly #pollMs: number;
  readonly #pendingLimit: number;
  readonly #decidedLimit: number;
  readonly #listeners = new Set<(view: StoreQueueView) => void>();
  #view: StoreQueueView | undefined;
  #text = '';
  #reading: Promise<StoreQueueView> | undefined;
  #followers = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(store: PostgresStore, options: StoreQueueFeedOptions = {}) {
    this.#store = store;
    this.#decider = options.decider?.trim() || defaultDecider();
    this.#pollMs = options.pollMs ?? 1_000;
    this.#pendingLimit = options.pendingLimit ?? 100;
    this.#decidedLimit = options.decidedLimit ?? 30;
  }

  /** Who decisions are recorded as by default. */
  get decider(): string {
    return this.#decider;
  }

  /** What the last read found, or undefined before the first. */
  current(): StoreQueueView | undefined {
    return this.#view;
  }

  /**
   * Reads the store now (after a read already under way, so a change made before this call is seen)
   * and tells the listeners if the view changed. A store that cannot be read gives the last view
   * with `problem` set; it never throws.
   */
  refresh(): Promise<StoreQueueView> {
    const previous = this.#reading ?? Promise.resolve(this.#view);
    const next = previous.then(
      () => this.#read(),
      () => this.#read(),
    );
    this.#reading = next;
    void next.finally(() => {
      if (this.#reading === next) this.#reading = undefined;
    });
    return next;
  }

  /** Starts reading the store every `pollMs` until every follower has called the function returned. */
  follow(): () => void {
    this.#followers++;
    if (this.#followers === 1 && !this.#closed) {
      void this.refresh();
      this.#schedule();
    }
    let followed = true;
    return () => {
      if (!followed) return;
      followed = false;
      this.#followers--;
      if (this.#followers === 0) this.#stop();
    };
  }

  /** Tells `listener` each new view; returns the function that stops telling it. */
  onChange(listener: (view: StoreQueueView) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Approves or denies a pending approval in the store, recording who decided (`by`, else the
   * feed's decider) and when, then reads the queue again so followers see it at once.
   */
  async decide(id: string, decision: StoreQueueDecision): Promise<Approval> {
    const by = decision.by?.trim() || decision.decider?.subject || this.#decider;
    const recorded = {
      by,
      ...(decision.reason ? { reason: decision.reason } : {}),
      ...(decision.decider ? { decider: decision.decider } : {}),
    };
    let approval: Approval;
    try {
      approval =
        decision.action === 'approve'
          ? await this.#store.approvals.approve(id, recorded)
          : await this.#store.approvals.deny(id, recorded);
    } catch (error) {
      throw this.#problemOf(error);
    }
    await this.refresh();
    return approval;
  }

  /** Stops reading; the store itself stays open (whoever opened it closes it). */
  close(): void {
    this.#closed = true;
    this.#stop();
    this.#listeners.clear();
  }

  #schedule(): void {
    if (this.#closed || this.#followers === 0 || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.refresh().then(() => this.#schedule());
    }, this.#pollMs);
  }

  #stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #read(): Promise<StoreQueueView> {
    let view: StoreQueueView;
    try {
      const [pending, recent] = await Promise.all([
        this.#store.approvals.list({ status: 'pending', limit: this.#pendingLimit }),
        this.#store.approvals.list({ status: 'all', limit: this.#pendingLimit + this.#decidedLimit }),
      ]);
      const open = new Set(pending.map((approval) => approval.id));
      const decided = recent
        .filter((approval) => !open.has(approval.id))
        .map((approval) =>
          approval.status === 'pending' ? { ...approval, status: 'expired' as const } : approval,
        )
        .sort((a, b) => settledAt(b).localeCompare(settledAt(a)))
        .slice(0, this.#decidedLimit);
      view = { store: this.#store.where, decider: this.#decider, pending, decided, problem: null };
    } catch (error) {
      view = {
        store: this.#store.where,
        decider: this.#decider,
        pending: this.#view?.pending ?? [],
        decided: this.#view?.decided ?? [],
        problem: `The store at ${this.#store.where} could not be read (${reasonOf(error)}). The lists are those of the last read that worked; the studio reads it again every ${Math.round(this.#pollMs / 1000) || 1} s while the page is open.`,
      };
    }
    const text = JSON.stringify(view);
    if (text !== this.#text && !this.#closed) {
      this.#text = text;
      this.#view = view;
      for (const listener of this.#listeners) listener(view);
    }
    return this.#view ?? view;
  }

  #problemOf(error: unknown): StoreQueueError {
    const code = (error as { code?: unknown } | null)?.code;
    const named = (error as { name?: unknown } | null)?.name === 'StoreError';
    if (named && code === 'not_found') {
      return new StoreQueueError('unknown_approval', reasonOf(error), { cause: error });
    }
    if (named && code === 'not_pending') {
      return new StoreQueueError('not_pending', reasonOf(error), { cause: error });
    }
    if (named && code === 'not_allowed') {
      return new StoreQueueError('not_allowed', reasonOf(error), { cause: error });
    }
    return new StoreQueueError(
      'store_unavailable',
      `The store at ${this.#store.where} did not record the decision (${reasonOf(error)}); nothing was decided. Check that PostgreSQL runs there, then decide again.`,
      { cause: error },
    );
  }
}

/** When an approval stopped being pending, for ordering: decided, else used, else expired. */
function settledAt(approval: Approval): string {
  return approval.decidedAt ?? approval.usedAt ?? approval.expiresAt;
}

function defaultDecider(): string {
  const fromEnvironment = process.env.USER ?? process.env.LOGNAME;
  if (fromEnvironment) return fromEnvironment;
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  return error instanceof Error ? error.message : String(error);
}
