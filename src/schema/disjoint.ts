import type { JsonSchema } from '../contract/index.js';
import { isRecord, resolveLocalRef, type SchemaObject, typesOf } from './schema-node.js';

/**
 * True when no value can match two of the branches, so `oneOf` may become `anyOf` without a change of
 * meaning. Proven by disjoint types, disjoint `enum`/`const` sets, a property both require with disjoint
 * values (a discriminator), or a property one requires that the other, closed, does not declare.
 * `false` means "not proven", not "overlapping".
 *
 * @example
 * branchesDisjoint([{ type: 'string' }, { type: 'integer' }], root); // true
 * branchesDisjoint([{ type: 'number' }, { type: 'integer' }], root); // false
 */
export function branchesDisjoint(branches: readonly unknown[], root: JsonSchema): boolean {
  const resolved = branches.map((branch) => resolve(branch, root));
  for (let i = 0; i < resolved.length; i++) {
    for (let j = i + 1; j < resolved.length; j++) {
      if (!pairDisjoint(resolved[i], resolved[j], root)) return false;
    }
  }
  return true;
}

function resolve(node: unknown, root: JsonSchema): unknown {
  let current = node;
  for (let hops = 0; hops < 32 && isRecord(current) && typeof current.$ref === 'string'; hops++) {
    current = resolveLocalRef(root, current.$ref);
  }
  return current;
}

const JSON_TYPES = ['null', 'boolean', 'object', 'array', 'number', 'string'] as const;

/** The JSON types a node can match, or undefined when that cannot be read off it. */
function possibleTypes(node: SchemaObject): Set<string> | undefined {
  const values = valueSet(node);
  if (values) return new Set(values.map(jsonTypeOf));
  const types = typesOf(node);
  if (types.length === 0) return undefined;
  const out = new Set<string>();
  for (const type of types) {
    if (type === 'integer') out.add('integer');
    else if ((JSON_TYPES as readonly string[]).includes(type)) out.add(type);
  }
  return out;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typesMeet(a: Set<string>, b: Set<string>): boolean {
  for (const type of a) {
    if (b.has(type)) return true;
    if (type === 'integer' && b.has('number')) return true;
    if (type === 'number' && b.has('integer')) return true;
  }
  return false;
}

function valueSet(node: SchemaObject): unknown[] | undefined {
  if (Object.hasOwn(node, 'const')) return [node.const];
  return Array.isArray(node.enum) ? node.enum : undefined;
}

function setsMeet(a: readonly unknown[], b: readonly unknown[]): boolean {
  const keys = new Set(a.map(canonicalJson));
  return b.some((value) => keys.has(canonicalJson(value)));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  // 1 and 1.0 are the same JSON number.
  return JSON.stringify(value) ?? 'undefined';
}

function pairDisjoint(left: unknown, right: unknown, root: JsonSchema): boolean {
  if (left === false || right === false) return true;
  if (!isRecord(left) || !isRecord(right)) return false;
  const leftValues = valueSet(left);
  const rightValues = valueSet(right);
  if (leftValues && rightValues && !setsMeet(leftValues, rightValues)) return true;
  const leftTypes = possibleTypes(left);
  const rightTypes = possibleTypes(right);
  if (leftTypes && rightTypes && !typesMeet(leftTypes, rightTypes)) return true;
  const objectish = (node: SchemaObject, types: Set<string> | undefined) =>
    (types === undefined || types.has('object')) && isRecord(node.properties);
  if (!objectish(left, leftTypes) || !objectish(right, rightTypes)) return false;
  // Both can only be objects from here on only if both say so; otherwise a non-object value could match both.
  if (!(leftTypes?.size === 1 && rightTypes?.size === 1)) return false;
  const leftProperties = left.properties as SchemaObject;
  const rightProperties = right.properties as SchemaObject;
  const leftRequired = new Set(Array.isArray(left.required) ? left.required : []);
  const rightRequired = new Set(Array.isArray(right.required) ? right.required : []);
  for (const name of leftRequired) {
    if (typeof name !== 'string' || !rightRequired.has(name)) continue;
    const a = resolve(leftProperties[name], root);
    const b = resolve(rightProperties[name], root);
    if (isRecord(a) && isRecord(b)) {
      const av = valueSet(a);
      const bv = valueSet(b);
      if (av && bv && !setsMeet(av, bv)) return true;
    }
  }
  const closedWithout = (node: SchemaObject, properties: SchemaObject, name: unknown) =>
    node.additionalProperties === false &&
    node.patternProperties === undefined &&
    typeof name === 'string' &&
    !Object.hasOwn(properties, name);
  for (const name of leftRequired) if (closedWithout(right, rightProperties, name)) return true;
  for (const name of rightRequired) if (closedWithout(left, leftProperties, name)) return true;
  return false;
}
