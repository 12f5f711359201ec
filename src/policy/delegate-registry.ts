import { ToolError } from '../dispatch/tool-error.js';
import type { Registry } from '../registry/registry.js';
import { delegationDepth } from './delegation-state.js';

/** Options of {@link createDelegateRegistry}. */
export interface DelegateRegistryOptions {
  /** The registry running the delegating call (`context.registry` in a tool's execute). */
  readonly parent: Registry;
  /** The names the delegate may use: a subset of the parent's tools. */
  readonly names: readonly string[];
  /** The state of the delegating call (its depth is read from it). */
  readonly state: unknown;
  /** Most delegations deep a call may be made (default 2). */
  readonly maxDepth?: number;
}

/** The default bound on nested delegation. */
export const DEFAULT_MAX_DELEGATION_DEPTH = 2;

/**
 * The registry a delegate works in: some of the parent's tools behind the parent's own gate,
 * approver and observer (`Registry#subset`), so a delegated call passes the same policy as the
 * parent's and can never obtain what it denies. Throws a {@link ToolError} the model reads when a
 * name is not the parent's or when the delegation would go deeper than `maxDepth`.
 *
 * @example
 * const sub = createDelegateRegistry({ parent: context.registry, names: ['read_file'], state: context.state });
 * await sub.call('read_file', { path: 'README.md' }, { state: delegatedState(context.state, task) });
 */
export function createDelegateRegistry(options: DelegateRegistryOptions): Registry {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DELEGATION_DEPTH;
  const depth = delegationDepth(options.state) + 1;
  if (depth > maxDepth) {
    throw new ToolError(
      `Delegation is limited to ${maxDepth} level${maxDepth === 1 ? '' : 's'}, and this task is already ${depth - 1} deep.`,
      {
        type: 'delegation_too_deep',
        hint: 'Do this part of the work yourself instead of delegating it again.',
      },
    );
  }
  const unknown = [...new Set(options.names)].filter((name) => !options.parent.has(name));
  if (unknown.length > 0) {
    const offered = options.parent
      .list()
      .map((tool) => tool.contract.name)
      .sort();
    throw new ToolError(
      `A delegate can only use tools this agent has; ${unknown.map((name) => `"${name}"`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not among them.`,
      { type: 'unknown_delegate_tool', hint: `Choose from: ${offered.join(', ')}.` },
    );
  }
  return options.parent.subset(options.names);
}
