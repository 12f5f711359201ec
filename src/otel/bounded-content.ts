import { redactText, redactValue } from '../util/redact.js';

/** Default longest argument or result text put on a span or a log record, in characters. */
export const DEFAULT_MAX_CONTENT_CHARS = 4_000;

/**
 * A value as the JSON text telemetry may carry: secrets redacted as in the audit log, then cut to
 * `maxChars` with a visible marker, so a large result never swells a span past a backend's limits.
 *
 * @example
 * boundedContent({ path: 'a.txt', token: 'sk-…' }, 100); // '{"path":"a.txt","token":"[REDACTED]"}'
 */
export function boundedContent(value: unknown, maxChars = DEFAULT_MAX_CONTENT_CHARS): string {
  let text: string;
  try {
    text = JSON.stringify(redactValue(value)) ?? 'null';
  } catch {
    text = '"[not serializable]"';
  }
  return boundedText(text, maxChars);
}

/**
 * A string with secrets redacted, cut to `maxChars` with a marker that says how long it was.
 *
 * @example
 * boundedText('x'.repeat(10_000), 100); // 'xxx…… (10000 characters)'
 */
export function boundedText(text: string, maxChars = DEFAULT_MAX_CONTENT_CHARS): string {
  const clean = redactText(text);
  if (clean.length <= maxChars) return clean;
  const marker = `… (${clean.length} characters)`;
  let shown = clean.slice(0, Math.max(0, maxChars - marker.length));
  if (/[\uD800-\uDBFF]$/.test(shown)) shown = shown.slice(0, -1);
  return `${shown}${marker}`;
}
