import { createRule } from '../create-rule.js';
import { parametersOf } from '../parameters.js';

/** The naming styles told apart; `plain` (one lower-case word) fits every style. */
export type NamingStyle =
  | 'snake_case'
  | 'camelCase'
  | 'PascalCase'
  | 'kebab-case'
  | 'SCREAMING_CASE'
  | 'plain'
  | 'mixed';

/** The style of one name; dots separate namespaces and do not count. */
export function namingStyle(name: string): NamingStyle {
  const styles = new Set(
    name
      .split('.')
      .map(segmentStyle)
      .filter((style) => style !== 'plain'),
  );
  if (styles.size === 0) return 'plain';
  return styles.size === 1 ? [...styles][0]! : 'mixed';
}

function segmentStyle(segment: string): NamingStyle {
  if (/^[a-z][a-z0-9]*$/.test(segment) || segment === '') return 'plain';
  if (/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/.test(segment)) return 'snake_case';
  if (/^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/.test(segment)) return 'kebab-case';
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/.test(segment)) return 'SCREAMING_CASE';
  if (/^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/.test(segment)) return 'camelCase';
  if (/^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*$/.test(segment)) return 'PascalCase';
  return 'mixed';
}

/** Consistency: one naming style for tool names, and one for parameter names, across the set. */
export const consistentNamingStyle = createRule({
  name: 'consistent-naming-style',
  meta: {
    type: 'suggestion',
    description: 'Use one naming style for all tool names and one for all parameter names in the set.',
    messages: {
      toolName:
        'Tool name "{tool}" is {style}, while most tools in the set are {majority}. Rename it in {majority} so the set reads as one API.',
      parameterName:
        'Parameter "{parameter}" of "{tool}" is {style}, while most parameters in the set are {majority}. Rename it in {majority}.',
    },
    defaultOptions: {},
  },
  check(context) {
    const toolStyles = context.tools.map((tool) => ({ tool, style: namingStyle(tool.name) }));
    const toolMajority = majority(toolStyles.map((entry) => entry.style));
    if (toolMajority) {
      for (const { tool, style } of toolStyles) {
        if (style === 'plain' || style === toolMajority) continue;
        context.report({
          tool,
          path: '$.name',
          messageId: 'toolName',
          data: { tool: tool.name, style, majority: toolMajority },
        });
      }
    }
    const parameters = context.tools.flatMap((tool) =>
      parametersOf(tool.contract.parameters).map((parameter) => ({
        tool,
        parameter,
        style: namingStyle(parameter.name),
      })),
    );
    const parameterMajority = majority(parameters.map((entry) => entry.style));
    if (!parameterMajority) return;
    for (const { tool, parameter, style } of parameters) {
      if (style === 'plain' || style === parameterMajority) continue;
      context.report({
        tool,
        path: parameter.path,
        messageId: 'parameterName',
        data: { tool: tool.name, parameter: parameter.name, style, majority: parameterMajority },
      });
    }
  },
});

/** The most common style, when at least two styles (besides plain) are present. */
function majority(styles: readonly NamingStyle[]): NamingStyle | undefined {
  const counts = new Map<NamingStyle, number>();
  for (const style of styles) if (style !== 'plain') counts.set(style, (counts.get(style) ?? 0) + 1);
  if (counts.size < 2) return undefined;
  return [...counts.entries()].reduce((best, next) => (next[1] > best[1] ? next : best))[0];
}
