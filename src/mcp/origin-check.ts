import { type ParsedHost, parseHostHeader } from './host-header.js';

/** What {@link checkRequestOrigin} lets through. */
export interface OriginPolicy {
  /** The server listens on a loopback address: then the Host header must name a loopback host too. */
  readonly loopback: boolean;
  /** Origins allowed besides loopback ones, exactly as browsers send them (`https://app.example.com`). */
  readonly allowedOrigins?: readonly string[];
  /**
   * Host header values allowed besides loopback ones: `host` (any port) or `host:port`. Compared
   * after both are canonicalised, so `Proxy.Local:8080` matches `proxy.local:8080`.
   */
  readonly allowedHosts?: readonly string[];
}

/** Why {@link checkRequestOrigin} refused a request. */
export type OriginRefusalReason = 'origin_not_allowed' | 'host_malformed' | 'host_not_allowed';

/** Why a request was refused: the status to answer with, a code, what came, and a message for the caller. */
export interface OriginRefusal {
  readonly status: 403 | 421;
  readonly reason: OriginRefusalReason;
  /** The header value refused, cut to 200 characters. */
  readonly received: string;
  readonly message: string;
}

const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);
const HOST_FORM =
  'host[:port], where host is a name, an IPv4 address or a bracketed IPv6 address and port a number up to 65535';

/**
 * The DNS-rebinding defence the Streamable HTTP transport spec requires ("Servers MUST validate the
 * Origin header"): a request whose `Origin` is not loopback or allowed is refused with 403. The `Host`
 * header is read strictly (`host[:port]`, see {@link parseHostHeader}); one that is missing or malformed
 * (`localhost:1@evil`, `localhost:abc`, a space) is refused with 421 on every server, and on a loopback
 * server so is a `Host` that names no loopback host (a rebinding domain resolving to 127.0.0.1).
 * Requests without an `Origin` (non-browser clients) pass the Origin check.
 *
 * @example
 * checkRequestOrigin({ host: 'evil.example.com', origin: 'http://evil.example.com' }, { loopback: true });
 * // { status: 403, reason: 'origin_not_allowed', received: 'http://evil.example.com', message: 'Origin ...' }
 * checkRequestOrigin({ host: 'localhost:1@evil' }, { loopback: true });
 * // { status: 421, reason: 'host_malformed', received: 'localhost:1@evil', message: 'Host ...' }
 */
export function checkRequestOrigin(
  headers: { readonly host?: string | undefined; readonly origin?: string | undefined },
  policy: OriginPolicy,
): OriginRefusal | undefined {
  const origin = headers.origin;
  if (origin !== undefined && origin !== '') {
    const allowed = policy.allowedOrigins?.includes(origin) || isLoopbackOrigin(origin);
    if (!allowed) {
      const received = origin.slice(0, 200);
      return {
        status: 403,
        reason: 'origin_not_allowed',
        received,
        message: `Origin ${JSON.stringify(received)} is not allowed to reach this MCP server. Allow it with --allow-origin (or allowedOrigins) if it is yours.`,
      };
    }
  }
  const raw = headers.host ?? '';
  const received = raw.slice(0, 200);
  const host = parseHostHeader(raw);
  const allowedNames = policy.loopback ? 'localhost, 127.0.0.1 or [::1], with any port' : undefined;
  if (!host) {
    return {
      status: 421,
      reason: 'host_malformed',
      received,
      message: `Host ${JSON.stringify(received)} is not a valid Host header: send ${HOST_FORM}${allowedNames ? ` (this server answers ${allowedNames})` : ''}.`,
    };
  }
  if (policy.loopback && !isLoopbackName(host.hostname) && !isAllowedHost(host, policy.allowedHosts)) {
    return {
      status: 421,
      reason: 'host_not_allowed',
      received,
      message: `Host ${JSON.stringify(received)} is not a loopback name; this server answers only requests addressed to ${allowedNames}${policy.allowedHosts?.length ? ` or ${policy.allowedHosts.join(', ')}` : ''}.`,
    };
  }
  return undefined;
}

/**
 * The `allowedHosts` entries that are not `host[:port]` values, for a server to refuse at start.
 *
 * @example
 * invalidHostEntries(['proxy.local:8080', 'http://proxy.local']); // ['http://proxy.local']
 */
export function invalidHostEntries(entries: readonly string[]): string[] {
  return entries.filter((entry) => parseHostHeader(entry) === undefined);
}

/**
 * True for `localhost`, `::1` (bare or bracketed) and any `127.x.y.z` address.
 *
 * @example
 * isLoopbackHost('127.0.0.1'); // true
 * isLoopbackHost('0.0.0.0'); // false
 */
export function isLoopbackHost(host: string): boolean {
  return host === '::1' || LOOPBACK_NAMES.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

// A canonical host name (lower case, dotted IPv4, compressed bracketed IPv6): localhost, 127.0.0.0/8,
// [::1], and 127.0.0.0/8 mapped into IPv6 ([::ffff:7f00:1]).
function isLoopbackName(hostname: string): boolean {
  return (
    LOOPBACK_NAMES.has(hostname) ||
    /^127(\.\d{1,3}){3}$/.test(hostname) ||
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname)
  );
}

function isAllowedHost(host: ParsedHost, allowed: readonly string[] | undefined): boolean {
  return (allowed ?? []).some((entry) => {
    const parsed = parseHostHeader(entry);
    return (
      parsed !== undefined &&
      parsed.hostname === host.hostname &&
      (parsed.port === undefined || parsed.port === host.port)
    );
  });
}

function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackName(url.hostname);
}
