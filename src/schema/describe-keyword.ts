import type { SchemaObject } from './schema-node.js';

/**
 * A constraint as words, for a provider that cannot carry the keyword: the model still reads it, and
 * the contract still enforces it.
 *
 * @example
 * describeKeyword('minimum', 1); // 'at least 1'
 * describeKeyword('pattern', '^[a-z]+$'); // 'matching the regular expression ^[a-z]+$'
 */
export function describeKeyword(keyword: string, value: unknown): string {
  switch (keyword) {
    case 'minimum':
      return `at least ${String(value)}`;
    case 'maximum':
      return `at most ${String(value)}`;
    case 'exclusiveMinimum':
      return `greater than ${String(value)}`;
    case 'exclusiveMaximum':
      return `less than ${String(value)}`;
    case 'multipleOf':
      return `a multiple of ${String(value)}`;
    case 'minLength':
      return `at least ${String(value)} character${value === 1 ? '' : 's'}`;
    case 'maxLength':
      return `at most ${String(value)} character${value === 1 ? '' : 's'}`;
    case 'pattern':
      return `matching the regular expression ${String(value)}`;
    case 'format':
      return `format ${String(value)}`;
    case 'minItems':
      return `at least ${String(value)} item${value === 1 ? '' : 's'}`;
    case 'maxItems':
      return `at most ${String(value)} item${value === 1 ? '' : 's'}`;
    case 'uniqueItems':
      return value === true ? 'items all different' : '';
    case 'minProperties':
      return `at least ${String(value)} field${value === 1 ? '' : 's'}`;
    case 'maxProperties':
      return `at most ${String(value)} field${value === 1 ? '' : 's'}`;
    case 'default':
      return `default ${JSON.stringify(value)}`;
    case 'const':
      return `exactly ${JSON.stringify(value)}`;
    case 'examples':
      return Array.isArray(value) && value.length > 0
        ? `e.g. ${value.map((example) => JSON.stringify(example)).join(', ')}`
        : '';
    case 'dependentRequired':
      return Object.entries(value as SchemaObject)
        .map(([name, needs]) => `when ${name} is given, also give ${(needs as string[]).join(', ')}`)
        .join('; ');
    case 'not':
      return `not matching ${compact(value)}`;
    case 'contains':
      return `containing at least one item matching ${compact(value)}`;
    case 'propertyNames':
      return `field names matching ${compact(value)}`;
    case 'patternProperties':
      return `fields whose names match ${Object.entries(value as SchemaObject)
        .map(([pattern, schema]) => `${pattern} hold ${compact(schema)}`)
        .join(', ')}`;
    case 'additionalProperties':
      return value === false ? 'no other fields' : `any other field holds ${compact(value)}`;
    default:
      return `${keyword}: ${compact(value)}`;
  }
}

const COUNT_NOUNS: { readonly [keyword: string]: string } = {
  minLength: 'characters?|chars?',
  maxLength: 'characters?|chars?',
  minItems: 'items?|entries|entry|elements?|values?',
  maxItems: 'items?|entries|entry|elements?|values?',
};

/**
 * True when `description` already says what {@link describeKeyword} would add for the keyword, so that
 * adding it again would only cost tokens: a default written next to the word ("Default: 100.",
 * "Defaults to 'major'", "\".\" (the default)"), or a length or item bound followed by its unit ("at most
 * 1,000,000 characters"). Only these keywords are recognised; for any other the answer is false and the
 * words are added.
 *
 * @example
 * statedIn('Most matches to return. Default: 100.', 'default', 100); // true
 * statedIn('The text of the file, at most 1,000,000 characters.', 'maxLength', 1_000_000); // true
 * statedIn('Most matches to return.', 'default', 100); // false
 */
export function statedIn(description: unknown, keyword: string, value: unknown): boolean {
  if (typeof description !== 'string' || description === '') return false;
  const nouns = COUNT_NOUNS[keyword];
  if (
    keyword === 'default' ? !/default/i.test(description) : nouns === undefined || typeof value !== 'number'
  )
    return false;
  // Regular expressions are built only for a spelling the text contains: this runs per keyword per call.
  const lower = description.toLowerCase();
  const spellings = valueSpellings(value)
    .filter((spelling) => lower.includes(spelling.text.toLowerCase()))
    .map((spelling) => spelling.pattern);
  if (keyword !== 'default') {
    return spellings.some((spelling) => new RegExp(`${spelling}\\s*(?:${nouns})\\b`, 'i').test(description));
  }
  return spellings.some(
    (spelling) =>
      new RegExp(
        `\\bdefault(?:s|ed)?(?:\\s+(?:is|to|value|of|as))*\\s*[:=]?\\s*(?:the\\s+)?${spelling}`,
        'i',
      ).test(description) ||
      new RegExp(`${spelling}\\s*[,(]?\\s*(?:is\\s+)?(?:by\\s+)?(?:the\\s+)?default\\b`, 'i').test(
        description,
      ),
  );
}

/** How a description may write a value (JSON, quoted, with thousands separators), as text and as a pattern. */
function valueSpellings(value: unknown): { text: string; pattern: string }[] {
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Thousands separators by hand: toLocaleString builds a formatter on every call.
    const plain = String(value);
    const [whole = plain, fraction] = plain.split('.');
    const grouped = `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction === undefined ? '' : `.${fraction}`}`;
    return [...new Set([plain, grouped])].map((text) => ({
      text,
      pattern: `(?<![\\d.,])${escapeRegExp(text)}(?!\\d|[.,]\\d)`,
    }));
  }
  if (typeof value === 'boolean' || value === null) {
    return [{ text: String(value), pattern: `\\b${String(value)}\\b` }];
  }
  if (typeof value === 'string') {
    if (value.trim() === '') return [];
    return [`"${value}"`, `'${value}'`, `\`${value}\``].map((text) => ({
      text,
      pattern: escapeRegExp(text),
    }));
  }
  const json = JSON.stringify(value);
  return json === undefined ? [] : [{ text: json, pattern: escapeRegExp(json) }];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Appends the words to a node's description, as "(at least 1, at most 10)". */
export function appendWords(node: SchemaObject, words: readonly string[]): void {
  const kept = words.filter((word) => word !== '');
  if (kept.length === 0) return;
  const note = `(${kept.join(', ')})`;
  const existing = typeof node.description === 'string' ? node.description.trim() : '';
  node.description = existing ? `${existing} ${note}` : note;
}

function compact(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
