import type { JsonSchema } from '../contract/index.js';
import { isRecord, resolveLocalRef, type SchemaObject } from './schema-node.js';

/** The outcome of folding an `allOf` into its parent. */
export type MergedAllOf =
  | { readonly ok: true; readonly schema: SchemaObject }
  | { readonly ok: false; readonly schema: SchemaObject; readonly reason: string };

/**
 * Folds `allOf` into one schema when that changes nothing: each member (a `$ref` is followed unless it
 * is recursive) adds keywords the others do not set, and properties the others do not declare
 * (`required` lists are joined). Otherwise answers why not, with the parent minus its `allOf`.
 *
 * @example
 * mergeAllOf({ allOf: [{ properties: { a: {} } }, { required: ['a'] }] }, root, new Set());
 * // { ok: true, schema: { properties: { a: {} }, required: ['a'] } }
 */
export function mergeAllOf(
  source: SchemaObject,
  root: JsonSchema,
  recursive: ReadonlySet<string>,
): MergedAllOf {
  const { allOf, ...rest } = source;
  if (!Array.isArray(allOf)) return { ok: true, schema: rest };
  let merged: SchemaObject = { ...rest };
  for (const raw of allOf) {
    let part: unknown = raw;
    if (
      isRecord(raw) &&
      typeof raw.$ref === 'string' &&
      Object.keys(raw).length === 1 &&
      !recursive.has(raw.$ref)
    ) {
      part = resolveLocalRef(root, raw.$ref);
    }
    if (!isRecord(part)) return { ok: false, schema: rest, reason: 'a member is not a schema object' };
    if (typeof part.$ref === 'string')
      return { ok: false, schema: rest, reason: 'a member is a recursive "$ref"' };
    if (Array.isArray(part.allOf)) return { ok: false, schema: rest, reason: 'a member has its own "allOf"' };
    const conflict = Object.keys(part).find(
      (key) =>
        key !== 'properties' &&
        key !== 'required' &&
        key !== 'description' &&
        key !== 'title' &&
        Object.hasOwn(merged, key) &&
        JSON.stringify(merged[key]) !== JSON.stringify(part[key]),
    );
    if (conflict !== undefined) return { ok: false, schema: rest, reason: `two members set "${conflict}"` };
    const mine = isRecord(merged.properties) ? merged.properties : undefined;
    const theirs = isRecord(part.properties) ? part.properties : undefined;
    const overlap =
      mine && theirs ? Object.keys(theirs).find((name) => Object.hasOwn(mine, name)) : undefined;
    if (overlap !== undefined)
      return { ok: false, schema: rest, reason: `two members declare the property "${overlap}"` };
    const next: SchemaObject = { ...part, ...merged };
    if (mine || theirs) next.properties = { ...mine, ...theirs };
    if (Array.isArray(part.required) || Array.isArray(merged.required)) {
      next.required = [
        ...new Set([...((merged.required as unknown[]) ?? []), ...((part.required as unknown[]) ?? [])]),
      ];
    }
    merged = next;
  }
  return { ok: true, schema: merged };
}
