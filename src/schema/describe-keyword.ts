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
