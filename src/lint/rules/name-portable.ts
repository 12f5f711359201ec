import { createRule } from '../create-rule.js';

/** The name profile every provider accepts as it is (provider-rules §4, rule 4). */
export const PORTABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Names: the portable profile, and each provider's own rule. */
export const namePortable = createRule({
  name: 'name-portable',
  meta: {
    type: 'suggestion',
    description:
      'Name tools so that every provider accepts the name as it is: letters, digits and "_", at most 64, not starting with a digit.',
    messages: {
      notPortable:
        'Tool name "{tool}" {reason}, so {providers} will see an alias instead, and the model, the logs and your prompts will use two names for one tool. Rename it, e.g. to "{suggestion}".',
    },
    defaultOptions: {},
  },
  check(context) {
    for (const tool of context.tools) {
      const { name } = tool;
      if (PORTABLE_NAME_PATTERN.test(name)) continue;
      const { reason, providers } = explain(name);
      context.report({
        tool,
        path: '$.name',
        messageId: 'notPortable',
        data: { tool: name, reason, providers: joinAnd(providers), suggestion: portableName(name) },
      });
    }
  },
});

function explain(name: string): { reason: string; providers: string[] } {
  const reasons: string[] = [];
  const providers = new Set<string>();
  if (name.includes('.')) {
    reasons.push('contains "."');
    providers.add('OpenAI').add('Anthropic');
  }
  if (name.includes('-')) {
    reasons.push('contains "-" (against Gemini\'s naming advice)');
    providers.add('Gemini');
  }
  const other = [...new Set(name.replace(/[A-Za-z0-9_.-]/g, ''))];
  if (other.length > 0) {
    reasons.push(`contains ${other.map((ch) => JSON.stringify(ch)).join(', ')}`);
    providers.add('OpenAI').add('Anthropic').add('Gemini').add('MCP');
  }
  if (/^[0-9]/.test(name)) {
    reasons.push('starts with a digit');
    providers.add('Gemini');
  }
  if (name.length > 64) {
    reasons.push(`has ${name.length} characters (more than 64)`);
    providers.add('OpenAI').add('Anthropic').add('Gemini (Vertex)');
  }
  return { reason: reasons.join(' and '), providers: [...providers] };
}

function joinAnd(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The closest portable name: every other character becomes "_", a leading digit gets "_" before it. */
export function portableName(name: string): string {
  const replaced = name.replace(/[^A-Za-z0-9_]/g, '_');
  return (/^[0-9]/.test(replaced) ? `_${replaced}` : replaced).slice(0, 64);
}
