/**
 * The Berkeley Function Calling Leaderboard corpus as toolpact JSON Schema tools.
 *
 * BFCL writes parameters in its own JSON-Schema-like dialect. The mapping, decided here once:
 * - `dict` → `object`, `float` → `number`, `tuple` → `array` (its `items` kept), `any` → no `type`
 *   (any value); Java/JavaScript type names (`String`, `HashMap`, `ArrayList`, …) map to their JSON types.
 * - The non-standard `optional` (a boolean, the string "True", or an object-level list of names) is
 *   documentation of what `required` already says; where the two disagree, `optional` wins and the name
 *   leaves `required` (BFCL's ground truth omits such parameters). The keyword itself is removed.
 * - `default: null` means "may be null": the type becomes nullable and the parameter is not required.
 * - BFCL's definitions are tools from outside, so they are treated as `importMcpTools` treats a server's:
 *   a `default` (or example) that fails its own subschema is dropped with `dropBrokenDefaults` (public
 *   API) and noted in `notes`, never applied, and the tool is kept. In the four categories, 23 of the
 *   1,677 definitions carry one, all of a wrong JSON type: 17 booleans written as strings (`"false"`,
 *   `"False"`) and 6 arrays written as strings (`"None"`, `"all"`, `"timing, attractions"`). Applying
 *   one would turn a call that rightly leaves the field out into an invalid one; the description still
 *   states the intended default. `test/corpus/bfcl.test.ts` counts them.
 * - Dotted names (`math.factorial`) are kept as they are: they are valid in MCP's name profile, so the
 *   tools are built with `createTool`, and each provider adapter gives them a provider-safe alias.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AnyTool,
  type BrokenDefault,
  createTool,
  dropBrokenDefaults,
  type JsonSchema,
} from '../../src/index.js';
import { CORPORA_DIR } from './corpora.js';

export const BFCL_DIR = join(CORPORA_DIR, 'bfcl');
export const BFCL_CATEGORIES = ['simple_python', 'multiple', 'parallel', 'parallel_multiple'] as const;
export type BfclCategory = (typeof BFCL_CATEGORIES)[number];

/** Ground truth the corpus README calls noisy; not counted against us. */
export const BFCL_NOISY_IDS: ReadonlySet<string> = new Set([
  'simple_python_96',
  'multiple_119',
  'parallel_multiple_21',
  'parallel_multiple_94',
]);

export interface BfclFunction {
  readonly name: string;
  readonly description: string;
  /** The converted, standard JSON Schema. */
  readonly parameters: JsonSchema;
  /** The definition as BFCL wrote it. */
  readonly original: unknown;
  /** What the conversion had to change beyond renaming types (for reports). */
  readonly notes: readonly string[];
  /** Defaults and examples that failed their own subschema, dropped from `parameters`. */
  readonly dropped: readonly BrokenDefault[];
}

export interface BfclCall {
  readonly name: string;
  /** One concrete call: the first allowed value of each parameter, omitted where only "" is allowed. */
  readonly arguments: { readonly [name: string]: unknown };
}

export interface BfclEntry {
  readonly id: string;
  readonly category: BfclCategory;
  readonly functions: readonly BfclFunction[];
  readonly calls: readonly BfclCall[];
}

const TYPE_MAP: { readonly [bfcl: string]: string | undefined } = {
  dict: 'object',
  object: 'object',
  hashmap: 'object',
  map: 'object',
  float: 'number',
  double: 'number',
  number: 'number',
  long: 'integer',
  int: 'integer',
  integer: 'integer',
  string: 'string',
  str: 'string',
  char: 'string',
  boolean: 'boolean',
  bool: 'boolean',
  array: 'array',
  arraylist: 'array',
  list: 'array',
  tuple: 'array',
  set: 'array',
  null: 'null',
};

/** Converts one BFCL function definition. */
export function convertBfclFunction(raw: {
  name: string;
  description: string;
  parameters: unknown;
}): BfclFunction {
  const notes: string[] = [];
  const converted = convertSchema(raw.parameters, '$', notes) as Record<string, unknown>;
  if (converted.type === undefined) converted.type = 'object';
  const { schema: parameters, dropped } = dropBrokenDefaults(converted);
  for (const entry of dropped) {
    notes.push(`${entry.path}: ${JSON.stringify(entry.value)} is not ${entry.expected}; dropped`);
  }
  return { name: raw.name, description: raw.description, parameters, original: raw, notes, dropped };
}

function convertSchema(node: unknown, at: string, notes: string[]): JsonSchema {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return {};
  const source = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const rawType = typeof source.type === 'string' ? source.type : undefined;
  let type: string | undefined;
  if (rawType !== undefined && rawType.toLowerCase() !== 'any') {
    type = TYPE_MAP[rawType.toLowerCase()];
    if (!type) notes.push(`${at}: unknown type "${rawType}" treated as any value`);
  }
  for (const [key, value] of Object.entries(source)) {
    switch (key) {
      case 'type':
        if (type) out.type = type;
        break;
      case 'optional':
        break; // folded into the parent's `required` below
      case 'properties': {
        const properties: Record<string, unknown> = {};
        for (const [name, child] of Object.entries(value as Record<string, unknown>)) {
          properties[name] = convertSchema(child, `${at}.${name}`, notes);
        }
        out.properties = properties;
        break;
      }
      case 'items':
        out.items = convertSchema(value, `${at}[]`, notes);
        break;
      default:
        out[key] = value;
    }
  }
  if (out.properties) foldOptional(source, out, at, notes);
  if (Object.hasOwn(out, 'default')) {
    if (out.default === null) {
      if (typeof out.type === 'string') out.type = [out.type, 'null'];
      notes.push(`${at}: default null read as nullable`);
    }
  }
  return out;
}

function foldOptional(
  source: Record<string, unknown>,
  out: Record<string, unknown>,
  at: string,
  notes: string[],
) {
  const properties = out.properties as Record<string, Record<string, unknown>>;
  const rawProperties = source.properties as Record<string, Record<string, unknown>>;
  const optional = new Set<string>();
  if (Array.isArray(source.optional)) for (const name of source.optional) optional.add(String(name));
  for (const [name, child] of Object.entries(rawProperties)) {
    const flag = child?.optional;
    if (flag === true || flag === 'True' || flag === 'true') optional.add(name);
    if (child?.default === null) optional.add(name);
  }
  if (!Array.isArray(out.required)) return;
  const required = (out.required as unknown[]).filter(
    (name) => typeof name === 'string' && Object.hasOwn(properties, name),
  );
  const kept = required.filter((name) => !optional.has(name as string));
  if (kept.length !== required.length) {
    notes.push(`${at}: ${required.length - kept.length} parameter(s) marked optional left "required"`);
  }
  if (required.length !== (out.required as unknown[]).length)
    notes.push(`${at}: required names without a property removed`);
  if (kept.length) out.required = kept;
  else delete out.required;
}

/**
 * BFCL's ground truth wraps every value in a list of allowed values, the preferred one first; `""`
 * means the parameter may be left out. The concrete call takes the first alternative of each, except
 * that a parameter the definition requires takes its first non-empty alternative (a required parameter
 * cannot be left out, whatever order the list has).
 */
function unwrapArguments(
  raw: Record<string, unknown[]>,
  required: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, allowed] of Object.entries(raw)) {
    const list = Array.isArray(allowed) ? allowed : [allowed];
    const first = required.has(name) ? list.find((value) => value !== '') : list[0];
    if (first === undefined || first === '') continue;
    out[name] = unwrapNested(first);
  }
  return out;
}

function unwrapNested(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.every(([, inner]) => Array.isArray(inner))) return value;
  return unwrapArguments(value as Record<string, unknown[]>);
}

function readLines(file: string): unknown[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** Every entry of the given categories, with converted functions and concrete ground-truth calls. */
export function loadBfcl(categories: readonly BfclCategory[] = BFCL_CATEGORIES): BfclEntry[] {
  const entries: BfclEntry[] = [];
  for (const category of categories) {
    const questions = readLines(join(BFCL_DIR, `BFCL_v4_${category}.json`)) as {
      id: string;
      function: { name: string; description: string; parameters: unknown }[];
    }[];
    const answers = new Map(
      (
        readLines(join(BFCL_DIR, 'possible_answer', `BFCL_v4_${category}.json`)) as {
          id: string;
          ground_truth: Record<string, Record<string, unknown[]>>[];
        }[]
      ).map((answer) => [answer.id, answer.ground_truth]),
    );
    for (const question of questions) {
      const truth = answers.get(question.id) ?? [];
      const functions = question.function.map(convertBfclFunction);
      const requiredOf = new Map(
        functions.map((fn) => [fn.name, new Set((fn.parameters.required ?? []) as string[])]),
      );
      entries.push({
        id: question.id,
        category,
        functions,
        calls: truth.flatMap((call) =>
          Object.entries(call).map(([name, args]) => ({
            name,
            arguments: unwrapArguments(args, requiredOf.get(name)),
          })),
        ),
      });
    }
  }
  return entries;
}

/** The raw ground truth of the given categories, every alternative as BFCL lists it. */
export function loadBfclAnswers(
  categories: readonly BfclCategory[] = BFCL_CATEGORIES,
): { id: string; ground_truth: Record<string, Record<string, unknown[]>>[] }[] {
  return categories.flatMap(
    (category) =>
      readLines(join(BFCL_DIR, 'possible_answer', `BFCL_v4_${category}.json`)) as {
        id: string;
        ground_truth: Record<string, Record<string, unknown[]>>[];
      }[],
  );
}

/** A tool for a converted function whose result echoes the validated arguments. */
export function bfclTool(fn: BfclFunction): AnyTool {
  return createTool(
    { name: fn.name, description: fn.description, category: 'read', parameters: fn.parameters },
    { execute: (args) => args },
  );
}
