import { pathSpellings } from './path-readings.js';

/**
 * The spellings of a resource URI a server might read as the same resource, for a rule's `uri`
 * globs: the URI as sent, each percent-decoding and look-alike reading of it (as for paths), and of
 * each of those the URL's own form (scheme and host lowercased, `.` and `..` resolved,
 * `file://localhost/` read as `file:///`), without its query and fragment, and with repeated slashes
 * in its path made one. A deny or ask rule matches when its glob matches any spelling, ignoring
 * case; an allow rule only when it matches every spelling as written.
 *
 * @example
 * uriSpellings('file:///public/%2e%2e/secret/a');
 * // [..., 'file:///public/../secret/a', 'file:///secret/a']
 */
export function uriSpellings(uri: string): readonly string[] {
  const spellings = new Set<string>();
  for (const spelling of pathSpellings(uri)) {
    spellings.add(spelling);
    const parsed = URL.canParse(spelling) ? new URL(spelling) : undefined;
    if (!parsed) continue;
    spellings.add(parsed.href);
    parsed.search = '';
    parsed.hash = '';
    spellings.add(parsed.href);
    const collapsed = parsed.pathname.replace(/\/{2,}/g, '/');
    if (collapsed !== parsed.pathname) {
      parsed.pathname = collapsed;
      spellings.add(parsed.href);
    }
  }
  spellings.delete('');
  return [...spellings];
}

/**
 * A `uri` glob as rules compare it: NFC, its scheme lowercased (`FILE:///srv/**` is `file:///srv/**`).
 *
 * @example
 * uriPattern('NOTES://private/*'); // 'notes://private/*'
 */
export function uriPattern(pattern: string): string {
  const spelling = pattern.normalize('NFC');
  const colon = spelling.indexOf(':');
  return colon > 0 ? spelling.slice(0, colon).toLowerCase() + spelling.slice(colon) : spelling;
}
