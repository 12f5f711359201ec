import type { JsonSchema } from '../contract/index.js';
import type { ToolDiagnostics } from './diagnostics.js';
import { childPath, isRecord, resolveLocalRef } from './schema-node.js';

/** Reports every `$ref` that is not local or points at nothing (MCP 2026-07-28: never dereference network refs). */
export function checkLocalRefs(root: JsonSchema, path: string, diagnostics: ToolDiagnostics): void {
  const visit = (node: unknown, at: string, depth: number): void => {
    if (depth > 200) return;
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) visit(item, childPath(at, index), depth + 1);
      return;
    }
    if (!isRecord(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        if (resolveLocalRef(root, value) === undefined) {
          diagnostics.report(
            childPath(at, key),
            'unresolved_ref',
            `"$ref": ${JSON.stringify(value)} does not point into the schema`,
          );
        }
      } else if (key !== 'enum' && key !== 'const' && key !== 'default' && key !== 'examples') {
        visit(value, childPath(at, key), depth + 1);
      }
    }
  };
  visit(root, path, 0);
}
