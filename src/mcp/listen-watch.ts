import type { ServerResponse } from 'node:http';
import { MAX_WATCHED_URIS, type ResourceWatchers } from './resource-watchers.js';

/**
 * On revision 2026-07-28, `subscriptions/listen` with `notifications.resourceSubscriptions` replaces
 * `resources/subscribe`: the SDK's listen router keeps the stream and sends each
 * `notifications/resources/updated` to the streams that named its URI, and this watches those URIs in
 * the registry for as long as the stream is open. A URI no resource has is not watched (nothing will
 * change it); a body that is not a listen request is left alone.
 *
 * @example
 * watchListenStream(watchers, body, response); // before the SDK's handler serves the stream
 */
export function watchListenStream(watchers: ResourceWatchers, body: unknown, response: ServerResponse): void {
  const uris = listenedUris(body);
  if (uris.length === 0) return;
  let open = true;
  const releases: (() => void)[] = [];
  response.once('close', () => {
    open = false;
    for (const release of releases.splice(0)) release();
  });
  for (const uri of uris) {
    watchers.watch(uri).then(
      (release) => (open ? releases.push(release) : release()),
      () => {},
    );
  }
}

/**
 * The same over stdio, where every listen stream shares the connection: a listen request's URIs are
 * watched until the client cancels it (`notifications/cancelled` naming its id) or the connection
 * closes; `send` hands each update to the pinned server, whose outbound change notifications the SDK's
 * stdio entry routes to the listen streams that named the URI. Answers the function that follows one
 * inbound message, and the one that releases everything.
 *
 * @example
 * const follow = followStdioListens(watchers);
 * transport.onmessage = (message, extra) => { follow.message(message); entry(message, extra); };
 */
export function followStdioListens(watchers: ResourceWatchers): {
  message(message: unknown): void;
  close(): void;
} {
  const open = new Map<unknown, (() => void)[]>();
  const release = (id: unknown) => {
    for (const stop of open.get(id) ?? []) stop();
    open.delete(id);
  };
  return {
    message(message) {
      const cancelled = cancelledRequest(message);
      if (cancelled !== undefined) return release(cancelled);
      const uris = listenedUris(message);
      if (uris.length === 0) return;
      const id = (message as { id: unknown }).id;
      release(id);
      const releases: (() => void)[] = [];
      open.set(id, releases);
      for (const uri of uris) {
        watchers.watch(uri).then(
          (stop) => (open.get(id) === releases ? releases.push(stop) : stop()),
          () => {},
        );
      }
    },
    close() {
      for (const id of [...open.keys()]) release(id);
    },
  };
}

/** The request id a `notifications/cancelled` names, or undefined for any other message. */
function cancelledRequest(message: unknown): unknown {
  if (message === null || typeof message !== 'object') return undefined;
  const notification = message as { method?: unknown; params?: { requestId?: unknown } };
  return notification.method === 'notifications/cancelled' ? notification.params?.requestId : undefined;
}

/** The resource URIs a listen request opts in to, deduplicated and bounded. */
function listenedUris(body: unknown): string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  const request = body as {
    method?: unknown;
    params?: { notifications?: { resourceSubscriptions?: unknown } };
  };
  if (request.method !== 'subscriptions/listen') return [];
  const named = request.params?.notifications?.resourceSubscriptions;
  if (!Array.isArray(named)) return [];
  const uris = new Set(named.filter((uri): uri is string => typeof uri === 'string' && uri.length <= 2_048));
  return [...uris].slice(0, MAX_WATCHED_URIS);
}
