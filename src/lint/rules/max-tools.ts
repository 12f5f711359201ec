import { createRule } from '../create-rule.js';

/** Limits: how many tools one request can carry, by best practice and by each provider's hard cap. */
export const maxTools = createRule({
  name: 'max-tools',
  meta: {
    type: 'suggestion',
    description:
      'Keep the set small enough for one request: about 20 tools, and never past a provider’s cap.',
    messages: {
      overSoftLimit:
        'The set has {count} tools; past {max}, models pick the wrong tool more often. Split it by task, or load tools on demand (tool search, defer_loading).',
      overProviderLimit:
        'The set has {count} tools; {provider} accepts at most {limit} in one request and will refuse it. Send a subset per request.',
    },
    schema: {
      type: 'object',
      properties: {
        max: { type: 'integer', minimum: 1 },
        providerLimits: { type: 'object', additionalProperties: { type: 'integer', minimum: 1 } },
      },
      additionalProperties: false,
    },
    defaultOptions: {
      max: 20,
      providerLimits: { OpenAI: 128, Gemini: 512 } as { [provider: string]: number },
    },
  },
  check(context) {
    const count = context.tools.length;
    const over = Object.entries(context.options.providerLimits)
      .filter(([, limit]) => count > limit)
      .sort((a, b) => a[1] - b[1]);
    for (const [provider, limit] of over) {
      context.report({ path: '$', messageId: 'overProviderLimit', data: { count, provider, limit } });
    }
    if (over.length === 0 && count > context.options.max) {
      context.report({ path: '$', messageId: 'overSoftLimit', data: { count, max: context.options.max } });
    }
  },
});
