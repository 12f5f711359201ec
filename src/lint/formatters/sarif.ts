import type { LintSeverity } from '../types.js';
import type { LintFormatter } from './format-context.js';

const LEVELS: { readonly [Severity in LintSeverity]: 'error' | 'warning' | 'note' } = {
  error: 'error',
  warning: 'warning',
  info: 'note',
};

/**
 * SARIF 2.1.0 for code scanning: one run whose driver lists every rule that ran (id, description,
 * `helpUri` from the rule's docs, default level), and one result per finding. A finding's location is
 * logical (the tool and the JSONPath into its contract) and, when the module is known, the module file.
 *
 * @example
 * writeFileSync('lint.sarif', sarif(lint(registry), { source: 'src/tools.ts', version: '0.1.0' }));
 */
export const sarif: LintFormatter = (result, context = {}) => {
  const rules = result.config.rules.map(({ rule, severity }) => ({
    id: rule.name,
    name: rule.name,
    shortDescription: { text: rule.meta.description },
    helpUri: rule.meta.docs,
    defaultConfiguration: { level: LEVELS[severity] },
    properties: { type: rule.meta.type },
  }));
  const index = new Map(rules.map((rule, position) => [rule.id, position]));
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'toolpact',
            ...(context.version ? { version: context.version } : {}),
            informationUri: 'https://github.com/toolpact/toolpact',
            rules,
          },
        },
        ...(context.source ? { artifacts: [{ location: { uri: context.source } }] } : {}),
        results: result.findings.map((finding) => ({
          ruleId: finding.rule,
          ruleIndex: index.get(finding.rule) ?? -1,
          level: LEVELS[finding.severity],
          message: { text: finding.message },
          locations: [
            {
              ...(context.source
                ? { physicalLocation: { artifactLocation: { uri: context.source, index: 0 } } }
                : {}),
              logicalLocations: [
                {
                  name: finding.tool ?? '(tool set)',
                  fullyQualifiedName: `${finding.tool ?? '(tool set)'}${finding.path === '$' ? '' : finding.path.slice(1)}`,
                  kind: finding.tool ? 'function' : 'module',
                },
              ],
            },
          ],
          ...(finding.related.length
            ? {
                relatedLocations: finding.related.map((name, id) => ({
                  id,
                  logicalLocations: [{ name, kind: 'function' }],
                })),
              }
            : {}),
          properties: { messageId: finding.messageId, path: finding.path },
        })),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
};
