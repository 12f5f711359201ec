import type { JsonSchema } from '../contract/index.js';
import { appendWords, describeKeyword, statedIn } from './describe-keyword.js';
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

/** What one provider's strict mode accepts. */
export interface StrictProfile {
  readonly name: string;
  /** Every property required, optional ones made nullable (OpenAI); otherwise optional ones stay optional. */
  readonly allRequired: boolean;
  /** Recursive `$ref`s allowed. */
  readonly recursion: boolean;
  /** String formats it accepts; others go into the description. */
  readonly formats: ReadonlySet<string>;
  /** Constraint keywords it carries as they are. */
  readonly constraints: ReadonlySet<string>;
  /** The largest `minItems` it accepts (Anthropic: 1). */
  readonly maxMinItems?: number;
  /** Enum values must be primitives. */
  readonly primitiveEnums: boolean;
  /** Documented size limits, checked over the whole schema. */
  readonly limits?: {
    readonly properties: number;
    readonly depth: number;
    readonly enumValues: number;
    readonly chars: number;
  };
}

// developers.openai.com structured-outputs#supported-schemas (provider-rules §1.1.2).
export const OPENAI_STRICT: StrictProfile = {
  name: 'OpenAI',
  allRequired: true,
  recursion: true,
  formats: new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']),
  constraints: new Set([
    'pattern',
    'format',
    'multipleOf',
    'maximum',
    'exclusiveMaximum',
    'minimum',
    'exclusiveMinimum',
    'minItems',
    'maxItems',
  ]),
  primitiveEnums: false,
  limits: { properties: 5000, depth: 10, enumValues: 1000, chars: 120_000 },
};

// platform.claude.com structured-outputs#json-schema-limitations (provider-rules §1.2.4).
export const ANTHROPIC_STRICT: StrictProfile = {
  name: 'Anthropic',
  allRequired: false,
  recursion: false,
  formats: new Set([
    'date-time',
    'time',
    'date',
    'duration',
    'email',
    'hostname',
    'uri',
    'ipv4',
    'ipv6',
    'uuid',
  ]),
  constraints: new Set(['pattern', 'format', 'minItems']),
  maxMinItems: 1,
  primitiveEnums: true,
};

const DESCRIBABLE = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'contains',
  'minContains',
  'maxContains',
  'propertyNames',
  'dependentRequired',
  'not',
  'default',
  'examples',
  'contentEncoding',
  'contentMediaType',
]);
const OMITTED = new Set(['$comment', '$id', '$anchor', 'deprecated', 'readOnly', 'writeOnly', '$schema']);

interface Context {
  readonly root: JsonSchema;
  readonly profile: StrictProfile;
  readonly diagnostics: ToolDiagnostics;
  readonly recursive: Set<string>;
  readonly counts: { properties: number; enumValues: number; chars: number; depth: number };
}

/**
 * The parameters schema as a provider's strict mode accepts it: every object closed
 * (`additionalProperties: false`); for OpenAI every property required and the optional ones nullable
 * (the way back, {@link restoreStrictArguments}, turns their `null` into "absent" again); `const` as a
 * one-value `enum`; `oneOf` as `anyOf` where the branches provably cannot overlap; `$ref` with sibling
 * keywords inlined; constraints strict mode does not carry stated in the description. What it cannot
 * express at all is an error diagnostic naming the path.
 *
 * @example
 * toStrictSchema({ type: 'object', properties: { n: { type: 'integer' } } }, OPENAI_STRICT, diagnostics, '$.parameters');
 * // { type: 'object', properties: { n: { type: ['integer', 'null'] } }, required: ['n'], additionalProperties: false }
 */
export function toStrictSchema(
  parameters: JsonSchema,
  profile: StrictProfile,
  diagnostics: ToolDiagnostics,
  path: string,
): JsonSchema {
  const context: Context = {
    root: parameters,
    profile,
    diagnostics,
    recursive: recursiveRefs(parameters),
    counts: { properties: 0, enumValues: 0, chars: 0, depth: 0 },
  };
  if (Array.isArray(parameters.anyOf) || Array.isArray(parameters.oneOf)) {
    diagnostics.report(path, 'root_not_object', 'The parameters are a union at the root');
  }
  if (!profile.recursion && context.recursive.size > 0) {
    diagnostics.report(
      path,
      'recursive_schema',
      `The schema refers to itself through ${[...context.recursive].join(', ')}`,
    );
  }
  const out = node(parameters, path, 0, context);
  for (const defs of ['$defs', 'definitions'] as const) {
    const map = parameters[defs];
    if (!isRecord(map)) continue;
    const converted: SchemaObject = {};
    for (const [name, definition] of Object.entries(map)) {
      context.counts.chars += name.length;
      converted[name] = node(definition, childPath(path, defs, name), 1, context);
    }
    out[defs] = converted;
  }
  const limits = profile.limits;
  if (limits) {
    const { counts } = context;
    if (counts.properties > limits.properties)
      diagnostics.report(
        path,
        'limit_exceeded',
        `The schema has ${counts.properties} properties in total, more than the ${limits.properties} allowed`,
      );
    if (counts.depth > limits.depth)
      diagnostics.report(
        path,
        'limit_exceeded',
        `The schema nests objects ${counts.depth} levels deep, more than the ${limits.depth} allowed`,
      );
    if (counts.enumValues > limits.enumValues)
      diagnostics.report(
        path,
        'limit_exceeded',
        `The schema has ${counts.enumValues} enum values, more than the ${limits.enumValues} allowed`,
      );
    if (counts.chars > limits.chars)
      diagnostics.report(
        path,
        'limit_exceeded',
        `Property names, definition names and enum values total ${counts.chars} characters, more than the ${limits.chars} allowed`,
      );
  }
  return out;
}

function node(input: unknown, path: string, depth: number, context: Context): SchemaObject {
  const { diagnostics, profile } = context;
  if (input === true || (isRecord(input) && Object.keys(input).length === 0)) {
    diagnostics.report(
      path,
      'strict_unsupported',
      'This schema accepts any value, and strict mode needs a type',
    );
    return {};
  }
  if (!isRecord(input)) {
    diagnostics.report(path, 'strict_unsupported', `This schema is ${JSON.stringify(input)}`);
    return {};
  }
  let source: SchemaObject = input;
  // A lone $ref stays a reference; with siblings it is inlined when it can be (openai-python _pydantic.py).
  if (typeof source.$ref === 'string') {
    const { $ref, ...siblings } = source;
    if (Object.keys(siblings).length === 0) return { $ref };
    const target = resolveLocalRef(context.root, $ref);
    if (isRecord(target) && !context.recursive.has($ref)) {
      diagnostics.report(path, 'keyword_rewritten', `The "$ref": "${$ref}" with sibling keywords is inlined`);
      source = { ...target, ...siblings };
    } else {
      const wrapper: SchemaObject = {};
      if (typeof siblings.description === 'string') wrapper.description = siblings.description;
      if (typeof siblings.title === 'string') wrapper.title = siblings.title;
      const rest = Object.keys(siblings).filter((key) => key !== 'description' && key !== 'title');
      if (rest.length > 0) {
        diagnostics.report(
          path,
          'strict_unsupported',
          `The recursive "$ref": "${$ref}" has the sibling keywords ${rest.join(', ')}`,
        );
      }
      wrapper.anyOf = [{ $ref }];
      return wrapper;
    }
  }
  if (Array.isArray(source.allOf)) {
    const merged = mergeAllOf(source, context.root, context.recursive);
    if (merged.ok)
      diagnostics.report(childPath(path, 'allOf'), 'keyword_rewritten', '"allOf" is merged into one schema');
    else
      diagnostics.report(
        childPath(path, 'allOf'),
        'strict_unsupported',
        `An "allOf" that cannot be merged into one schema (${merged.reason})`,
      );
    source = merged.schema;
  }
  const out: SchemaObject = {};
  const words: string[] = [];
  const types = typesOf(source);
  let sawType = types.length > 0;
  for (const [key, value] of Object.entries(source)) {
    switch (key) {
      case 'type':
        out.type = value;
        break;
      case 'description':
      case 'title':
        if (typeof value === 'string') out[key] = value;
        break;
      case 'enum':
        out.enum = enumValues(value, path, context);
        if (!sawType) {
          out.type = inferredType(value as unknown[]);
          sawType = true;
        }
        break;
      case 'const':
        diagnostics.report(
          childPath(path, key),
          'keyword_rewritten',
          '"const" is sent as a one-value "enum"',
        );
        out.enum = enumValues([value], path, context);
        if (!sawType) {
          out.type = inferredType([value]);
          sawType = true;
        }
        break;
      case 'properties':
      case 'required':
      case 'additionalProperties':
      case 'patternProperties':
      case 'unevaluatedProperties':
        break; // handled with the object below
      case '$defs':
      case 'definitions':
        if (depth > 0)
          diagnostics.report(childPath(path, key), 'strict_unsupported', `"${key}" below the root`);
        break; // the root's are converted by toStrictSchema
      case 'items':
      case 'prefixItems':
        break; // handled with the array below
      case 'anyOf':
        if (out.anyOf !== undefined) {
          diagnostics.report(
            childPath(path, key),
            'strict_unsupported',
            'A second union ("anyOf" beside "oneOf") on the same schema',
          );
          break;
        }
        out.anyOf = (value as unknown[]).map((branch, index) =>
          node(branch, childPath(path, key, index), depth + 1, context),
        );
        sawType = true;
        break;
      case 'oneOf': {
        const branches = value as unknown[];
        if (out.anyOf !== undefined) {
          diagnostics.report(
            childPath(path, key),
            'strict_unsupported',
            'A second union ("oneOf" beside "anyOf") on the same schema',
          );
          break;
        }
        if (branchesDisjoint(branches, context.root)) {
          diagnostics.report(
            childPath(path, key),
            'keyword_rewritten',
            '"oneOf" is sent as "anyOf", its branches being provably disjoint',
          );
        } else {
          diagnostics.report(
            childPath(path, key),
            'strict_unsupported',
            'A "oneOf" whose branches may overlap (strict mode has only "anyOf")',
          );
        }
        out.anyOf = branches.map((branch, index) =>
          node(branch, childPath(path, key, index), depth + 1, context),
        );
        sawType = true;
        break;
      }
      case 'if':
      case 'then':
      case 'else':
      case 'dependentSchemas':
        diagnostics.report(childPath(path, key), 'strict_unsupported', `The conditional keyword "${key}"`);
        break;
      default:
        if (profile.constraints.has(key) && constraintCarried(key, value, profile)) {
          out[key] = value;
        } else if (DESCRIBABLE.has(key)) {
          const phrase = describeKeyword(key, value);
          if (phrase) {
            // Words the description already has would be read twice and paid for twice.
            const stated = statedIn(source.description, key, value);
            if (!stated) words.push(phrase);
            diagnostics.report(
              childPath(path, key),
              'keyword_described',
              `"${key}": ${JSON.stringify(value)}${stated ? ' (its description already says so)' : ''}`,
            );
          }
        } else if (OMITTED.has(key) || key.startsWith('x-')) {
          diagnostics.report(childPath(path, key), 'keyword_omitted', `"${key}"`);
        } else {
          diagnostics.report(childPath(path, key), 'strict_unsupported', `The keyword "${key}"`);
        }
    }
  }
  const isObject =
    types.includes('object') ||
    (!sawType && (isRecord(source.properties) || source.additionalProperties !== undefined));
  const isArray =
    types.includes('array') ||
    (!sawType && (source.items !== undefined || Array.isArray(source.prefixItems)));
  if (!sawType) {
    // Without a type the schema accepts values of every type; strict mode needs one, so the keywords
    // decide which, and the model can no longer send the others.
    let inferred: string | undefined;
    if (isObject) inferred = 'object';
    else if (isArray) inferred = 'array';
    else if (['pattern', 'minLength', 'maxLength', 'format'].some((key) => source[key] !== undefined))
      inferred = 'string';
    else if (
      ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].some(
        (key) => source[key] !== undefined,
      )
    )
      inferred = 'number';
    if (inferred) {
      out.type = inferred;
      diagnostics.report(
        path,
        'shape_narrowed',
        `The schema has no "type" and is sent as "type": "${inferred}", which its keywords imply`,
      );
    } else {
      diagnostics.report(
        path,
        'strict_unsupported',
        'This schema has no type, so it accepts any value, and strict mode needs a type',
      );
    }
  }
  if (isObject) objectPart(source, out, path, depth, context);
  if (isArray) arrayPart(source, out, path, depth, context);
  appendWords(out, words);
  return out;
}

function constraintCarried(key: string, value: unknown, profile: StrictProfile): boolean {
  if (key === 'format') return typeof value === 'string' && profile.formats.has(value);
  if (key === 'minItems' && profile.maxMinItems !== undefined)
    return typeof value === 'number' && value <= profile.maxMinItems;
  return true;
}

function enumValues(value: unknown, path: string, context: Context): unknown[] {
  const values = Array.isArray(value) ? value : [];
  context.counts.enumValues += values.length;
  for (const entry of values) if (typeof entry === 'string') context.counts.chars += entry.length;
  if (context.profile.primitiveEnums && values.some((entry) => entry !== null && typeof entry === 'object')) {
    context.diagnostics.report(
      childPath(path, 'enum'),
      'strict_unsupported',
      'An enum with object or array values',
    );
  }
  return values;
}

function inferredType(values: readonly unknown[]): string | string[] {
  const types = [
    ...new Set(
      values.map((value) =>
        value === null
          ? 'null'
          : Array.isArray(value)
            ? 'array'
            : typeof value === 'number'
              ? Number.isInteger(value)
                ? 'integer'
                : 'number'
              : typeof value,
      ),
    ),
  ];
  if (types.includes('number')) {
    const index = types.indexOf('integer');
    if (index >= 0) types.splice(index, 1);
  }
  return types.length === 1 ? types[0]! : types;
}

function objectPart(
  source: SchemaObject,
  out: SchemaObject,
  path: string,
  depth: number,
  context: Context,
): void {
  const { diagnostics, profile } = context;
  context.counts.depth = Math.max(context.counts.depth, depth + 1);
  const properties = isRecord(source.properties) ? source.properties : {};
  const required = new Set(
    Array.isArray(source.required)
      ? source.required.filter((name): name is string => typeof name === 'string')
      : [],
  );
  const names = Object.keys(properties);
  const open = source.additionalProperties;
  if (names.length === 0 && open !== false && source.patternProperties === undefined) {
    if (open === undefined || open === true || (isRecord(open) && Object.keys(open).length === 0)) {
      // `{type:"object"}` with nothing else is usually "no parameters" at the root, a free map elsewhere.
      if (depth > 0)
        diagnostics.report(
          path,
          'strict_unsupported',
          'An object with no declared properties (any fields) cannot be closed',
        );
    } else {
      diagnostics.report(
        path,
        'strict_unsupported',
        'A map (an object whose fields are described only by "additionalProperties")',
      );
    }
  } else if (
    open !== undefined &&
    open !== false &&
    names.length > 0 &&
    !(isRecord(open) && Object.keys(open).length === 0) &&
    open !== true
  ) {
    diagnostics.report(
      childPath(path, 'additionalProperties'),
      'shape_narrowed',
      'Fields beyond the declared properties are closed off',
    );
  } else if (open !== false && names.length > 0) {
    diagnostics.report(path, 'object_closed', 'The object is sent with "additionalProperties": false');
  }
  if (isRecord(source.patternProperties)) {
    diagnostics.report(
      childPath(path, 'patternProperties'),
      names.length > 0 ? 'shape_narrowed' : 'strict_unsupported',
      'Fields matched by "patternProperties"',
    );
  }
  if (source.unevaluatedProperties !== undefined && source.unevaluatedProperties !== false) {
    diagnostics.report(
      childPath(path, 'unevaluatedProperties'),
      'shape_narrowed',
      'Fields allowed by "unevaluatedProperties"',
    );
  }
  for (const name of required) {
    if (!Object.hasOwn(properties, name)) {
      diagnostics.report(
        childPath(path, 'required'),
        'strict_unsupported',
        `"${name}" is required but not among the properties`,
      );
    }
  }
  const converted: SchemaObject = {};
  for (const name of names) {
    context.counts.properties++;
    context.counts.chars += name.length;
    const child = node(properties[name], childPath(path, 'properties', name), depth + 1, context);
    converted[name] = profile.allRequired && !required.has(name) ? nullable(child) : child;
  }
  out.properties = converted;
  const requiredOut = profile.allRequired ? names : names.filter((name) => required.has(name));
  if (requiredOut.length > 0) out.required = requiredOut;
  out.additionalProperties = false;
}

function arrayPart(
  source: SchemaObject,
  out: SchemaObject,
  path: string,
  depth: number,
  context: Context,
): void {
  const { diagnostics } = context;
  if (Array.isArray(source.prefixItems)) {
    const branches = source.prefixItems.map((item, index) =>
      node(item, childPath(path, 'prefixItems', index), depth + 1, context),
    );
    if (source.items !== undefined && source.items !== false) {
      branches.push(node(source.items, childPath(path, 'items'), depth + 1, context));
    }
    diagnostics.report(
      childPath(path, 'prefixItems'),
      'shape_widened',
      'A tuple is sent as an array whose items may be any of its members',
    );
    out.items = branches.length === 1 ? branches[0] : { anyOf: branches };
    appendWords(out, [
      `the first ${source.prefixItems.length} items follow the listed alternatives in order`,
    ]);
    return;
  }
  if (source.items === undefined || source.items === true) {
    diagnostics.report(path, 'strict_unsupported', 'An array whose items are not described (any values)');
    return;
  }
  out.items = node(source.items, childPath(path, 'items'), depth + 1, context);
}

/** `schema` that also accepts `null`, for an optional property that strict mode makes required. */
export function nullable(schema: SchemaObject): SchemaObject {
  if (acceptsNullShallow(schema)) return schema;
  const types = schema.type;
  const composed = schema.anyOf !== undefined || schema.$ref !== undefined;
  if (types !== undefined && !composed) {
    const out: SchemaObject = { ...schema, type: [...(Array.isArray(types) ? types : [types]), 'null'] };
    if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
    return out;
  }
  if (Array.isArray(schema.anyOf) && types === undefined && schema.$ref === undefined) {
    return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  }
  const { description, title, ...rest } = schema;
  return {
    ...(typeof description === 'string' ? { description } : {}),
    ...(typeof title === 'string' ? { title } : {}),
    anyOf: [rest, { type: 'null' }],
  };
}

function acceptsNullShallow(schema: SchemaObject): boolean {
  const types = typesOf(schema);
  if (types.length > 0 && !types.includes('null')) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) return false;
  if (Array.isArray(schema.anyOf))
    return schema.anyOf.some((branch) => isRecord(branch) && acceptsNullShallow(branch));
  return types.includes('null');
}
