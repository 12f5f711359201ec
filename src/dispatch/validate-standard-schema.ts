import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { JsonSchema } from '../contract/index.js';
import {
  describeSchema,
  describeValue,
  type IssueCode,
  type IssuePath,
  schemaAt,
  type ValidationIssue,
  valueAt,
} from './issues.js';
import { makeIssue } from './make-issue.js';
import { type ArgumentValidator, dedupeIssues, type ValidationResult } from './validation.js';

/**
 * A validator that runs the schema library's own validation (zod, valibot, arktype, …) and turns its
 * issues into toolpact's. Where the library says only a message, `expected` is read from the
 * JSON Schema the model saw, and `received` from the value at the issue's path.
 */
export function standardSchemaValidator<T>(
  schema: StandardSchemaV1,
  jsonSchema: JsonSchema,
): ArgumentValidator<T> {
  const known = closedRootProperties(jsonSchema);
  const convert = (value: unknown, result: StandardSchemaV1.Result<unknown>): ValidationResult<T> => {
    const unknown = known ? unknownRootKeys(value, known) : [];
    if (!result.issues && unknown.length === 0) return { ok: true, value: result.value as T };
    const issues = issuesFromStandardSchema(result.issues ?? [], value, jsonSchema);
    return { ok: false, issues: dedupeIssues([...unknown, ...issues]) };
  };
  return (value: unknown) => {
    const result = schema['~standard'].validate(value);
    return result instanceof Promise
      ? result.then((settled) => convert(value, settled))
      : convert(value, result);
  };
}

/**
 * The root's property names when the schema neither allows nor forbids other keys. Libraries such as
 * zod strip unknown keys without a word; a model that sent `lines` for a tool without such a parameter
 * would then believe it had limited the output. So an unknown key at the root is an issue, unless the
 * schema says extra keys are allowed (`additionalProperties` or `patternProperties` present).
 */
function closedRootProperties(schema: JsonSchema): ReadonlySet<string> | undefined {
  if (schema.additionalProperties !== undefined || schema.patternProperties !== undefined) return undefined;
  if (schema.properties === null || typeof schema.properties !== 'object') return undefined;
  if (schema.anyOf || schema.oneOf || schema.allOf) return undefined;
  return new Set(Object.keys(schema.properties));
}

function unknownRootKeys(value: unknown, known: ReadonlySet<string>) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  const extra = Object.keys(value).filter((key) => !known.has(key));
  if (extra.length === 0) return [];
  const expected = known.size ? `only the fields ${[...known].join(', ')}` : 'no fields';
  return extra.map((key) =>
    makeIssue('unknown_property', [key], expected, describeValue((value as Record<string, unknown>)[key])),
  );
}

/**
 * A schema library's issues as toolpact's, with `expected` read from `root` (the JSON Schema the
 * library's schema describes itself as) where the library says only a message.
 */
export function issuesFromStandardSchema(
  issues: readonly StandardSchemaV1.Issue[],
  data: unknown,
  root: JsonSchema,
): ValidationIssue[] {
  return dedupeIssues(issues.flatMap((issue) => convertIssue(issue, data, root)));
}

function toPath(path: StandardSchemaV1.Issue['path']): (string | number)[] {
  return (path ?? []).map((segment) => {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    return typeof key === 'number' ? key : String(key);
  });
}

/** Fields some libraries (zod 4 in particular) put on their issues beyond `message` and `path`. */
interface RichIssue extends StandardSchemaV1.Issue {
  readonly code?: string;
  readonly expected?: unknown;
  readonly values?: readonly unknown[];
  readonly keys?: readonly string[];
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly inclusive?: boolean;
  readonly origin?: string;
  readonly format?: string;
  readonly pattern?: string;
  readonly divisor?: unknown;
}

function convertIssue(raw: StandardSchemaV1.Issue, data: unknown, root: JsonSchema) {
  const issue = raw as RichIssue;
  const path = toPath(issue.path);
  const value = valueAt(data, path);
  const fromSchema = () => describeSchema(schemaAt(root, path));
  if (issue.code === 'unrecognized_keys' && Array.isArray(issue.keys)) {
    const parent = schemaAt(root, path) as { properties?: object } | undefined;
    const allowed = parent?.properties ? Object.keys(parent.properties) : [];
    const expected = allowed.length ? `only the fields ${allowed.join(', ')}` : 'no extra fields';
    return issue.keys.map((key) => {
      const keyPath: IssuePath = [...path, key];
      return makeIssue('unknown_property', keyPath, expected, describeValue(valueAt(data, keyPath)));
    });
  }
  const received = describeValue(value);
  const { code, expected } = classify(issue, value, fromSchema);
  return [makeIssue(code, path, expected, received)];
}

function classify(
  issue: RichIssue,
  value: unknown,
  fromSchema: () => string,
): { code: IssueCode; expected: string } {
  switch (issue.code) {
    case 'invalid_type':
      return {
        code:
          value === undefined || describeValue(value).startsWith('nothing')
            ? 'missing_property'
            : 'invalid_type',
        expected: typeof issue.expected === 'string' ? issue.expected : fromSchema(),
      };
    case 'invalid_value':
      return {
        code: 'invalid_value',
        expected: Array.isArray(issue.values)
          ? issue.values.length === 1
            ? `exactly ${JSON.stringify(issue.values[0])}`
            : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
          : fromSchema(),
      };
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const limit = String(small ? issue.minimum : issue.maximum);
      const op = small ? (issue.inclusive === false ? '>' : '>=') : issue.inclusive === false ? '<' : '<=';
      const bound = small ? 'at least' : 'at most';
      const expected =
        issue.origin === 'string'
          ? `a string of ${bound} ${limit} characters`
          : issue.origin === 'array' || issue.origin === 'set'
            ? `an array of ${bound} ${limit} items`
            : `a number ${op} ${limit}`;
      return { code: issue.code, expected };
    }
    case 'invalid_format':
      return {
        code: 'invalid_format',
        expected:
          issue.format === 'regex' && issue.pattern
            ? `a string matching the pattern ${issue.pattern}`
            : `a string in ${issue.format ?? 'the expected'} format`,
      };
    case 'not_multiple_of':
      return { code: 'invalid_value', expected: `a multiple of ${String(issue.divisor)}` };
    case 'invalid_union':
      return { code: 'invalid_union', expected: fromSchema() };
    case 'custom':
      return { code: 'invalid', expected: issue.message };
    default: {
      const described = fromSchema();
      // Libraries without issue codes: when the schema says little, the library's own words say more.
      return {
        code: 'invalid',
        expected: described === 'a valid value' ? issue.message : `${described} (${issue.message})`,
      };
    }
  }
}
