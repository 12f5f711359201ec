import type { ToolAnnotations } from '@modelcontextprotocol/client';
import type { ToolCategory, ToolEffects } from '../contract/index.js';

const SEARCH_NAME = /(^|[^a-z])(search|find|grep|glob|query|lookup)/i;

/**
 * A display category for a remote tool, from its annotations only: read-only tools are `read`
 * (`search` when the name says search, find, grep, glob, query or lookup); every other tool is `write`.
 * It is a label for tables, never a permission: annotations come from the server, which the spec says
 * not to trust, so the local policy decides by `meta.source`.
 *
 * @example
 * inferCategory('search_files', { readOnlyHint: true }); // 'search'
 * inferCategory('write_file', {}); // 'write'
 */
export function inferCategory(name: string, annotations: ToolAnnotations | undefined): ToolCategory {
  if (annotations?.readOnlyHint === true) return SEARCH_NAME.test(name) ? 'search' : 'read';
  return 'write';
}

/**
 * The effects the annotations claim, with the spec's defaults for what they leave out
 * (`destructiveHint` true, `idempotentHint` false, `openWorldHint` true). For a read-only tool the spec
 * gives `destructiveHint` and `idempotentHint` no meaning: it is not destructive, and repeating it has no
 * further effect on its environment, which is what idempotent means.
 *
 * @example
 * effectsFromAnnotations({ readOnlyHint: true });
 * // { readOnly: true, destructive: false, idempotent: true, openWorld: true }
 */
export function effectsFromAnnotations(annotations: ToolAnnotations | undefined): ToolEffects {
  const readOnly = annotations?.readOnlyHint ?? false;
  return {
    readOnly,
    destructive: !readOnly && (annotations?.destructiveHint ?? true),
    idempotent: readOnly || (annotations?.idempotentHint ?? false),
    openWorld: annotations?.openWorldHint ?? true,
  };
}
