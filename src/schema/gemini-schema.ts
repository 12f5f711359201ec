import type { JsonSchema } from '../contract/index.js';
import { appendWords, describeKeyword } from './describe-keyword.js';
import type { ToolDiagnostics } from './diagnostics.js';
import { branchesDisjoint } from './disjoint.js';
import { mergeAllOf } from './merge-all-of.js';
import {
  childPath,
  isRecord,
  recursiveRefs,
  resolveLocalRef,
  type SchemaObject,
  typesOf,
} from './schema-node.js';
import type { GeminiSchema } from './types.js';

type GeminiType = NonNullable<GeminiSchema['type']>;
type Mutable = { -readonly [K in keyof GeminiSchema]: GeminiSchema[K] };

const TYPE_NAMES: { readonly [json: string]: GeminiType } = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
};

// python-genai Schema.format and ai.google.dev Schema (provider-rules §1.3.2).
const FORMATS: { readonly [type: string]: ReadonlySet<string> } = {
  STRING: new Set(['enum', 'date-time']),
  NUMBER: new Set(['float', 'double']),
  INTEGER: new Set(['int32', 'int64']),
};

// Gemini `parameters` property names (python-genai FunctionDeclaration.parameters).
const PROPERTY_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const STRING_KEYWORDS = new Set([
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'contentEncoding',
  'contentMediaType',
]);
const NUMBER_KEYWORDS = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'format',
]);
const ARRAY_KEYWORDS = new Set([
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'unevaluatedItems',
]);
const OBJECT_KEYWORDS = new Set([
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedProperties',
]);
const OMITTED = new Set([
  '$comment',
  '$id',
  '$anchor',
  '$schema',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$defs',
  'definitions',
]);

interface Context {
  readonly root: JsonSchema;
  readonly diagnostics: ToolDiagnostics;
  readonly recursive: Set<string>;
  closedObjects: number;
}

/**
 * A JSON Schema as Gemini's OpenAPI-subset `Schema` (the `parameters` form): one `type` per node in
 * upper case, `nullable` for null, string `enum`s (numbers as `format: "enum"`), `$ref`s inlined, `const`
 * as `enum`, integer `exclusiveMinimum` as `minimum + 1`; whatever the subset has no field for is said
 * in the description and reported. Recursive schemas cannot be inlined and are an error (use the
 * `json-schema` form).
 *
 * @example
 * toGeminiSchema({ type: 'object', properties: { n: { type: ['integer', 'null'], exclusiveMinimum: 0 } } }, diagnostics, '$.parameters');
 * // { type: 'OBJECT', properties: { n: { type: 'INTEGER', nullable: true, minimum: 1 } } }
 */
export function toGeminiSchema(schema: JsonSchema, diagnostics: ToolDiagnostics, path: string): GeminiSchema {
  const context: Context = { root: schema, diagnostics, recursive: recursiveRefs(schema), closedObjects: 0 };
  const out = node(schema, path, 0, context, new Set());
  if (context.closedObjects > 0) {
    diagnostics.report(
      path,
      'keyword_omitted',
      `"additionalProperties": false (on ${context.closedObjects} object${context.closedObjects === 1 ? '' : 's'}; the Developer API refuses the keyword, and extra fields are still refused at validation)`,
    );
  }
  return out;
}

function node(
  input: unknown,
  path: string,
  depth: number,
  context: Context,
  refs: ReadonlySet<string>,
): Mutable {
  const { diagnostics } = context;
  if (input === false) {
    diagnostics.report(path, 'shape_widened', 'A schema that accepts nothing ("false")');
    return { type: 'STRING' };
  }
  if (!isRecord(input) || depth > 64) return anyValue(path, context);
  let source: SchemaObject = input;
  if (typeof source.$ref === 'string') {
    const { $ref, ...siblings } = source;
    if (context.recursive.has($ref) && refs.has($ref)) {
      diagnostics.report(path, 'recursive_schema', `"$ref": "${$ref}" refers back to itself`);
      return {
        type: 'OBJECT',
        ...(typeof siblings.description === 'string' ? { description: siblings.description } : {}),
      };
    }
    const target = resolveLocalRef(context.root, $ref);
    if (!isRecord(target)) {
      diagnostics.report(
        childPath(path, '$ref'),
        'unresolved_ref',
        `"$ref": ${JSON.stringify($ref)} does not point into the schema`,
      );
      return anyValue(path, context);
    }
    return node({ ...target, ...siblings }, path, depth, context, new Set([...refs, $ref]));
  }
  if (Array.isArray(source.allOf)) {
    const merged = mergeAllOf(source, context.root, context.recursive);
    if (merged.ok)
      diagnostics.report(childPath(path, 'allOf'), 'keyword_rewritten', '"allOf" is merged into one schema');
    else {
      diagnostics.report(
        childPath(path, 'allOf'),
        'shape_widened',
        `"allOf" could not be merged (${merged.reason}) and is stated in the description`,
      );
      appendWords(merged.schema, [`must also match all of ${JSON.stringify(source.allOf).slice(0, 200)}`]);
    }
    source = merged.schema;
  }
  let nullable = false;
  const words: string[] = [];
  const out: Mutable = {};

  // Unions: a null branch becomes `nullable`; one remaining branch is folded in; several stay `anyOf`.
  let branches: unknown[] | undefined;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const list = source[keyword];
    if (!Array.isArray(list)) continue;
    if (keyword === 'oneOf') {
      if (branchesDisjoint(list, context.root)) {
        diagnostics.report(
          childPath(path, keyword),
          'keyword_rewritten',
          '"oneOf" is sent as "anyOf", its branches being provably disjoint',
        );
      } else {
        diagnostics.report(
          childPath(path, keyword),
          'shape_widened',
          '"oneOf" is sent as "anyOf" (its branches may overlap)',
        );
      }
    }
    if (branches) {
      diagnostics.report(
        childPath(path, keyword),
        'shape_widened',
        'A second union on the same schema is stated in the description only',
      );
      words.push(`must also match one of ${JSON.stringify(list).slice(0, 200)}`);
      continue;
    }
    branches = list.filter((branch) => {
      if (
        isRecord(branch) &&
        branch.type === 'null' &&
        Object.keys(branch).every((key) => key === 'type' || key === 'description')
      ) {
        nullable = true;
        return false;
      }
      return true;
    });
  }
  if (branches && branches.length === 1 && !hasOwnType(source)) {
    const folded = node(branches[0], path, depth, context, refs);
    return finish({ ...folded, ...pickAnnotations(source) }, nullable || folded.nullable === true, words);
  }

  let types = typesOf(source);
  if (types.includes('null')) {
    nullable = true;
    types = types.filter((type) => type !== 'null');
  }
  let values = Object.hasOwn(source, 'const')
    ? [source.const]
    : Array.isArray(source.enum)
      ? source.enum
      : undefined;
  if (values?.includes(null)) {
    nullable = true;
    values = values.filter((value) => value !== null);
  }
  if (Object.hasOwn(source, 'const'))
    diagnostics.report(
      childPath(path, 'const'),
      'keyword_rewritten',
      '"const" is sent as a one-value "enum"',
    );
  if (types.length === 0 && !branches) {
    types = inferTypes(source, values);
    // Keywords imply a type, but a schema without one also accepts values of every other type.
    if (!values && types.length > 0) {
      diagnostics.report(
        path,
        'shape_narrowed',
        `The schema has no "type" and is sent as ${types[0]!.toUpperCase()}, which its keywords imply`,
      );
    }
  }
  if (types.length > 1) {
    // One type per node: several types become one branch per type, each with the keywords that apply to it.
    diagnostics.report(
      childPath(path, 'type'),
      'keyword_rewritten',
      `"type": ${JSON.stringify(source.type)} is sent as "anyOf" with one branch per type`,
    );
    const annotations = pickAnnotations(source);
    const split = types.map((type) => node(onlyFor(source, type, values), path, depth, context, refs));
    return finish({ ...annotations, anyOf: split }, nullable, words);
  }
  const type = types[0] === undefined ? undefined : TYPE_NAMES[types[0]];
  if (type) out.type = type;

  for (const [key, value] of Object.entries(source)) {
    switch (key) {
      case 'type':
      case 'anyOf':
      case 'oneOf':
      case 'enum':
      case 'const':
        break;
      case 'title':
      case 'description':
        if (typeof value === 'string') out[key] = value;
        break;
      case 'default':
        out.default = value;
        break;
      case 'examples':
        if (Array.isArray(value) && value.length > 0) out.example = value[0];
        if (Array.isArray(value) && value.length > 1) {
          words.push(describeKeyword('examples', value.slice(1)));
          diagnostics.report(childPath(path, key), 'keyword_described', 'Examples after the first');
        }
        break;
      case 'format':
        if (type && FORMATS[type]?.has(String(value))) out.format = String(value);
        else describe(key, value, path, words, context);
        break;
      case 'minLength':
      case 'maxLength':
        if (type === 'STRING') out[key] = String(value);
        else describe(key, value, path, words, context);
        break;
      case 'pattern':
        if (type === 'STRING' && typeof value === 'string') out.pattern = value;
        else describe(key, value, path, words, context);
        break;
      case 'minimum':
      case 'maximum':
        if ((type === 'NUMBER' || type === 'INTEGER') && typeof value === 'number')
          out[key] = tighter(key, value, out[key]);
        else describe(key, value, path, words, context);
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        exclusiveBound(key, value, type, out, path, words, context);
        break;
      case 'minItems':
      case 'maxItems':
      case 'minProperties':
      case 'maxProperties':
        if ((key.endsWith('Items') ? type === 'ARRAY' : type === 'OBJECT') && typeof value === 'number')
          out[key] = String(value);
        else describe(key, value, path, words, context);
        break;
      case 'items':
      case 'prefixItems':
        break; // with the array below
      case 'properties':
      case 'required':
      case 'additionalProperties':
        break; // with the object below
      case 'if':
      case 'then':
      case 'else':
      case 'dependentSchemas':
      case 'unevaluatedItems':
      case 'unevaluatedProperties':
        diagnostics.report(
          childPath(path, key),
          'shape_widened',
          `The keyword "${key}" is stated in the description`,
        );
        words.push(describeKeyword(key, value));
        break;
      default:
        if (OMITTED.has(key) || key.startsWith('x-')) {
          if (!(key === '$defs' || key === 'definitions') || depth > 0 || !isRecord(value)) {
            diagnostics.report(childPath(path, key), 'keyword_omitted', `"${key}"`);
          }
        } else {
          describe(key, value, path, words, context);
        }
    }
  }
  if (values) enumPart(values, type, out, path, words, context);
  if (type === 'ARRAY') arrayPart(source, out, path, depth, context, refs, words);
  if (type === 'OBJECT') objectPart(source, out, path, depth, context, refs, words);
  if (branches)
    out.anyOf = branches.map((branch, index) =>
      node(branch, childPath(path, 'anyOf', index), depth + 1, context, refs),
    );
  if (!type && !branches)
    return finish({ ...anyValue(path, context), ...pickAnnotations(out) }, nullable, words);
  return finish(out, nullable, words);
}

function finish(out: Mutable, nullable: boolean, words: string[]): Mutable {
  if (nullable) out.nullable = true;
  appendWords(out as SchemaObject, words);
  return ordered(out);
}

const ORDER: readonly (keyof GeminiSchema)[] = [
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'default',
  'example',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'anyOf',
];

/** A stable key order, whatever order the source had (prompt caches key on the bytes). */
function ordered(out: Mutable): Mutable {
  const sorted: Record<string, unknown> = {};
  for (const key of ORDER) if (out[key] !== undefined) sorted[key] = out[key];
  return sorted as Mutable;
}

function hasOwnType(source: SchemaObject): boolean {
  return typesOf(source).some((type) => type !== 'null');
}

function pickAnnotations(source: SchemaObject | Mutable): Mutable {
  const out: Mutable = {};
  const record = source as SchemaObject;
  if (typeof record.title === 'string') out.title = record.title;
  if (typeof record.description === 'string') out.description = record.description;
  return out;
}

function describe(key: string, value: unknown, path: string, words: string[], context: Context): void {
  const phrase = describeKeyword(key, value);
  if (!phrase) return;
  words.push(phrase);
  context.diagnostics.report(childPath(path, key), 'keyword_described', `"${key}": ${JSON.stringify(value)}`);
}

function tighter(key: 'minimum' | 'maximum', value: number, current: number | undefined): number {
  if (current === undefined) return value;
  return key === 'minimum' ? Math.max(value, current) : Math.min(value, current);
}

function exclusiveBound(
  key: 'exclusiveMinimum' | 'exclusiveMaximum',
  value: unknown,
  type: GeminiType | undefined,
  out: Mutable,
  path: string,
  words: string[],
  context: Context,
): void {
  const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
  if (typeof value !== 'number' || (type !== 'NUMBER' && type !== 'INTEGER')) {
    describe(key, value, path, words, context);
    return;
  }
  if (type === 'INTEGER') {
    // For integers "> n" is exactly ">= floor(n) + 1".
    const exact = key === 'exclusiveMinimum' ? Math.floor(value) + 1 : Math.ceil(value) - 1;
    out[bound] = tighter(bound, exact, out[bound]);
    context.diagnostics.report(
      childPath(path, key),
      'keyword_rewritten',
      `"${key}": ${value} is sent as "${bound}": ${exact} (the type is integer)`,
    );
    return;
  }
  out[bound] = tighter(bound, value, out[bound]);
  words.push(describeKeyword(key, value));
  context.diagnostics.report(
    childPath(path, key),
    'keyword_described',
    `"${key}": ${value} (sent as "${bound}" plus the words)`,
  );
}

function inferTypes(source: SchemaObject, values: readonly unknown[] | undefined): string[] {
  if (values && values.length > 0) {
    const types = new Set(
      values.map((value) =>
        Array.isArray(value)
          ? 'array'
          : typeof value === 'number'
            ? Number.isInteger(value)
              ? 'integer'
              : 'number'
            : typeof value,
      ),
    );
    if (types.has('number')) types.delete('integer');
    return [...types];
  }
  const keys = Object.keys(source);
  if (keys.some((key) => OBJECT_KEYWORDS.has(key))) return ['object'];
  if (keys.some((key) => ARRAY_KEYWORDS.has(key))) return ['array'];
  if (keys.some((key) => STRING_KEYWORDS.has(key) && key !== 'format')) return ['string'];
  if (keys.some((key) => NUMBER_KEYWORDS.has(key) && key !== 'format')) return ['number'];
  return [];
}

/** The part of `source` that applies to one of its types. */
function onlyFor(source: SchemaObject, type: string, values: readonly unknown[] | undefined): SchemaObject {
  const out: SchemaObject = { type };
  const own =
    type === 'string'
      ? STRING_KEYWORDS
      : type === 'number' || type === 'integer'
        ? NUMBER_KEYWORDS
        : type === 'array'
          ? ARRAY_KEYWORDS
          : type === 'object'
            ? OBJECT_KEYWORDS
            : new Set<string>();
  for (const [key, value] of Object.entries(source)) if (own.has(key)) out[key] = value;
  if (values) {
    const mine = values.filter((value) =>
      inferTypes({}, [value]).some(
        (inferred) => inferred === type || (type === 'number' && inferred === 'integer'),
      ),
    );
    if (mine.length > 0) out.enum = mine;
  }
  return out;
}

function enumPart(
  values: readonly unknown[],
  type: GeminiType | undefined,
  out: Mutable,
  path: string,
  words: string[],
  context: Context,
): void {
  if (type === 'STRING' && values.every((value) => typeof value === 'string')) {
    out.enum = values as string[];
    return;
  }
  if ((type === 'INTEGER' || type === 'NUMBER') && values.every((value) => typeof value === 'number')) {
    // Gemini enums are strings; numbers are marked with format "enum" (python-genai Schema.enum).
    out.format = 'enum';
    out.enum = values.map((value) => String(value));
    context.diagnostics.report(
      childPath(path, 'enum'),
      'keyword_rewritten',
      'A numeric "enum" is sent as strings with "format": "enum"',
    );
    return;
  }
  words.push(`one of ${values.map((value) => JSON.stringify(value)).join(', ')}`);
  context.diagnostics.report(
    childPath(path, 'enum'),
    'keyword_described',
    `"enum": ${JSON.stringify(values).slice(0, 120)}`,
  );
}

function arrayPart(
  source: SchemaObject,
  out: Mutable,
  path: string,
  depth: number,
  context: Context,
  refs: ReadonlySet<string>,
  words: string[],
): void {
  if (Array.isArray(source.prefixItems)) {
    const members = source.prefixItems.map((item, index) =>
      node(item, childPath(path, 'prefixItems', index), depth + 1, context, refs),
    );
    if (source.items !== undefined && source.items !== false)
      members.push(node(source.items, childPath(path, 'items'), depth + 1, context, refs));
    context.diagnostics.report(
      childPath(path, 'prefixItems'),
      'shape_widened',
      'A tuple is sent as an array whose items may be any of its members',
    );
    out.items = members.length === 1 ? members[0] : { anyOf: members };
    words.push(`the first ${source.prefixItems.length} items follow the listed alternatives in order`);
    return;
  }
  out.items =
    source.items === undefined || source.items === true
      ? anyValue(childPath(path, 'items'), context)
      : node(source.items, childPath(path, 'items'), depth + 1, context, refs);
}

function objectPart(
  source: SchemaObject,
  out: Mutable,
  path: string,
  depth: number,
  context: Context,
  refs: ReadonlySet<string>,
  words: string[],
): void {
  const { diagnostics } = context;
  const properties = isRecord(source.properties) ? source.properties : undefined;
  if (properties) {
    const converted: Record<string, GeminiSchema> = {};
    for (const [name, child] of Object.entries(properties)) {
      if (!PROPERTY_NAME.test(name)) {
        diagnostics.report(
          childPath(path, 'properties', name),
          'invalid_property_name',
          `The property name ${JSON.stringify(name)} does not match ^[A-Za-z_][A-Za-z0-9_]{0,63}$`,
        );
      }
      converted[name] = node(child, childPath(path, 'properties', name), depth + 1, context, refs);
    }
    if (Object.keys(converted).length > 0) out.properties = converted;
  }
  if (Array.isArray(source.required) && source.required.length > 0)
    out.required = source.required.filter((name): name is string => typeof name === 'string');
  const extra = source.additionalProperties;
  if (extra === false) {
    if (properties && Object.keys(properties).length > 0) context.closedObjects++;
  } else if (extra !== undefined && extra !== true && !(isRecord(extra) && Object.keys(extra).length === 0)) {
    describe('additionalProperties', extra, path, words, context);
  }
  if (!properties || Object.keys(properties).length === 0) {
    if (depth > 0 && extra !== false) {
      diagnostics.report(path, 'outside_subset', 'An OBJECT with no declared properties (any fields)');
    }
  }
}

function anyValue(path: string, context: Context): Mutable {
  context.diagnostics.report(path, 'outside_subset', 'A schema with no type (any value)');
  return {};
}
