/**
 * The brand of an MCP request context (`McpRequestContext`), and how a call's `state` carries it. This
 * module loads nothing, so code that must not load the MCP SDK (`toolpact/search`) can read the context.
 */
export const MCP_CONTEXT = Symbol.for('toolpact.mcp.context');

/**
 * The branded MCP request context a call's `state` carries: the state itself, or its `mcp` field (a
 * server whose `state` option keeps it there); undefined otherwise. `T` is the caller's view of it.
 *
 * @example
 * const era = brandedContextOf<{ readonly era: string }>(state)?.era;
 */
export function brandedContextOf<T extends object>(state: unknown): T | undefined {
  if (isBranded(state)) return state as T;
  if (state !== null && typeof state === 'object' && Object.hasOwn(state, 'mcp')) {
    const inner = (state as { mcp?: unknown }).mcp;
    if (isBranded(inner)) return inner as T;
  }
  return undefined;
}

function isBranded(value: unknown): boolean {
  return (
    value !== null && typeof value === 'object' && (value as Record<symbol, unknown>)[MCP_CONTEXT] === true
  );
}
