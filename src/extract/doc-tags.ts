import type TS from 'typescript';
import type { Report } from './diagnostics.js';
import type { SchemaNode, Site } from './schema-node.js';

/** A doc-comment tag: `@minimum 1` is `{ name: 'minimum', text: '1' }`, with the tag node when known. */
export interface DocTag {
  readonly name: string;
  readonly text: string;
  /** Where the tag is written, so a problem with it is reported there rather than at its member. */
  readonly at?: TS.Node;
}

type TagKind = 'number' | 'count' | 'pattern' | 'format' | 'value' | 'flag' | 'integer';

/**
 * The doc tags that become JSON Schema keywords, what their text must be, and the type they apply to.
 *
 * @example
 * Object.keys(SCHEMA_TAGS); // ['minimum', 'maximum', …, 'deprecated', 'integer']
 */
export const SCHEMA_TAGS: { readonly [tag: string]: { readonly kind: TagKind; readonly applies?: string } } =
  {
    minimum: { kind: 'number', applies: 'number' },
    maximum: { kind: 'number', applies: 'number' },
    exclusiveMinimum: { kind: 'number', applies: 'number' },
    exclusiveMaximum: { kind: 'number', applies: 'number' },
    multipleOf: { kind: 'number', applies: 'number' },
    minLength: { kind: 'count', applies: 'string' },
    maxLength: { kind: 'count', applies: 'string' },
    pattern: { kind: 'pattern', applies: 'string' },
    format: { kind: 'format', applies: 'string' },
    minItems: { kind: 'count', applies: 'array' },
    maxItems: { kind: 'count', applies: 'array' },
    default: { kind: 'value' },
    example: { kind: 'value' },
    deprecated: { kind: 'flag' },
    integer: { kind: 'integer', applies: 'number' },
  };

/**
 * The formats ajv-formats checks, so a format the validator would ignore is reported instead.
 *
 * @example
 * KNOWN_FORMATS.has('email'); // true
 */
export const KNOWN_FORMATS: ReadonlySet<string> = new Set([
  'date',
  'time',
  'date-time',
  'iso-time',
  'iso-date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'json-pointer-uri-fragment',
  'relative-json-pointer',
  'byte',
  'int32',
  'int64',
  'float',
  'double',
  'password',
  'binary',
]);

/**
 * Applies a member's doc tags to its schema: the constraint tags become keywords (`@minimum 1` →
 * `minimum: 1`), `@default` and `@example` are read as JSON (or taken as a string), `@deprecated` is
 * `deprecated: true`, and toolpact's `@integer` makes a number an integer. A tag whose text is not a
 * valid value, or that does not fit the member's type, is reported at `site`.
 *
 * @example
 * applyTags(node, [{ name: 'minimum', text: '1' }], site, report); // node.minimum === 1
 */
export function applyTags(node: SchemaNode, tags: readonly DocTag[], site: Site, report: Report): void {
  const examples: unknown[] = [];
  for (const tag of tags) {
    if (!Object.hasOwn(SCHEMA_TAGS, tag.name)) continue;
    const spec = SCHEMA_TAGS[tag.name]!;
    const at = tag.at ?? site.at;
    const invalid = (expected: string) =>
      report(
        at,
        'invalid_tag',
        `@${tag.name} on ${site.what} needs ${expected}, received ${JSON.stringify(tag.text)}.`,
      );
    if (spec.applies && !fits(node, spec.applies)) {
      report(
        at,
        'tag_mismatch',
        `@${tag.name} applies to ${spec.applies === 'number' ? 'numbers' : `${spec.applies}s`}, but ${site.what} is ${describeType(node)}.`,
      );
      continue;
    }
    switch (spec.kind) {
      case 'number':
      case 'count': {
        const value = tag.text === '' ? Number.NaN : Number(tag.text);
        if (!Number.isFinite(value)) {
          invalid('a number');
          break;
        }
        if (spec.kind === 'count' && !(Number.isInteger(value) && value >= 0)) {
          invalid('a whole number of 0 or more');
          break;
        }
        node[tag.name] = value;
        break;
      }
      case 'pattern': {
        if (tag.text === '') {
          invalid('a regular expression');
          break;
        }
        try {
          new RegExp(tag.text, 'u');
          node.pattern = tag.text;
        } catch (error) {
          invalid(`a valid regular expression (${(error as Error).message})`);
        }
        break;
      }
      case 'format':
        if (!KNOWN_FORMATS.has(tag.text)) {
          invalid(`one of the formats the validator checks (${[...KNOWN_FORMATS].join(', ')})`);
          break;
        }
        node.format = tag.text;
        break;
      case 'value':
        if (tag.text === '') {
          invalid('a value (JSON, or plain text for a string)');
          break;
        }
        if (tag.name === 'default') node.default = parseValue(tag.text);
        else examples.push(parseValue(tag.text));
        break;
      case 'flag':
        node.deprecated = true;
        break;
      case 'integer':
        if (node.type === 'number') node.type = 'integer';
        for (const branch of Array.isArray(node.anyOf) ? (node.anyOf as SchemaNode[]) : []) {
          if (branch.type === 'number') branch.type = 'integer';
        }
        break;
      default: {
        const never: never = spec.kind;
        throw new Error(`unhandled tag kind ${String(never)}`);
      }
    }
  }
  if (examples.length > 0) node.examples = examples;
}

/**
 * Gives a parameter's or property's schema its description and applies its doc tags.
 *
 * @example
 * applyDocs(node, { description: 'How many.', tags: [{ name: 'minimum', text: '1' }] }, site, report);
 */
export function applyDocs(
  node: SchemaNode,
  docs: { readonly description: string; readonly tags: readonly DocTag[] },
  site: Site,
  report: Report,
): void {
  if (docs.description) node.description = docs.description;
  applyTags(node, docs.tags, site, report);
}

/**
 * A tag's value: JSON when it parses, the text otherwise.
 *
 * @example
 * parseValue('10'); // 10
 * parseValue('"a"'); // 'a'
 * parseValue('a'); // 'a'
 */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function fits(node: SchemaNode, applies: string): boolean {
  const types = typesOf(node);
  // A $ref or a union is not checked here: the keyword applies to whichever branch it fits.
  if (types.length === 0) return true;
  return types.some((type) => type === applies || (applies === 'number' && type === 'integer'));
}

function typesOf(node: SchemaNode): string[] {
  if (typeof node.type === 'string') return [node.type];
  if (Array.isArray(node.anyOf)) {
    const branches = (node.anyOf as SchemaNode[]).map(typesOf);
    return branches.some((branch) => branch.length === 0)
      ? []
      : branches.flat().filter((type) => type !== 'null');
  }
  return [];
}

function describeType(node: SchemaNode): string {
  const types = typesOf(node);
  return types.length ? `of type ${types.join(' or ')}` : 'untyped';
}
