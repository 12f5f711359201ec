import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema } from '../contract/index.js';
import {
  describeSchema,
  describeValue,
  type IssuePath,
  MISSING,
  pointerToPath,
  schemaAt,
  type ValidationIssue,
  valueAt,
} from './issues.js';
import { makeIssue } from './make-issue.js';
import { type ArgumentValidator, dedupeIssues, type ValidationResult } from './validation.js';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

let shared: Ajv2020 | undefined;

/**
 * The ajv instance toolpact validates JSON Schema tools with: draft 2020-12, every error reported,
 * defaults applied, formats checked, unknown keywords tolerated (contracts may carry `x-` annotations),
 * own properties only.
 */
export function sharedAjv(): Ajv2020 {
  shared ??= createAjv(true, true);
  return shared;
}

// The other three: results are checked as the tool returned them and never written to (no defaults:
// a result may be a frozen object or a cache the tool keeps); and each kind with plain property reads.
let ownResults: Ajv2020 | undefined;
let plainArguments: Ajv2020 | undefined;
let plainResults: Ajv2020 | undefined;

/**
 * The ajv that compiles a schema for values toolpact hands it: arguments after `readArguments` and
 * results after `toJsonValue`, which are plain objects (own data properties, `__proto__` refused) whose
 * only inherited names are `Object.prototype`'s. A schema that mentions one of those names anywhere is
 * compiled to read own properties only, so that `required: ["constructor"]` is not met by `{}`; any
 * other schema reads properties plainly, which is the same answer at half of ajv's cost.
 */
export function ajvFor(schema: JsonSchema, purpose: 'arguments' | 'results'): Ajv2020 {
  if (mentionsInheritedName(schema)) {
    if (purpose === 'arguments') return sharedAjv();
    ownResults ??= createAjv(false, true);
    return ownResults;
  }
  if (purpose === 'arguments') {
    plainArguments ??= createAjv(true, false);
    return plainArguments;
  }
  plainResults ??= createAjv(false, false);
  return plainResults;
}

const INHERITED_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** True when any key or string anywhere in the schema is a name objects inherit from `Object.prototype`. */
function mentionsInheritedName(node: unknown): boolean {
  if (typeof node === 'string') return INHERITED_NAMES.has(node);
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(mentionsInheritedName);
  for (const [key, value] of Object.entries(node)) {
    if (INHERITED_NAMES.has(key) || mentionsInheritedName(value)) return true;
  }
  return false;
}

function createAjv(useDefaults: boolean, ownProperties: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    useDefaults,
    // Read only own properties: `required: ["constructor"]` must not be met by `{}` (see `ajvFor`).
    ownProperties,
    validateFormats: true,
    logger: false,
  });
  addFormats(ajv);
  return ajv;
}

/**
 * The reasons `schema` is not a usable JSON Schema (draft 2020-12), or an empty list. Checks the
 * schema against the meta-schema and that every local `$ref` points at something; compiling is left
 * to the first call.
 */
export function checkJsonSchema(schema: JsonSchema): string[] {
  const ajv = sharedAjv();
  if (!ajv.validateSchema(schema as object)) {
    return (ajv.errors ?? []).map(
      (error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`,
    );
  }
  const problems: string[] = [];
  const visit = (node: unknown, at: string) => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) visit(item, `${at}/${index}`);
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#')) {
        if (valueAt(schema, pointerToPath(decodeURIComponent(value.slice(1)))) === MISSING) {
          problems.push(`${at || '(root)'} has "$ref": "${value}", which points at nothing in the schema`);
        }
      } else if (key !== 'enum' && key !== 'const' && key !== 'default' && key !== 'examples') {
        visit(value, `${at}/${key}`);
      }
    }
  };
  visit(schema, '');
  return problems;
}

/**
 * A validator for a JSON Schema tool, compiled on the first call and kept. Every ajv error becomes a
 * {@link ValidationIssue} with its path, what was expected and what came.
 */
export function jsonSchemaValidator<T>(schema: JsonSchema): ArgumentValidator<T> {
  let compiled: ValidateFunction | undefined;
  const issuesOf: ArgumentCheck = (value) => {
    compiled ??= ajvFor(schema, 'arguments').compile(schema as object);
    return compiled(value) ? undefined : issuesFromAjv(compiled.errors ?? [], value, schema);
  };
  const validator = (value: unknown): ValidationResult<T> => {
    const issues = issuesOf(value);
    return issues ? { ok: false, issues } : { ok: true, value: value as T };
  };
  checks.set(validator, issuesOf);
  return validator;
}

/**
 * The issues of a value, or undefined when it passes, in which case the value itself (with defaults
 * filled in place) is what the tool receives.
 */
export type ArgumentCheck = (value: unknown) => readonly ValidationIssue[] | undefined;

const checks = new WeakMap<ArgumentValidator<unknown>, ArgumentCheck>();

/**
 * For a validator made by {@link jsonSchemaValidator}, the same check without a result object, for
 * the registry's call path; undefined for any other validator.
 */
export function argumentCheckOf(validator: ArgumentValidator<unknown>): ArgumentCheck | undefined {
  return checks.get(validator);
}

/** Converts ajv errors into issues. Errors inside the branches of a failed union are folded into it. */
export function issuesFromAjv(errors: readonly ErrorObject[], data: unknown, root: JsonSchema) {
  const unionPaths = errors
    .filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf')
    .map((error) => error.schemaPath);
  const kept = errors.filter(
    (error) =>
      !unionPaths.some((union) => error.schemaPath !== union && error.schemaPath.startsWith(`${union}/`)),
  );
  return dedupeIssues(kept.map((error) => issueFromAjv(error, data, root)));
}

function issueFromAjv(error: ErrorObject, data: unknown, root: JsonSchema) {
  const base = pointerToPath(error.instancePath);
  const value = valueAt(data, base);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const path: IssuePath = [...base, String(params.missingProperty)];
      return makeIssue(
        'missing_property',
        path,
        describeSchema(schemaAt(root, path)),
        describeValue(undefined),
      );
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      const path: IssuePath = [...base, name];
      const parent = schemaAt(root, base) as Record<string, unknown> | undefined;
      const allowed = parent?.properties ? Object.keys(parent.properties as object) : [];
      const expected = allowed.length ? `only the fields ${allowed.join(', ')}` : 'no extra fields';
      return makeIssue('unknown_property', path, expected, describeValue(valueAt(data, path)));
    }
    case 'type':
      return makeIssue('invalid_type', base, [params.type].flat().join(' or '), describeValue(value));
    case 'enum':
      return makeIssue(
        'invalid_value',
        base,
        `one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        describeValue(value),
      );
    case 'const':
      return makeIssue(
        'invalid_value',
        base,
        `exactly ${JSON.stringify(params.allowedValue)}`,
        describeValue(value),
      );
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum': {
      const code = error.keyword.includes('inimum') ? 'too_small' : 'too_big';
      return makeIssue(
        code,
        base,
        `a number ${String(params.comparison)} ${String(params.limit)}`,
        describeValue(value),
      );
    }
    case 'minLength':
    case 'maxLength': {
      const code = error.keyword === 'minLength' ? 'too_small' : 'too_big';
      const bound = error.keyword === 'minLength' ? 'at least' : 'at most';
      const count = typeof value === 'string' ? [...value].length : 0;
      const length = typeof value === 'string' ? ` (${count} character${count === 1 ? '' : 's'})` : '';
      return makeIssue(
        code,
        base,
        `a string of ${bound} ${String(params.limit)} characters`,
        `${describeValue(value)}${length}`,
      );
    }
    case 'minItems':
    case 'maxItems': {
      const code = error.keyword === 'minItems' ? 'too_small' : 'too_big';
      const bound = error.keyword === 'minItems' ? 'at least' : 'at most';
      return makeIssue(
        code,
        base,
        `an array of ${bound} ${String(params.limit)} items`,
        describeValue(value),
      );
    }
    case 'minProperties':
    case 'maxProperties': {
      const code = error.keyword === 'minProperties' ? 'too_small' : 'too_big';
      const bound = error.keyword === 'minProperties' ? 'at least' : 'at most';
      return makeIssue(
        code,
        base,
        `an object with ${bound} ${String(params.limit)} fields`,
        describeValue(value),
      );
    }
    case 'pattern':
      return makeIssue(
        'invalid_format',
        base,
        `a string matching the pattern ${String(params.pattern)}`,
        describeValue(value),
      );
    case 'format':
      return makeIssue(
        'invalid_format',
        base,
        `a string in ${String(params.format)} format`,
        describeValue(value),
      );
    case 'multipleOf':
      return makeIssue(
        'invalid_value',
        base,
        `a multiple of ${String(params.multipleOf)}`,
        describeValue(value),
      );
    case 'uniqueItems':
      return makeIssue(
        'invalid_value',
        base,
        'an array whose items are all different',
        `items ${String(params.j)} and ${String(params.i)} are equal`,
      );
    case 'anyOf':
    case 'oneOf': {
      const expected = describeSchema(schemaAt(root, base));
      const passing = params.passingSchemas;
      const received = Array.isArray(passing)
        ? `${describeValue(value)}, which matches more than one of them`
        : describeValue(value);
      return makeIssue('invalid_union', base, expected, received);
    }
    default:
      return makeIssue('invalid', base, `a value that ${error.message ?? 'is valid'}`, describeValue(value));
  }
}
