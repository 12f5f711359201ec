import { CATEGORIES, isToolCategory, resolveEffects, type ToolContract } from '../contract/index.js';
import { type AnyTool, isTool } from '../contract/tool.js';
import { closestNames } from '../util/closest.js';
import { type LintConfig, LintConfigError, type ResolvedLintConfig, resolveLintConfig } from './config.js';
import { offeringFindings, offersMore } from './offerings.js';
import { parametersOf } from './parameters.js';
import { providerFacts } from './provider-facts.js';
import { renderMessage } from './render-message.js';
import { toolView } from './tool-view.js';
import type {
  LintFinding,
  LintSeverity,
  LintTool,
  ProviderFacts,
  ReportDescriptor,
  RuleContext,
} from './types.js';

/** What can be linted: a registry, tools, or plain contracts (e.g. read from an MCP `tools/list`). */
export type LintSource = { list(): readonly AnyTool[] } | readonly (AnyTool | ToolContract)[];

/** Options of {@link lint}. */
export interface LintOptions {
  /** The `lint` configuration section, or one already resolved; default: the `recommended` preset. */
  readonly config?: LintConfig | ResolvedLintConfig;
  /** Token counts and adapter diagnostics; by default the schema adapters' own, computed when a rule asks. */
  readonly providers?: ProviderFacts;
}

/** The outcome of a lint run: the findings, sorted, and their counts. */
export interface LintResult {
  readonly findings: readonly LintFinding[];
  readonly errorCount: number;
  readonly warningCount: number;
  readonly infoCount: number;
  readonly toolCount: number;
  /** The rules that ran, with their severities, for formatters (SARIF lists them). */
  readonly config: ResolvedLintConfig;
}

/**
 * Lints a tool set: runs every configured rule over it and returns the findings, sorted by tool
 * (set-wide findings first), then path and rule. A rule a tool disables in `meta.lint.disable` reports
 * nothing on that tool. A configuration that cannot work throws a {@link LintConfigError}.
 *
 * @example
 * import { lint } from 'toolpact/lint';
 * const result = lint(registry);
 * expect(result.errorCount).toBe(0);
 */
export function lint(source: LintSource, options: LintOptions = {}): LintResult {
  const config = isResolved(options.config) ? options.config : resolveLintConfig(options.config ?? {});
  const tools = toolsOf(source, config);
  const order = new Map(tools.map((tool, index) => [tool.name, index]));
  const toolNames = new Set(tools.map((tool) => tool.name));
  const parameterNames = new Set<string>();
  for (const tool of tools)
    for (const parameter of parametersOf(tool.contract.parameters)) parameterNames.add(parameter.name);
  const providers = options.providers ?? providerFacts(tools.map((tool) => tool.contract));
  const findings: LintFinding[] = [];
  for (const { rule, severity, options: ruleOptions } of config.rules) {
    const context: RuleContext<string, unknown> = {
      options: ruleOptions,
      tools,
      toolNames,
      parameterNames,
      providers,
      report(descriptor: ReportDescriptor<string>) {
        if (descriptor.tool?.disabled.has(rule.name)) return;
        const template = Object.hasOwn(rule.meta.messages, descriptor.messageId)
          ? rule.meta.messages[descriptor.messageId]!
          : undefined;
        if (template === undefined)
          throw new TypeError(
            `Lint rule "${rule.name}" reported an unknown message id "${descriptor.messageId}".`,
          );
        const data = descriptor.data ?? {};
        findings.push(
          Object.freeze({
            rule: rule.name,
            severity: descriptor.weak === true ? weaker(severity) : severity,
            tool: descriptor.tool?.name,
            path: descriptor.path,
            messageId: descriptor.messageId,
            data: Object.freeze({ ...data }),
            message: renderMessage(template, data),
            related: Object.freeze([...(descriptor.related ?? [])]),
            ...(descriptor.span ? { span: Object.freeze({ ...descriptor.span }) } : {}),
          }),
        );
      },
    };
    rule.check(context);
  }
  // A registry's resources and prompts are model-visible too: the hidden-instruction rules read them,
  // after the tools.
  if (offersMore(source)) {
    const offered = offeringFindings(source, config);
    for (const finding of offered) if (!order.has(finding.tool!)) order.set(finding.tool!, order.size);
    findings.push(...offered);
  }
  findings.sort(
    (a, b) =>
      (a.tool === undefined ? -1 : order.get(a.tool)!) - (b.tool === undefined ? -1 : order.get(b.tool)!) ||
      compare(a.path, b.path) ||
      compare(a.rule, b.rule) ||
      compare(a.message, b.message),
  );
  const count = (severity: LintSeverity) =>
    findings.filter((finding) => finding.severity === severity).length;
  return Object.freeze({
    findings: Object.freeze(findings),
    errorCount: count('error'),
    warningCount: count('warning'),
    infoCount: count('info'),
    toolCount: tools.length,
    config,
  });
}

function toolsOf(source: LintSource, config: ResolvedLintConfig): LintTool[] {
  const items: readonly (AnyTool | ToolContract)[] = Array.isArray(source)
    ? source
    : (source as { list(): readonly AnyTool[] }).list();
  return items.map((item, index) => {
    if (isTool(item)) return toolView(item.contract, disabledRules(item, config));
    if (item !== null && typeof item === 'object' && typeof (item as ToolContract).name === 'string') {
      return toolView(completeContract(item as ToolContract));
    }
    throw new TypeError(
      `Item ${index} of the lint source is neither a tool nor a tool contract (an object with a name, a description, parameters and a category).`,
    );
  });
}

/**
 * A contract given as plain data (read from JSON, say) may lack what the rules read; fill what has a
 * default and refuse what has none, so no rule meets an undefined.
 */
function completeContract(contract: ToolContract): ToolContract {
  if (!isToolCategory(contract.category)) {
    throw new TypeError(
      `Tool contract "${contract.name}" has category ${JSON.stringify(contract.category)}; give it one of ${CATEGORIES.join(', ')}.`,
    );
  }
  const parameters = contract.parameters;
  return {
    ...contract,
    description: typeof contract.description === 'string' ? contract.description : '',
    parameters:
      parameters !== null && typeof parameters === 'object' && !Array.isArray(parameters)
        ? parameters
        : { type: 'object' },
    effects: resolveEffects(contract.category, contract.effects ?? {}),
  };
}

function disabledRules(tool: AnyTool, config: ResolvedLintConfig): string[] {
  const disable = tool.meta.lint?.disable ?? [];
  if (!Array.isArray(disable)) {
    throw new LintConfigError(
      `Tool "${tool.contract.name}": meta.lint.disable must be an array of rule names.`,
    );
  }
  for (const name of disable) {
    if (typeof name === 'string' && Object.hasOwn(config.available, name)) continue;
    const close = typeof name === 'string' ? closestNames(name, Object.keys(config.available), 1) : [];
    throw new LintConfigError(
      `Tool "${tool.contract.name}" disables ${JSON.stringify(name)} in meta.lint.disable, which is not a lint rule${close.length ? `; did you mean "${close[0]}"?` : '.'}`,
    );
  }
  return disable as string[];
}

function isResolved(config: LintOptions['config']): config is ResolvedLintConfig {
  return config !== undefined && (config as ResolvedLintConfig).resolved === true;
}

function weaker(severity: LintSeverity): LintSeverity {
  return severity === 'error' ? 'warning' : 'info';
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
