export { bindContract, type TypedDeclaration } from './bind-contract.js';
export {
  type ArgumentPath,
  type CallShape,
  GENERATED_FORMAT,
  type GeneratedContract,
  type GeneratedContracts,
  type GeneratedTool,
} from './generated-contracts.js';
export { parameterNames } from './parameter-names.js';
export { reviveDates } from './revive-dates.js';
export { type ToolMethodDecorator, type TypedArguments, tool, toolsOf } from './tool.js';
export type { TypedToolOptions } from './typed-tool-options.js';
