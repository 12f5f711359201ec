/** What replaces a secret. */
export const REDACTED = '[REDACTED]';

// Keys whose values are secrets whatever they look like.
const SECRET_KEY =
  /pass(?:word|wd|phrase)|^pass$|^pwd$|secret|token|api[-_]?key|apikey|access[-_]?key|private[-_]?key|auth(?:orization)?$|credential|cookie|session[-_]?id|^bearer$|signature/i;

// Keys that name a count of tokens (a model's budget), not a secret: `maxTokens`, `num_tokens`, `tokenCount`.
const TOKEN_COUNT_KEY =
  /^(?:max|min|num|total|used|input|output)[-_]?tokens$|^tokens?[-_]?(?:count|limit|budget|used)$/i;

// Token shapes, each linear (no nested quantifiers): provider keys, cloud keys, JWTs, PEM blocks.
const SECRET_SHAPES: readonly RegExp[] = [
  /\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{35}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];
// `Bearer <token>`, `password=<value>`, and `user:pass@` in URLs keep their label and lose the value.
const LABELLED: readonly [RegExp, string][] = [
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  [
    /\b((?:pass(?:word|wd)?|secret|token|api[-_]?key|apikey|access[-_]?key|auth)[A-Za-z_]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&;,'"]+)/gi,
    `$1$2${REDACTED}`,
  ],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s/@]+@/gi, `$1${REDACTED}@`],
];

// One pass that every pattern above needs to match somewhere; most strings stop here.
const MAYBE_SECRET =
  /sk-|gh[pousr]_|github_pat_|AKIA|ASIA|xox[abposr]-|AIza|glpat-|npm_|eyJ|PRIVATE KEY|bearer|basic|pass|secret|token|api|access|auth|:\/\//i;

const MAX_STRING = 2_000;
const MAX_DEPTH = 20;
const MAX_ENTRIES = 200;

/**
 * Removes what looks like a secret from a string: API keys and tokens by their shapes, the value
 * after `password=`, `token:` or `Bearer`, and the password in a URL.
 *
 * @example
 * redactText('curl -H "Authorization: Bearer sk-abc…"'); // 'curl -H "Authorization: Bearer [REDACTED]"'
 */
export function redactText(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  let result = text;
  for (const shape of SECRET_SHAPES) result = result.replace(shape, REDACTED);
  for (const [pattern, replacement] of LABELLED) result = result.replace(pattern, replacement);
  return result;
}

/**
 * A copy of a JSON-like value fit for a log: the value of every key named like a secret
 * (`password`, `token`, `api_key`, `authorization`, …) replaced by `[REDACTED]`, every string passed
 * through {@link redactText}, long strings shortened, deep or large structures cut with a marker.
 *
 * @example
 * redactValue({ user: 'ada', password: 'hunter2' }); // { user: 'ada', password: '[REDACTED]' }
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    const clean = redactText(value);
    return clean.length > MAX_STRING ? `${clean.slice(0, MAX_STRING)}… (${clean.length} characters)` : clean;
  }
  if (value === null || typeof value !== 'object') {
    return typeof value === 'bigint' ? value.toString() : typeof value === 'function' ? '[function]' : value;
  }
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ENTRIES).map((item) => redactValue(item, depth + 1));
    if (value.length > MAX_ENTRIES) items.push(`… ${value.length - MAX_ENTRIES} more items`);
    return items;
  }
  const copy: Record<string, unknown> = {};
  let count = 0;
  for (const [key, item] of Object.entries(value)) {
    if (++count > MAX_ENTRIES) {
      copy['…'] = 'more keys omitted';
      break;
    }
    const safeKey = key === '__proto__' ? '[__proto__]' : redactText(key);
    copy[safeKey] =
      SECRET_KEY.test(key) && !TOKEN_COUNT_KEY.test(key) && item !== null && item !== undefined
        ? REDACTED
        : redactValue(item, depth + 1);
  }
  return copy;
}
