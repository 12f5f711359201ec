import type { Prompt } from '../define/define-prompt.js';
import type { Resource } from '../define/define-resource.js';
import type { ResolvedLintConfig } from './config.js';
import { findHiddenInstructions } from './hidden-instructions/index.js';
import type { LintFinding, LintSeverity } from './types.js';

/** What offers resources and prompts besides tools: a `Registry`. */
export interface OfferingSource {
  resources(): readonly Resource[];
  prompts(): readonly Prompt[];
}

/** True when the lint source offers resources and prompts (a registry). */
export function offersMore(source: unknown): source is OfferingSource {
  return (
    source !== null &&
    typeof source === 'object' &&
    typeof (source as OfferingSource).resources === 'function' &&
    typeof (source as OfferingSource).prompts === 'function'
  );
}

/**
 * The hidden-instruction findings in what a client is shown of each resource and prompt (name, title,
 * description; a prompt's argument descriptions as the properties of an input schema), under the
 * configured severities of those rules. A finding names its subject `resource:<uri or template>` or
 * `prompt:<name>`. A prompt's messages come from its `get` at run time, so they are not read here.
 *
 * @example
 * const findings = offeringFindings(registry, resolveLintConfig({}));
 */
export function offeringFindings(source: OfferingSource, config: ResolvedLintConfig): LintFinding[] {
  const severities = new Map<string, LintSeverity>(
    config.rules.map((configured) => [configured.rule.name, configured.severity]),
  );
  const subjects = [
    ...source.resources().map((resource) => ({
      subject: `resource:${resource.key}`,
      disabled: resource.meta.lint?.disable ?? [],
      text: { name: resource.name, title: resource.title, description: resource.description },
    })),
    ...source.prompts().map((prompt) => ({
      subject: `prompt:${prompt.name}`,
      disabled: prompt.meta.lint?.disable ?? [],
      text: {
        name: prompt.name,
        title: prompt.title,
        description: prompt.description,
        inputSchema: {
          type: 'object',
          properties: Object.fromEntries(
            Object.entries(prompt.arguments).map(([name, spec]) => [name, { description: spec.description }]),
          ),
        },
      },
    })),
  ];
  return subjects.flatMap(({ subject, disabled, text }) =>
    findHiddenInstructions(text).flatMap((found): LintFinding[] => {
      const configured = severities.get(found.rule);
      if (configured === undefined || (disabled as readonly unknown[]).includes(found.rule)) return [];
      const severity = found.severity === 'warning' ? weaker(configured) : configured;
      return [
        Object.freeze({
          rule: found.rule,
          severity,
          tool: subject,
          path: found.path,
          messageId: found.messageId,
          data: Object.freeze({ tool: subject }),
          message: found.message,
          related: Object.freeze([]),
          span: found.span,
        }),
      ];
    }),
  );
}

function weaker(severity: LintSeverity): LintSeverity {
  return severity === 'error' ? 'warning' : 'info';
}
