import type { ToolContract } from '../contract/index.js';
import { splitSentences } from './text/sentences.js';
import { nameWords, textWords } from './text/words.js';
import type { LintTool } from './types.js';

/**
 * The rules' view of one tool, with the text analysis done once: sentences, words and identifiers
 * of the description, the words of the name.
 *
 * @example
 * const view = toolView(contract, ['description-usage']);
 */
export function toolView(contract: ToolContract, disabled: readonly string[] = []): LintTool {
  const description = typeof contract.description === 'string' ? contract.description : '';
  const identifiers = new Set<string>();
  for (const match of description.matchAll(/[A-Za-z_][A-Za-z0-9_.:-]*/g)) {
    identifiers.add(match[0].replace(/[.:-]+$/, '').toLowerCase());
  }
  return Object.freeze({
    contract,
    name: contract.name,
    disabled: new Set(disabled),
    nameWords: nameWords(contract.name),
    sentences: splitSentences(description),
    words: textWords(description),
    identifiers,
  });
}
