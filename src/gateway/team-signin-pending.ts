import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** One team sign-in under way: who started it, for which server, and what binds its callback. */
export interface PendingSignIn {
  readonly server: string;
  /** The person it signs in (their upstream principal id). */
  readonly principal: string;
  /** The OAuth `state` sent to the authorization server. */
  readonly state: string;
  readonly authorizationUrl: URL;
  /** The one-time handle of the link that sends the browser on (`…/signin/<server>/go/<handle>`). */
  readonly handle: string;
  /** The name of the cookie the link sets in the browser that follows it. */
  readonly cookie: string;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
  /** The hash of the cookie's value, once the link has been followed. */
  binding: Buffer | undefined;
}

/** Why a link or a callback is refused. */
export type PendingRefusal = 'unknown' | 'expired' | 'unbound';

/**
 * The sign-ins under way, in this process: each expires, each link and each callback is used once,
 * and a callback completes only in the browser that followed the link (its one-time cookie). A new
 * sign-in of a person to a server replaces their earlier one; past `max`, the oldest is dropped.
 */
export class PendingSignIns {
  private readonly byState = new Map<string, PendingSignIn>();
  private readonly byHandle = new Map<string, PendingSignIn>();
  private readonly byPerson = new Map<string, PendingSignIn>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
    private readonly now: () => number,
  ) {}

  /** Records a sign-in just started. */
  add(entry: Omit<PendingSignIn, 'handle' | 'cookie' | 'expiresAt' | 'binding'>): PendingSignIn {
    this.purge();
    const person = JSON.stringify([entry.server, entry.principal]);
    const earlier = this.byPerson.get(person);
    if (earlier) this.forget(earlier);
    const oldest = this.byState.values().next().value;
    if (oldest && this.byState.size >= this.max) this.forget(oldest);
    const pending: PendingSignIn = {
      ...entry,
      handle: randomBytes(24).toString('base64url'),
      cookie: `toolpact_signin_${randomBytes(6).toString('hex')}`,
      expiresAt: this.now() + this.ttlMs,
      binding: undefined,
    };
    this.byState.set(pending.state, pending);
    this.byHandle.set(pending.handle, pending);
    this.byPerson.set(person, pending);
    return pending;
  }

  /**
   * Follows a link, once: answers the sign-in and the cookie value to set in the browser (only its
   * hash is kept), or why not.
   */
  follow(handle: string, server: string): { pending: PendingSignIn; secret: string } | PendingRefusal {
    const pending = this.byHandle.get(handle);
    if (!pending || pending.server !== server) return 'unknown';
    this.byHandle.delete(handle);
    if (pending.expiresAt <= this.now()) {
      this.forget(pending);
      return 'expired';
    }
    const secret = randomBytes(32).toString('base64url');
    pending.binding = digest(secret);
    return { pending, secret };
  }

  /**
   * Takes the sign-in a callback with `state` completes, once (refused or not, it is over), checking
   * that it came back to the browser that followed its link: `cookieOf` reads that browser's cookie.
   */
  take(state: string, cookieOf: (name: string) => string | undefined): PendingSignIn | PendingRefusal {
    const pending = this.byState.get(state);
    if (!pending) return 'unknown';
    this.forget(pending);
    if (pending.expiresAt <= this.now()) return 'expired';
    const secret = cookieOf(pending.cookie);
    if (!pending.binding || secret === undefined) return 'unbound';
    return timingSafeEqual(pending.binding, digest(secret)) ? pending : 'unbound';
  }

  private forget(pending: PendingSignIn): void {
    this.byState.delete(pending.state);
    this.byHandle.delete(pending.handle);
    const person = JSON.stringify([pending.server, pending.principal]);
    if (this.byPerson.get(person) === pending) this.byPerson.delete(person);
  }

  private purge(): void {
    const now = this.now();
    for (const pending of [...this.byState.values()]) {
      if (pending.expiresAt <= now) this.forget(pending);
    }
  }
}

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}
