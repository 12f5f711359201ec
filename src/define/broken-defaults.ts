import type { ValidateFunction } from 'ajv/dist/2020.js';
import {
  type JsonSchema,
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SCHEMA_SINGLE_KEYWORDS,
} from '../contract/index.js';
import { issuesFromAjv, sharedAjv } from '../dispatch/validate-json-schema.js';
import { ToolDefinitionError } from '../errors/index.js';

/** The keywords whose values must themselves be valid against the schema they sit in. */
export type DefaultKeyword = 'default' | 'const' | 'examples';

/**
 * A `default`, `const` or `examples` entry that the schema it sits in refuses: dispatch would fill in
 * a default that then fails validation, a `const` no value can meet, an example that teaches a wrong call.
 */
export interface BrokenDefault {
  readonly keyword: DefaultKeyword;
  /** JSON path of the value, e.g. `$.parameters.properties.kind.default` or `$.parameters.properties.tags.examples[1]`. */
  readonly path: string;
  readonly value: unknown;
  /** What the subschema expects, in words (`one of "runtime", "package_manager"`, `boolean`). */
  readonly expected: string;
  /** What the value is, in words (`the string ""`). */
  readonly received: string;
}

/** What {@link dropBrokenDefaults} answers: the schema without them, and what it took out. */
export interface RepairedSchema {
  readonly schema: JsonSchema;
  /** Every broken `default` and `examples` entry, now gone from `schema`. */
  readonly dropped: readonly BrokenDefault[];
  /** Broken `const`s: an assertion, not an annotation, so it stays (no value can meet it). */
  readonly kept: readonly BrokenDefault[];
}

const MAX_DEPTH = 64;
/** Keywords that never change what a schema accepts; left out, many subschemas compile to one check. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'default',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
/** Compiled checks by schema text: tool sets repeat the same small subschemas (`{"type":"boolean"}`). */
const compiled = new Map<string, ValidateFunction | null>();
const MAX_COMPILED = 2_000;

/**
 * Every `default`, `const` and `examples` entry of a JSON Schema that fails its own subschema, checked
 * with the validator dispatch uses (ajv, draft 2020-12, defaults applied, formats checked): a default is
 * checked against the schema it sits in (its `$ref`s resolved against the root's `$defs`), a `const`
 * against its siblings, each example like a default. `base` is the path of the schema inside the
 * contract (`$.parameters`, `$.returns.schema`).
 *
 * @example
 * findBrokenDefaults({
 *   type: 'object',
 *   properties: { kind: { enum: ['runtime', 'package_manager'], default: '' } },
 * });
 * // [{ keyword: 'default', path: '$.parameters.properties.kind.default', value: '',
 * //    expected: 'one of "runtime", "package_manager"', received: 'the string ""' }]
 */
export function findBrokenDefaults(schema: JsonSchema, base = '$.parameters'): BrokenDefault[] {
  const found: BrokenDefault[] = [];
  visit(schema, base, 0, (node, at) => {
    for (const problem of problemsOf(schema, node, at)) found.push(problem);
  });
  return found;
}

/**
 * A foreign schema (an imported MCP tool, a corpus definition) with its broken defaults and examples
 * taken out, so they are never applied or shown, and a list of what went. The input is not changed.
 *
 * @example
 * const { schema, dropped } = dropBrokenDefaults(remote.inputSchema);
 * for (const entry of dropped) console.warn(`${entry.path}: ${JSON.stringify(entry.value)} is not ${entry.expected}`);
 */
export function dropBrokenDefaults(schema: JsonSchema, base = '$.parameters'): RepairedSchema {
  const problems = findBrokenDefaults(schema, base);
  const dropped = problems.filter((problem) => problem.keyword !== 'const');
  const kept = problems.filter((problem) => problem.keyword === 'const');
  if (dropped.length === 0) return { schema, dropped, kept };
  const doomed = new Set(dropped.map((problem) => problem.path));
  const copy = structuredClone(schema);
  visit(copy, base, 0, (node, at) => {
    const record = node as Record<string, unknown>;
    if (doomed.has(`${at}.default`)) delete record.default;
    if (Array.isArray(record.examples)) {
      const examples = record.examples.filter((_, index) => !doomed.has(`${at}.examples[${index}]`));
      if (examples.length > 0) record.examples = examples;
      else delete record.examples;
    }
  });
  return { schema: copy, dropped, kept };
}

const CONSEQUENCE: { readonly [K in DefaultKeyword]: string } = {
  default:
    'dispatch fills a default in when the model leaves the field out, and this one would then be refused. ' +
    'Change it to a value the schema accepts, or remove it',
  const:
    'no value can meet a const its own schema refuses. Make the const agree with its sibling keywords, or remove it',
  examples: 'an example the schema refuses teaches the model a wrong call. Fix it, or remove it',
};

/**
 * Throws `ToolDefinitionError` `invalid_default` when a `default`, `const` or `examples` entry of a
 * tool's own schema fails its subschema (see {@link findBrokenDefaults}); `details` lists every one.
 *
 * @example
 * assertDefaultsMatch('find_package', parameters, '$.parameters');
 */
export function assertDefaultsMatch(tool: string, schema: JsonSchema, base: string): void {
  const problems = findBrokenDefaults(schema, base);
  if (problems.length === 0) return;
  const [first] = problems as [BrokenDefault, ...BrokenDefault[]];
  const more =
    problems.length > 1
      ? ` (and ${problems.length - 1} more: ${problems
          .slice(1)
          .map((problem) => problem.path)
          .join(', ')})`
      : '';
  throw new ToolDefinitionError(
    'invalid_default',
    `Tool "${tool}": the ${first.keyword === 'examples' ? 'example' : first.keyword} at ${first.path} does not match its own schema, ` +
      `which expects ${first.expected}; received ${first.received}. Its ${CONSEQUENCE[first.keyword]}${more}.`,
    tool,
    { details: problems.map(({ path, value, expected }) => ({ path, value, expected })) },
  );
}

/** Calls `each` with every subschema object and its path, depth first. */
function visit(node: unknown, at: string, depth: number, each: (node: object, at: string) => void): void {
  if (node === null || typeof node !== 'object' || Array.isArray(node) || depth > MAX_DEPTH) return;
  each(node, at);
  for (const [key, value] of Object.entries(node)) {
    if (SCHEMA_MAP_KEYWORDS.has(key) && isRecord(value)) {
      for (const name of Object.keys(value)) {
        visit(value[name], `${at}${segment(key)}${segment(name)}`, depth + 1, each);
      }
    } else if (SCHEMA_ARRAY_KEYWORDS.has(key) && Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, `${at}.${key}[${index}]`, depth + 1, each);
    } else if (SCHEMA_SINGLE_KEYWORDS.has(key)) {
      if (Array.isArray(value)) {
        for (const [index, item] of value.entries()) visit(item, `${at}.${key}[${index}]`, depth + 1, each);
      } else visit(value, `${at}.${key}`, depth + 1, each);
    }
  }
}

function problemsOf(root: JsonSchema, node: object, at: string): BrokenDefault[] {
  const record = node as Record<string, unknown>;
  const out: BrokenDefault[] = [];
  const checks: { keyword: DefaultKeyword; path: string; value: unknown }[] = [];
  if (Object.hasOwn(record, 'default'))
    checks.push({ keyword: 'default', path: `${at}.default`, value: record.default });
  if (Array.isArray(record.examples)) {
    for (const [index, value] of record.examples.entries()) {
      checks.push({ keyword: 'examples', path: `${at}.examples[${index}]`, value });
    }
  }
  if (checks.length > 0) {
    const check = validatorFor(root, record, false);
    for (const entry of checks) {
      const refusal = check?.(entry.value);
      if (refusal) out.push({ ...entry, ...refusal });
    }
  }
  if (Object.hasOwn(record, 'const')) {
    const refusal = validatorFor(root, record, true)?.(record.const);
    if (refusal) out.push({ keyword: 'const', path: `${at}.const`, value: record.const, ...refusal });
  }
  return out;
}

type Refusal = { readonly expected: string; readonly received: string } | undefined;

/**
 * A check of values against `node` as it sits in `root`: the node with the root's definitions beside
 * it, so local `$ref`s resolve. Undefined when that cannot be compiled (a `$ref` into another part of
 * the document): such a value is not judged.
 */
function validatorFor(
  root: JsonSchema,
  node: Record<string, unknown>,
  withoutConst: boolean,
): ((value: unknown) => Refusal) | undefined {
  const wrapper: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (
      ANNOTATIONS.has(key) ||
      key.startsWith('x-') ||
      key === '$id' ||
      key === '$schema' ||
      key === '$anchor'
    )
      continue;
    if (key === 'const' && withoutConst) continue;
    wrapper[key] = value;
  }
  for (const defs of ['$defs', 'definitions'] as const) {
    if (isRecord(root[defs]) && wrapper[defs] === undefined) wrapper[defs] = root[defs];
  }
  const validate = compileCached(wrapper);
  if (!validate) return undefined;
  return (value) => {
    // Validation applies defaults in place, as dispatch does; a copy keeps the schema as it was.
    const copy = value === undefined ? value : structuredClone(value);
    if (validate(copy)) return undefined;
    const [issue] = issuesFromAjv(validate.errors ?? [], copy, wrapper as JsonSchema);
    if (!issue) return { expected: 'a valid value', received: JSON.stringify(value) ?? String(value) };
    const where = issue.path === '$' ? '' : ` at ${issue.path} of the value`;
    return { expected: `${issue.expected}${where}`, received: issue.received };
  };
}

function compileCached(wrapper: Record<string, unknown>): ValidateFunction | undefined {
  const key = JSON.stringify(wrapper);
  const known = compiled.get(key);
  if (known !== undefined) return known ?? undefined;
  const ajv = sharedAjv();
  let validate: ValidateFunction | null;
  try {
    validate = ajv.compile(wrapper);
  } catch {
    validate = null;
  } finally {
    // Each wrapper is a new object; ajv's own cache is kept to the tools' schemas.
    ajv.removeSchema(wrapper);
  }
  if (compiled.size >= MAX_COMPILED) compiled.clear();
  compiled.set(key, validate);
  return validate ?? undefined;
}

function segment(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
