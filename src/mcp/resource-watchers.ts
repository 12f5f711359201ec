import type { Registry } from '../registry/registry.js';

/** Most URIs one connection (or one listen stream) may watch at once. */
export const MAX_WATCHED_URIS = 100;

/**
 * The resources a connection watches for its subscribers, each watched once however many subscribe
 * to it (so one change sends one `notifications/resources/updated`), through the registry's
 * `subscribeResource`.
 *
 * @example
 * const watchers = new ResourceWatchers(registry, (uri) => server.sendResourceUpdated({ uri }));
 * const release = await watchers.watch('notes://todo');
 */
export class ResourceWatchers {
  readonly #watched = new Map<string, { count: number; stop: Promise<() => void> }>();

  constructor(
    private readonly registry: Registry,
    private readonly send: (uri: string) => void,
  ) {}

  /** How many URIs are watched. */
  get size(): number {
    return this.#watched.size;
  }

  /** Watches `uri` (refused by the registry as `readResource` would be); answers the release, idempotent. */
  async watch(uri: string, state?: unknown): Promise<() => void> {
    let entry = this.#watched.get(uri);
    if (!entry) {
      const stop = this.registry.subscribeResource(uri, () => this.send(uri), { state });
      entry = { count: 0, stop };
      this.#watched.set(uri, entry);
      try {
        await stop;
      } catch (error) {
        this.#watched.delete(uri);
        throw error;
      }
    } else {
      await entry.stop;
    }
    entry.count += 1;
    const watched = entry;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      watched.count -= 1;
      if (watched.count > 0 || this.#watched.get(uri) !== watched) return;
      this.#watched.delete(uri);
      void watched.stop.then(stopQuietly, () => {});
    };
  }

  /** Stops watching everything (the connection closed). */
  close(): void {
    for (const entry of this.#watched.values()) {
      void entry.stop.then(stopQuietly, () => {});
    }
    this.#watched.clear();
  }
}

// A resource's own stop function failing must not break the connection's close.
function stopQuietly(stop: () => void): void {
  try {
    stop();
  } catch {
    // Nothing to tell: the subscriber is gone either way.
  }
}
