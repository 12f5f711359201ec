import type { JsonSchema } from '../contract/index.js';

/** A schema node while an adapter rewrites it. */
export type SchemaObject = { [keyword: string]: unknown };

/** True for a plain object (a schema node, a `properties` map). */
export function isRecord(value: unknown): value is SchemaObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The path of a child keyword, as diagnostics show it: `$.parameters.properties.path`. */
export function childPath(path: string, ...keys: (string | number)[]): string {
  let out = path;
  for (const key of keys) {
    out +=
      typeof key === 'number'
        ? `[${key}]`
        : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)
          ? `.${key}`
          : `[${JSON.stringify(key)}]`;
  }
  return out;
}

/** The `type` of a node as a list (empty when the node has none). */
export function typesOf(node: SchemaObject): string[] {
  const type = node.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((entry): entry is string => typeof entry === 'string');
  return [];
}

/** Resolves a local `$ref` ("#", "#/$defs/x", any JSON pointer) against the root, or undefined. */
export function resolveLocalRef(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  const pointer = ref.slice(1);
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

/**
 * The local references that take part in a cycle (a `$ref` reachable from its own target), so an
 * adapter knows which it may inline and which it must keep or refuse.
 */
export function recursiveRefs(root: JsonSchema): Set<string> {
  const recursive = new Set<string>();
  const refsIn = (node: unknown, found: Set<string>, depth: number): void => {
    if (depth > 200) return;
    if (Array.isArray(node)) {
      for (const item of node) refsIn(item, found, depth + 1);
      return;
    }
    if (!isRecord(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.add(value);
      else if (
        key !== 'enum' &&
        key !== 'const' &&
        key !== 'default' &&
        key !== 'examples' &&
        key !== '$defs' &&
        key !== 'definitions'
      )
        refsIn(value, found, depth + 1);
    }
  };
  const direct = new Map<string, Set<string>>();
  const edges = (ref: string): Set<string> => {
    let found = direct.get(ref);
    if (!found) {
      found = new Set();
      direct.set(ref, found);
      const target = resolveLocalRef(root, ref);
      // A root reference ("#") re-enters the root schema; its own `$defs` are reached by their refs.
      refsIn(target, found, 0);
    }
    return found;
  };
  const all = new Set<string>();
  refsIn(root, all, 0);
  for (const defs of ['$defs', 'definitions']) {
    const map = (root as SchemaObject)[defs];
    if (isRecord(map)) for (const value of Object.values(map)) refsIn(value, all, 0);
  }
  for (const start of all) {
    const seen = new Set<string>();
    const stack = [...edges(start)];
    while (stack.length > 0) {
      const ref = stack.pop()!;
      if (ref === start) {
        recursive.add(start);
        break;
      }
      if (seen.has(ref)) continue;
      seen.add(ref);
      stack.push(...edges(ref));
    }
  }
  return recursive;
}

/** Keywords that say something to a reader but constrain nothing. */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
]);
