/** What {@link checkRequestOrigin} lets through. */
export interface OriginPolicy {
  /** The server listens on a loopback address: then the Host header must name a loopback host too. */
  readonly loopback: boolean;
  /** Origins allowed besides loopback ones, exactly as browsers send them (`https://app.example.com`). */
  readonly allowedOrigins?: readonly string[];
  /** Host header values (host or host:port) allowed besides loopback ones. */
  readonly allowedHosts?: readonly string[];
}

/** Why a request was refused: the status to answer with and a message for the caller. */
export interface OriginRefusal {
  readonly status: 403 | 421;
  readonly message: string;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * The DNS-rebinding defence the Streamable HTTP transport spec requires ("Servers MUST validate the
 * Origin header"): a request whose `Origin` is not loopback or allowed is refused with 403; on a
 * loopback server, a `Host` that is not a loopback name (a rebinding domain resolving to 127.0.0.1)
 * is refused with 421. Requests without an `Origin` (non-browser clients) pass the Origin check.
 *
 * @example
 * checkRequestOrigin({ host: 'evil.example.com', origin: 'http://evil.example.com' }, { loopback: true });
 * // { status: 403, message: 'Origin "http://evil.example.com" is not allowed ...' }
 */
export function checkRequestOrigin(
  headers: { readonly host?: string | undefined; readonly origin?: string | undefined },
  policy: OriginPolicy,
): OriginRefusal | undefined {
  const origin = headers.origin;
  if (origin !== undefined && origin !== '') {
    const allowed = policy.allowedOrigins?.includes(origin) || isLoopbackOrigin(origin);
    if (!allowed) {
      return {
        status: 403,
        message: `Origin ${JSON.stringify(origin.slice(0, 200))} is not allowed to reach this MCP server. Allow it with --allow-origin (or allowedOrigins) if it is yours.`,
      };
    }
  }
  if (policy.loopback) {
    const host = headers.host ?? '';
    if (!(policy.allowedHosts?.includes(host) || LOOPBACK_HOSTS.has(hostName(host)))) {
      return {
        status: 421,
        message: `Host ${JSON.stringify(host.slice(0, 200))} is not a loopback name; this server answers only requests addressed to localhost, 127.0.0.1 or [::1].`,
      };
    }
  }
  return undefined;
}

/**
 * True for `localhost`, `::1` (bare or bracketed) and any `127.x.y.z` address.
 *
 * @example
 * isLoopbackHost('127.0.0.1'); // true
 * isLoopbackHost('0.0.0.0'); // false
 */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
}

// `host:port`, `[::1]:port` or a bare host.
function hostName(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end > 0 ? host.slice(0, end + 1) : host;
  }
  const colon = host.lastIndexOf(':');
  return colon >= 0 && host.indexOf(':') === colon ? host.slice(0, colon) : host;
}
