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
    // Boilerplate every tool repeats ("This tool belongs to the travel system, …") does not make two
    // tools alike: in a set of four or more, words in more than half of the descriptions are left out.
    const common = new Set<string>();
    if (context.tools.length >= 4) {
      const counts = new Map<string, number>();
      for (const tool of context.tools)
        for (const word of tool.words) counts.set(word, (counts.get(word) ?? 0) + 1);
      for (const [word, count] of counts) if (count * 2 > context.tools.length) common.add(word);
    }
    const wordsOf = new Map(
      context.tools.map((tool) => [
        tool,
        common.size === 0 ? tool.words : new Set([...tool.words].filter((word) => !common.has(word))),
      ]),
    );
    const candidates = context.tools.filter((tool) => wordsOf.get(tool)!.size >= minWords);
    // Sorting by size lets the size bound (|A| / |B| >= threshold) end the inner loop early.
    const sorted = [...candidates].sort((a, b) => wordsOf.get(a)!.size - wordsOf.get(b)!.size);
    const order = new Map(context.tools.map((tool, index) => [tool, index]));
    for (let i = 0; i < sorted.length; i++) {
      const small = sorted[i]!;
      const smallWords = wordsOf.get(small)!;
      for (let j = i + 1; j < sorted.length; j++) {
        const large = sorted[j]!;
        const largeWords = wordsOf.get(large)!;
        if (smallWords.size < threshold * largeWords.size) break;
        let shared = 0;
        for (const word of smallWords) if (largeWords.has(word)) shared++;
        const similarity = shared / (smallWords.size + largeWords.size - shared);
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
