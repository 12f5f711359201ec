import { createRule } from '../create-rule.js';

/** Consistency: two descriptions so alike that a model cannot tell which tool to pick. */
export const distinctDescriptions = createRule({
  name: 'distinct-descriptions',
  meta: {
    type: 'problem',
    description: 'Give every tool a description distinct from the others in the set.',
    messages: {
      nearDuplicate:
        'The descriptions of "{tool}" and "{other}" share {similarity}% of their words; a model will confuse them. Say what sets each apart, or merge the two tools.',
    },
    schema: {
      type: 'object',
      properties: {
        threshold: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
        minWords: { type: 'integer', minimum: 1 },
      },
      additionalProperties: false,
    },
    defaultOptions: { threshold: 0.8, minWords: 5 },
    wording: true,
  },
  check(context) {
    const { threshold, minWords } = context.options;
    const candidates = context.tools.filter((tool) => tool.words.size >= minWords);
    // Sorting by size lets the size bound (|A| / |B| >= threshold) end the inner loop early.
    const sorted = [...candidates].sort((a, b) => a.words.size - b.words.size);
    const order = new Map(context.tools.map((tool, index) => [tool, index]));
    for (let i = 0; i < sorted.length; i++) {
      const small = sorted[i]!;
      for (let j = i + 1; j < sorted.length; j++) {
        const large = sorted[j]!;
        if (small.words.size < threshold * large.words.size) break;
        let shared = 0;
        for (const word of small.words) if (large.words.has(word)) shared++;
        const similarity = shared / (small.words.size + large.words.size - shared);
        if (similarity < threshold) continue;
        const [first, second] = order.get(small)! < order.get(large)! ? [small, large] : [large, small];
        context.report({
          tool: second,
          path: '$.description',
          messageId: 'nearDuplicate',
          data: { tool: second.name, other: first.name, similarity: Math.round(similarity * 100) },
          related: [first.name],
        });
      }
    }
  },
});
