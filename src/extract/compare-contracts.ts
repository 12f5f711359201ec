import type { GeneratedContracts } from '../typed/generated-contracts.js';

/** How an existing generated module differs from what the source gives now. */
export interface ContractChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  /** The inputs hash differs although no tool's entry does (e.g. a doc comment of a type was reformatted). */
  readonly inputsChanged: boolean;
}

/**
 * Compares the contracts in a generated module with freshly extracted ones, tool by tool.
 *
 * @example
 * const changes = compareContracts(parseModule(existingText), result.contracts);
 * // { added: ['grep'], removed: [], changed: ['read_file'], inputsChanged: true }
 */
export function compareContracts(
  before: GeneratedContracts | undefined,
  after: GeneratedContracts,
): ContractChanges {
  const old = before?.tools ?? {};
  const now = after.tools;
  const added = Object.keys(now)
    .filter((name) => !Object.hasOwn(old, name))
    .sort();
  const removed = Object.keys(old)
    .filter((name) => !Object.hasOwn(now, name))
    .sort();
  const changed = Object.keys(now)
    .filter((name) => Object.hasOwn(old, name) && JSON.stringify(old[name]) !== JSON.stringify(now[name]))
    .sort();
  return { added, removed, changed, inputsChanged: before?.inputsHash !== after.inputsHash };
}

/**
 * True when nothing differs.
 *
 * @example
 * if (!isUnchanged(compareContracts(before, after))) process.exitCode = 1;
 */
export function isUnchanged(changes: ContractChanges): boolean {
  return (
    !changes.inputsChanged && changes.added.length + changes.removed.length + changes.changed.length === 0
  );
}
