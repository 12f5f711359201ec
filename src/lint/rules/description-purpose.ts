import { createRule } from '../create-rule.js';
import { CHINESE_FILLER, ENGLISH_FILLER, glossesOf } from '../text/glossary.js';
import { asciiWords, cjkRuns, stem } from '../text/words.js';

/** Checklist item 1: the first sentence says what the tool does, and is more than its name again. */
export const descriptionPurpose = createRule({
  name: 'description-purpose',
  meta: {
    type: 'problem',
    description: 'State in the first sentence what the tool does, in more words than its name.',
    messages: {
      empty:
        'Tool "{tool}" has no description, and the model picks tools by it. Start with one plain sentence saying what it does.',
      restatesName:
        'The first sentence of "{tool}" ("{sentence}") only restates the name. Say what it does in plain words: what it acts on, what comes back, within what scope.',
    },
    schema: {
      type: 'object',
      properties: { minWords: { type: 'integer', minimum: 1, maximum: 20 } },
      additionalProperties: false,
    },
    defaultOptions: { minWords: 2 },
    wording: true,
  },
  check(context) {
    for (const tool of context.tools) {
      const first = tool.sentences[0];
      if (first === undefined) {
        context.report({ tool, path: '$.description', messageId: 'empty', data: { tool: tool.name } });
        continue;
      }
      if (informativeWords(first, tool.nameWords) < context.options.minWords) {
        context.report({
          tool,
          path: '$.description',
          messageId: 'restatesName',
          data: { tool: tool.name, sentence: first.length > 80 ? `${first.slice(0, 79)}…` : first },
        });
      }
    }
  },
});

/**
 * How many words of `sentence` say something the name does not: English words that are neither
 * filler nor the name's words, plus Chinese characters (two to a word) left after removing the
 * name's glosses and filler characters.
 */
export function informativeWords(sentence: string, nameWords: readonly string[]): number {
  const name = new Set(nameWords.map(stem));
  const ascii = asciiWords(sentence).filter(
    (word) => !ENGLISH_FILLER.has(word) && !name.has(stem(word)) && !/^\d+$/.test(word),
  ).length;
  let chinese = 0;
  for (let run of cjkRuns(sentence)) {
    for (const word of nameWords) for (const gloss of glossesOf(word)) run = run.split(gloss).join('');
    chinese += run.replace(CHINESE_FILLER, '').length;
  }
  return ascii + Math.floor(chinese / 2);
}
