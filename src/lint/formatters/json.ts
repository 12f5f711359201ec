import type { LintFormatter } from './format-context.js';

/**
 * The format for scripts: one JSON object with the counts and every finding (rule, severity, tool,
 * path, messageId, data, message, related, docs), in the sorted order of the result.
 *
 * @example
 * const report = JSON.parse(json(lint(registry)));
 */
export const json: LintFormatter = (result, context = {}) => {
  const docs = new Map(result.config.rules.map(({ rule }) => [rule.name, rule.meta.docs]));
  return `${JSON.stringify(
    {
      ...(context.source ? { source: context.source } : {}),
      toolCount: result.toolCount,
      errorCount: result.errorCount,
      warningCount: result.warningCount,
      infoCount: result.infoCount,
      findings: result.findings.map((finding) => ({ ...finding, docs: docs.get(finding.rule) })),
    },
    null,
    2,
  )}\n`;
};
