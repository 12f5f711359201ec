/**
 * A token bucket: `perSecond` tokens a second, at most `burst` saved up; a `take` with no token left
 * is refused and counted in `dropped`.
 *
 * @example
 * const bucket = new TokenBucket(50, 200);
 * if (!bucket.take()) return; // over the rate: drop it
 */
export class TokenBucket {
  readonly perSecond: number;
  readonly #burst: number;
  #tokens: number;
  #at = performance.now();
  dropped = 0;

  constructor(perSecond: number, burst: number) {
    this.perSecond = perSecond;
    this.#burst = burst;
    this.#tokens = burst;
  }

  take(): boolean {
    const now = performance.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#at) / 1000) * this.perSecond);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens--;
      return true;
    }
    this.dropped++;
    return false;
  }
}
