export {
  CATEGORIES,
  CATEGORY_DEFAULTS,
  type CategoryDefaults,
  isToolCategory,
  resolveEffects,
} from './categories.js';
export { explainInvalidToolName, TOOL_NAME_PATTERN, WIDE_TOOL_NAME_PATTERN } from './names.js';
export {
  normalizeSchema,
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SCHEMA_SINGLE_KEYWORDS,
} from './normalize-schema.js';
export type {
  JsonSchema,
  Permission,
  ReturnContract,
  RiskLevel,
  ToolCategory,
  ToolContract,
  ToolEffects,
  ToolExample,
} from './tool-contract.js';
