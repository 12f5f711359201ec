/**
 * What the MCP server of a registry says about itself, in one place: its name and version, its
 * capabilities, and the `server/discover` answer it gives over stdio. This module loads nothing (no
 * MCP SDK), so `toolpact gateway` can answer a 2026-07-28 client's era probe before it loads the rest
 * (src/cli/discover-front.ts) with exactly what the full server declares; a test keeps the two answers
 * equal.
 */

/** `serverInfo` when the options name none. */
export const SERVED_NAME = 'toolpact';
export const SERVED_VERSION = '0.1.0';

/**
 * How long a `server/discover` answer may be reused: capabilities, instructions and the supported
 * revisions are fixed for the life of the process, so ten minutes (a restart with other flags is
 * seen within that).
 */
export const DISCOVER_TTL_MS = 600_000;

/** The cache hint of `server/discover`: the answer is the same for every client. */
export const DISCOVER_CACHE_HINT = { ttlMs: DISCOVER_TTL_MS, cacheScope: 'public' } as const;

/**
 * The revisions of the 2026-07-28 era the stdio entry serves, as `server/discover` lists them in
 * `supportedVersions`. The SDK decides them; the test of the discover answer keeps this list equal.
 */
export const MODERN_REVISIONS: readonly string[] = ['2026-07-28'];

/**
 * The capabilities a served registry declares; `listChanged` (and resource subscriptions) are false
 * where no notification can reach the client. Resources, prompts and completions are declared even
 * for a registry that has none yet: a gateway's upstreams bring theirs after it starts, and an empty
 * list is a true answer.
 */
export function servedCapabilities(listChanged: boolean): {
  tools: { listChanged: boolean };
  resources: { subscribe: boolean; listChanged: boolean };
  prompts: { listChanged: boolean };
  completions: Record<string, never>;
  logging: Record<string, never>;
} {
  return {
    tools: { listChanged },
    resources: { subscribe: listChanged, listChanged },
    prompts: { listChanged },
    completions: {},
    logging: {},
  };
}

/**
 * The `result` of `server/discover` over stdio, as the SDK's stdio entry sends it for a server with
 * no instructions: the revisions, the capabilities (`listChanged` on), the cache hint and the
 * `serverInfo` every 2026-07-28 answer carries in its `_meta`.
 *
 * @example
 * const result = discoverResult({ name: 'toolpact', version: SERVED_VERSION });
 */
export function discoverResult(serverInfo: { readonly name: string; readonly version: string }) {
  return {
    supportedVersions: [...MODERN_REVISIONS],
    capabilities: servedCapabilities(true),
    resultType: 'complete',
    ...DISCOVER_CACHE_HINT,
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: serverInfo.name, version: serverInfo.version } },
  };
}
