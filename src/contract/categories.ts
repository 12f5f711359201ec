import type { Permission, RiskLevel, ToolCategory, ToolEffects } from './tool-contract.js';

/** What a category carries by default: its risk, the gate's default permission and its effects. */
export interface CategoryDefaults {
  readonly risk: RiskLevel;
  readonly permission: Permission;
  readonly effects: ToolEffects;
  /** Execute tools are refused unless they run under a sandbox. */
  readonly requiresSandbox: boolean;
  readonly summary: string;
}

/**
 * The taxonomy: read and search are low risk and allowed; write needs care; execute is the
 * watershed (a sandbox is required); delegate inherits the delegate's tools.
 */
export const CATEGORY_DEFAULTS: { readonly [C in ToolCategory]: CategoryDefaults } = Object.freeze({
  read: {
    risk: 'low',
    permission: 'allow',
    effects: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    requiresSandbox: false,
    summary: 'reads state without changing it',
  },
  search: {
    risk: 'low',
    permission: 'allow',
    effects: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    requiresSandbox: false,
    summary: 'finds where something is without changing anything',
  },
  write: {
    risk: 'medium',
    permission: 'ask',
    effects: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
    requiresSandbox: false,
    summary: 'changes files or other state',
  },
  execute: {
    risk: 'high',
    permission: 'ask',
    effects: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
    requiresSandbox: true,
    summary: 'runs arbitrary commands or code; needs a sandbox',
  },
  delegate: {
    risk: 'high',
    permission: 'ask',
    effects: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
    requiresSandbox: false,
    summary: 'hands work, and the power of its tools, to another agent',
  },
});

/** The categories in taxonomy order. */
export const CATEGORIES: readonly ToolCategory[] = Object.freeze(
  Object.keys(CATEGORY_DEFAULTS) as ToolCategory[],
);

/** True when `value` is one of the five categories. */
export function isToolCategory(value: unknown): value is ToolCategory {
  return typeof value === 'string' && Object.hasOwn(CATEGORY_DEFAULTS, value);
}

/** The category's default effects, with the tool's own overrides applied. */
export function resolveEffects(category: ToolCategory, overrides?: Partial<ToolEffects>): ToolEffects {
  const base = CATEGORY_DEFAULTS[category].effects;
  if (!overrides) return base;
  return {
    readOnly: overrides.readOnly ?? base.readOnly,
    destructive: overrides.destructive ?? base.destructive,
    idempotent: overrides.idempotent ?? base.idempotent,
    openWorld: overrides.openWorld ?? base.openWorld,
  };
}
