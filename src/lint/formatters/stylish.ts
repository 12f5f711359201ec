import type { LintFinding } from '../types.js';
import type { LintFormatter } from './format-context.js';

/**
 * The format for people: findings grouped by tool (set-wide ones first, under "(tool set)"), each with
 * its path, severity, message and rule, then a summary line. Nothing but the summary when clean.
 *
 * @example
 * io.stdout(stylish(lint(registry), { source: 'tools.ts' }));
 */
export const stylish: LintFormatter = (result, context = {}) => {
  const lines: string[] = [];
  if (context.source) lines.push(context.source);
  const groups = new Map<string, LintFinding[]>();
  for (const finding of result.findings) {
    const key = finding.tool ?? '(tool set)';
    const group = groups.get(key) ?? [];
    group.push(finding);
    groups.set(key, group);
  }
  for (const [tool, findings] of groups) {
    lines.push(`  ${tool}`);
    const pathWidth = Math.max(...findings.map((finding) => finding.path.length));
    for (const finding of findings) {
      lines.push(
        `    ${finding.path.padEnd(pathWidth)}  ${finding.severity.padEnd(7)}  ${finding.message}  ${finding.rule}`,
      );
    }
  }
  const total = result.findings.length;
  if (total === 0) {
    lines.push(`✔ ${result.toolCount} tool${result.toolCount === 1 ? '' : 's'}, no problems`);
  } else {
    if (lines.length > 0) lines.push('');
    lines.push(
      `${result.errorCount > 0 ? '✖' : '⚠'} ${total} problem${total === 1 ? '' : 's'} (${plural(result.errorCount, 'error')}, ${plural(result.warningCount, 'warning')}, ${plural(result.infoCount, 'info')}) in ${plural(result.toolCount, 'tool')}`,
    );
  }
  return `${lines.join('\n')}\n`;
};

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 || word === 'info' ? '' : 's'}`;
}
