import { isIPv6 } from 'node:net';

/** A `Host` header read strictly: its canonical host name and its port, if one was given. */
export interface ParsedHost {
  /**
   * The host as the WHATWG URL parser canonicalises it: lower case, an IPv4 address in dotted
   * decimal, an IPv6 address compressed and in brackets (`[::1]`).
   */
  readonly hostname: string;
  readonly port: number | undefined;
}

// RFC 9110 §7.2 `Host = uri-host [ ":" port ]`, narrowed to what a client addressing this server can
// mean: a DNS name or IPv4 address (labels of letters, digits, `-` and `_`), or a bracketed IPv6
// address; a port of digits. No userinfo, path, query, percent-encoding or whitespace: the URL
// parser would accept `localhost:1@evil` as a user `localhost`, password `1`, on host `evil`.
const NAME = /^(?:[A-Za-z0-9_-]{1,63}\.)*[A-Za-z0-9_-]{1,63}\.?$/;
const PORT = /^\d{1,5}$/;

/**
 * Reads a `Host` header value as `host[:port]`: a host name, an IPv4 address or a bracketed IPv6
 * address, then an optional numeric port up to 65535. Anything else (userinfo, a path, spaces, an
 * empty value, a bare IPv6 address, a port that is not a number) gives `undefined`.
 *
 * @example
 * parseHostHeader('LocalHost:3000'); // { hostname: 'localhost', port: 3000 }
 * parseHostHeader('[0:0::1]'); // { hostname: '[::1]', port: undefined }
 * parseHostHeader('localhost:1@evil'); // undefined
 */
export function parseHostHeader(value: string | undefined): ParsedHost | undefined {
  if (value === undefined || value.length === 0 || value.length > 260) return undefined;
  let host: string;
  let portText: string | undefined;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0 || !isIPv6(value.slice(1, end))) return undefined;
    host = value.slice(0, end + 1);
    const rest = value.slice(end + 1);
    if (rest !== '' && !rest.startsWith(':')) return undefined;
    portText = rest === '' ? undefined : rest.slice(1);
  } else {
    const colon = value.indexOf(':');
    host = colon < 0 ? value : value.slice(0, colon);
    portText = colon < 0 ? undefined : value.slice(colon + 1);
    if (host.length > 254 || !NAME.test(host)) return undefined;
  }
  let port: number | undefined;
  if (portText !== undefined) {
    if (!PORT.test(portText)) return undefined;
    port = Number(portText);
    if (port > 65_535) return undefined;
  }
  // The grammar above is the strict part; the URL parser only canonicalises what passed it (case,
  // `0x7f.1` or `2130706433` as 127.0.0.1, IPv6 compression), so every spelling of one host decides alike.
  let hostname: string;
  try {
    hostname = new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
  return { hostname, port };
}
