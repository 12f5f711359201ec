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
