/**
 * The parts of a request that each ask for one thing. An agent's request often chains several steps
 * ("first …, then …, finally …"); searched as one bag of words, the step with the rarest words takes the
 * whole top of the ranking and the others' tools fall out. Each part is searched on its own as well.
 * Sentences, semicolons, and the sequencing words of English and Chinese split a request; a part shorter
 * than two words is not a step.
 *
 * @example
 * queryClauses('Find flights to Rome. Then book the cheapest one and email me the receipt.');
 * // ['Find flights to Rome.', 'book the cheapest one and email me the receipt.']
 */
export function queryClauses(query: string): string[] {
  const parts = query
    .split(SPLIT)
    .map((part) => part?.trim() ?? '')
    .filter((part) => part !== '' && !SEQUENCE_ONLY.test(part));
  return parts.filter(
    (part) => (part.match(/[\p{L}\p{N}]+/gu)?.length ?? 0) >= 2 || /\p{Script=Han}{2,}/u.test(part),
  );
}

// Sentence ends (Latin and CJK punctuation), semicolons, and the words that introduce a next step.
const SPLIT =
  /(?<=[.!?;])\s+|(?<=[。！？；])|\b(?:then|afterwards|after that|next|finally|lastly|subsequently|additionally|also|once (?:that|this) is done)\b|然后|接着|之后|最后|另外|并且|同时/giu;
const SEQUENCE_ONLY = /^(?:and|first|firstly|second|secondly|,)$/i;
