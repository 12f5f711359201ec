import type { ToolContract } from '../contract/index.js';
import type { ToolDiagnostics } from './diagnostics.js';
import { providerToolName } from './names.js';
import type { ProviderFormat } from './types.js';

/** The provider name of a contract, reporting the alias when there is one. */
export function aliasedName(
  contract: ToolContract,
  format: ProviderFormat,
  diagnostics: ToolDiagnostics,
): string {
  const alias = providerToolName(contract.name, format);
  if (alias !== contract.name)
    diagnostics.report('$.name', 'name_aliased', `The name "${contract.name}" is sent as "${alias}"`);
  return alias;
}

/** True when the parameters declare nothing at all (a tool without arguments). */
export function hasNoParameters(contract: ToolContract): boolean {
  const parameters = contract.parameters;
  const properties = parameters.properties;
  const empty =
    properties === undefined ||
    (typeof properties === 'object' && properties !== null && Object.keys(properties).length === 0);
  return (
    empty &&
    Object.keys(parameters).every(
      (key) => key === 'type' || key === 'properties' || key === 'additionalProperties',
    )
  );
}
