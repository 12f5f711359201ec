/**
 * toolpact/lint: read a tool set the way a model will, and say where it is vague, inconsistent or
 * refused. The same rules as `toolpact lint`, for use in tests.
 *
 * @example
 * import { lint, stylish } from 'toolpact/lint';
 * const result = lint(registry, { config: { extends: 'strict' } });
 * if (result.errorCount > 0) throw new Error(stylish(result));
 */
export {
  type ConfiguredRule,
  type LintConfig,
  LintConfigError,
  type ResolvedLintConfig,
  type RuleSetting,
  resolveLintConfig,
  type SeveritySetting,
} from './config.js';
export { createRule, RULE_DOCS_BASE, type RuleDefinition } from './create-rule.js';
export {
  FORMATTERS,
  type FormatContext,
  type FormatterName,
  json,
  type LintFormatter,
  sarif,
  stylish,
} from './formatters/index.js';
export {
  findHiddenInstructions,
  HIDDEN_INSTRUCTION_RULES,
  type HiddenInstructionFinding,
  type ToolDefinitionText,
} from './hidden-instructions/index.js';
export { type LintOptions, type LintResult, type LintSource, lint } from './lint.js';
export { type LintPreset, PRESETS, type PresetName } from './presets.js';
export { RULES } from './rules/index.js';
export { toolView } from './tool-view.js';
export type {
  AnyLintRule,
  LintFinding,
  LintRule,
  LintSeverity,
  LintTool,
  ProviderDiagnostic,
  ProviderFacts,
  ReportDescriptor,
  RuleContext,
  RuleMeta,
  RuleType,
  TextSpan,
} from './types.js';
