/** The answer of a sandbox's start-up check. */
export type SandboxCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * What an execute tool puts in `meta.sandbox` to say it runs confined. The gate refuses an execute
 * tool without one, and asks `check()` before every call, so a missing or broken sandbox refuses
 * the call instead of running it unconfined.
 *
 * @example
 * const sandbox = createBubblewrapSandbox({ workspace });
 * const tool = defineTool({ ..., category: 'execute', meta: { sandbox }, execute: ... });
 */
export interface SandboxDeclaration {
  /** What confines the tool, e.g. `"bubblewrap"`. */
  readonly kind: string;
  /** Whether the sandbox can start now; the reason is shown to the model when it cannot. */
  readonly check: () => SandboxCheck | Promise<SandboxCheck>;
}

/**
 * The declaration in `meta.sandbox`, when it has the right shape.
 *
 * @example
 * const sandbox = sandboxOf(tool.meta); // undefined for a tool that declares none
 */
export function sandboxOf(meta: { readonly [key: string]: unknown }): SandboxDeclaration | undefined {
  const value = meta.sandbox;
  if (value === null || typeof value !== 'object') return undefined;
  const declaration = value as Partial<SandboxDeclaration>;
  return typeof declaration.kind === 'string' && typeof declaration.check === 'function'
    ? (declaration as SandboxDeclaration)
    : undefined;
}
