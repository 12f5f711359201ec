import type { ToolContract } from '../contract/index.js';
import { ToolDefinitionError } from '../errors/index.js';
import type { Registry } from '../registry/registry.js';

/**
 * The contracts a framework is handed: every registered one, or those named in `only` (in
 * registration order). A name in `only` that is not registered throws {@link ToolDefinitionError}.
 *
 * @example
 * selectContracts(registry, ['read_file'], 'toAiSdkTools'); // [readFile.contract]
 */
export function selectContracts(
  registry: Registry,
  only: readonly string[] | undefined,
  caller: string,
): readonly ToolContract[] {
  if (!only) return registry.schemas();
  const wanted = new Set(only);
  for (const name of wanted) {
    if (!registry.has(name)) {
      throw new ToolDefinitionError(
        'invalid_option',
        `${caller}(): "${name}" in only is not registered; register it or remove it from only.`,
        name,
      );
    }
  }
  return registry.schemas().filter((contract) => wanted.has(contract.name));
}
