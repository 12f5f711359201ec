import { isIPv6 } from 'node:net';

/** What the limits of legacy sessions look at in one session. */
export interface SessionUse {
  /** Who opened it, as {@link clientOf} names them. */
  readonly client: string;
  /** When a request on it last started or ended (milliseconds, one clock for all). */
  readonly lastActive: number;
  /** Its requests still open, the GET stream among them. */
  readonly inFlight: number;
}

/** Default of `sessionIdleMs`: 30 minutes. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;
/** Default of `maxSessionsPerClient`. */
export const DEFAULT_SESSIONS_PER_CLIENT = 32;
/** Default of `maxSessions`, across all clients. */
export const DEFAULT_MAX_SESSIONS = 1_000;

/**
 * Who "a client" is for the per-client session cap: the remote address of the connection, the one
 * identity a server without authentication can trust (a session id is ours to issue, a header the
 * caller's to write). An IPv4 address mapped into IPv6 counts as that IPv4 address; an IPv6 address
 * counts by its /64 prefix, the block one host or household is given, so that the 2^64 addresses a
 * single machine can take are one client. Behind a reverse proxy every request comes from the
 * proxy's address, so all its clients are one client.
 *
 * @example
 * clientOf('::ffff:127.0.0.2'); // '127.0.0.2'
 * clientOf('2001:db8:1:2:aaaa::1'); // '2001:db8:1:2::/64'
 */
export function clientOf(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(remoteAddress);
  if (mapped) return mapped[1] as string;
  if (!isIPv6(remoteAddress)) return remoteAddress;
  const groups = expandIPv6(remoteAddress.split('%')[0] as string);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/**
 * The sessions of `client` to close so that at most `keep` of its sessions remain: idle ones (no
 * request open) before busy ones, the least recently active first. Other clients' sessions are never
 * among them.
 *
 * @example
 * sessionsToEvict(sessions, '127.0.0.1', 31); // ['a1f…'] when 127.0.0.1 holds 32
 */
export function sessionsToEvict(
  sessions: ReadonlyMap<string, SessionUse>,
  client: string,
  keep: number,
): string[] {
  const own = [...sessions].filter(([, use]) => use.client === client);
  if (own.length <= keep) return [];
  own.sort(([, a], [, b]) => Number(a.inFlight > 0) - Number(b.inFlight > 0) || a.lastActive - b.lastActive);
  return own.slice(0, own.length - keep).map(([id]) => id);
}

/**
 * The sessions idle (no request open, the GET stream included) for `idleMs` or longer at `now`.
 *
 * @example
 * expiredSessions(sessions, Date.now(), 30 * 60 * 1000);
 */
export function expiredSessions(
  sessions: ReadonlyMap<string, SessionUse>,
  now: number,
  idleMs: number,
): string[] {
  return [...sessions]
    .filter(([, use]) => use.inFlight === 0 && now - use.lastActive >= idleMs)
    .map(([id]) => id);
}

// The eight groups of an IPv6 address, in lower-case hex without leading zeros (as a /64 key is written).
function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail (::ffff:1.2.3.4 is handled above) takes two groups.
  const last = tailGroups.at(-1) ?? headGroups.at(-1);
  const extra = last?.includes('.') ? 1 : 0;
  const missing = 8 - headGroups.length - tailGroups.length - extra;
  const groups = [...headGroups, ...Array<string>(Math.max(missing, 0)).fill('0'), ...tailGroups];
  return groups.map((group) => (group.includes('.') ? group : Number.parseInt(group, 16).toString(16)));
}
