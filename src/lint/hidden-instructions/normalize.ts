/**
 * The one reading of a text that every hidden-instruction pattern sees: compatibility forms folded
 * (full-width letters, ligatures), invisible and formatting characters taken out, Unicode tag
 * characters turned back into the ASCII they smuggle, white space collapsed. Each character of the
 * reading remembers where it came from, so a match is marked on the text as written.
 */
export interface NormalizedText {
  /** The text as the patterns read it. */
  readonly text: string;
  /** For each UTF-16 unit of `text`, the offset in the original of the character it came from. */
  readonly origin: readonly number[];
  /** Runs of characters a person does not see, in the original's offsets. */
  readonly hidden: readonly HiddenRun[];
}

/** A run of characters hidden from a person, with what kind they are. */
export interface HiddenRun {
  readonly kind: HiddenKind;
  readonly start: number;
  readonly end: number;
}

/** What makes a run hidden. */
export type HiddenKind = 'invisible' | 'tag-characters' | 'bidi-control' | 'escape-sequence' | 'white-space';

/** Zero-width and other default-ignorable code points (U+200B–U+200D, U+2060–U+2064, U+FEFF, U+00AD, U+034F, variation selectors, …), as inclusive ranges. */
const INVISIBLE_RANGES: readonly (readonly [number, number])[] = [
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200d],
  [0x2060, 0x2064],
  [0x206a, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0100, 0xe01ef],
];
const isInvisible = (code: number) => INVISIBLE_RANGES.some(([low, high]) => code >= low && code <= high);
/** Bidirectional controls, which reorder what a person sees (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069). */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
/** A run of white space long enough to push text out of view: 20 spaces or tabs, or 5 line breaks. */
const LONG_SPACE = /[ \t\u00A0\u2000-\u200A\u3000]{20,}|(?:[ \t]*\r?\n){5,}/gu;
/** A terminal escape sequence (CSI or OSC), which can hide or recolour text in a terminal. */
const ESCAPE_SEQUENCE =
  /\u001B(?:\[[0-9;?]{0,32}[ -/]{0,4}[@-~]|\][^\u0007\u001B]{0,512}(?:\u0007|\u001B\\)?)/gu;

/**
 * Normalizes `input` for the hidden-instruction patterns.
 *
 * @example
 * normalizeText('Re\u200Bad ~/.ssh').text; // 'Read ~/.ssh'
 */
export function normalizeText(input: string): NormalizedText {
  const hidden: HiddenRun[] = [];
  const escapes = new Set<number>();
  for (const match of input.matchAll(ESCAPE_SEQUENCE)) {
    hidden.push({ kind: 'escape-sequence', start: match.index, end: match.index + match[0].length });
    for (let index = match.index; index < match.index + match[0].length; index++) escapes.add(index);
  }
  for (const match of input.matchAll(LONG_SPACE)) {
    hidden.push({ kind: 'white-space', start: match.index, end: match.index + match[0].length });
  }
  let text = '';
  const origin: number[] = [];
  let lastWasSpace = true;
  let index = 0;
  const push = (value: string, from: number) => {
    text += value;
    for (let unit = 0; unit < value.length; unit++) origin.push(from);
  };
  const note = (kind: HiddenKind, start: number, end: number) => {
    const last = hidden.at(-1);
    if (last !== undefined && last.kind === kind && last.end === start)
      hidden[hidden.length - 1] = { kind, start: last.start, end };
    else hidden.push({ kind, start, end });
  };
  for (const character of input) {
    const start = index;
    index += character.length;
    if (escapes.has(start)) continue;
    const code = character.codePointAt(0)!;
    if (code >= 0xe0000 && code <= 0xe007f) {
      note('tag-characters', start, index);
      // A tag character spells the ASCII letter 0xE0000 below it; read that letter too.
      if (code >= 0xe0020 && code <= 0xe007e) {
        push(String.fromCharCode(code - 0xe0000), start);
        lastWasSpace = code === 0xe0020;
      }
      continue;
    }
    if (BIDI.test(character)) {
      note('bidi-control', start, index);
      continue;
    }
    if (isInvisible(code)) {
      note('invisible', start, index);
      continue;
    }
    if (/\s/u.test(character)) {
      if (!lastWasSpace) push(character === '\n' || character === '\r' ? '\n' : ' ', start);
      else if ((character === '\n' || character === '\r') && text.endsWith(' ')) {
        text = `${text.slice(0, -1)}\n`;
      }
      lastWasSpace = true;
      continue;
    }
    push(character.normalize('NFKC'), start);
    lastWasSpace = false;
  }
  hidden.sort((a, b) => a.start - b.start);
  return { text, origin, hidden };
}

/** The original offsets `[start, end)` of the normalized range `[from, to)`. */
export function originalRange(
  normalized: NormalizedText,
  from: number,
  to: number,
  source: string,
): [number, number] {
  const start = normalized.origin[from] ?? source.length;
  const last = normalized.origin[Math.max(from, to - 1)] ?? start;
  const lastCode = source.codePointAt(last) ?? 0;
  return [start, last + (lastCode > 0xffff ? 2 : 1)];
}
