/**
 * Text analysis shared by the index and its queries: identifiers split into words, Chinese and other
 * scripts without spaces segmented with `Intl.Segmenter`, case folded, stop-words dropped and English
 * inflections reduced to one stem. A query and a tool go through the same steps, so they meet on the
 * same terms.
 */

/** How text becomes terms; every step can be switched off (the plain baseline switches most off). */
export interface AnalyzeOptions {
  /** Drop English function words ("the", "of", "please"); default true. */
  readonly stopWords?: boolean;
  /** Reduce English inflections ("reports", "reporting" → "report"); default true. */
  readonly stem?: boolean;
}

// Scripts written without spaces between words: Han, Hiragana, Katakana, Hangul, Thai and friends.
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

let segmenter: Intl.Segmenter | undefined;

// The words of each run and the stem of each word seen, since a vocabulary repeats far more than it
// grows; each cache starts over once it holds CACHE_LIMIT entries, so hostile input cannot grow it.
const CACHE_LIMIT = 50_000;
const RUNS = new Map<string, readonly string[]>();
const STEMS = new Map<string, string>();

function remember<Value>(cache: Map<string, Value>, key: string, value: Value): void {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
}

/**
 * The words of an identifier or a text: `getWaterQuality`, `get_water_quality`, `water.quality` and
 * `HTTPServer2` all split at their word boundaries, lower-cased; runs of Chinese (or another script
 * written without spaces) come out as the words `Intl.Segmenter` finds.
 *
 * @example
 * splitWords('getHTTPResponse_code'); // ['get', 'http', 'response', 'code']
 * splitWords('查询天气 weather'); // ['查询', '天气', 'weather']
 */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const run = match[0];
    const known = RUNS.get(run);
    if (known) {
      for (const word of known) words.push(word);
      continue;
    }
    const start = words.length;
    if (UNSPACED.test(run)) {
      segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
      for (const piece of segmenter.segment(run)) {
        if (piece.isWordLike) pushIdentifier(piece.segment, words);
      }
    } else {
      pushIdentifier(run, words);
    }
    remember(RUNS, run, words.slice(start));
  }
  return words;
}

function pushIdentifier(run: string, words: string[]): void {
  const spaced = run
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2');
  for (const word of spaced.split(' ')) if (word) words.push(word.toLowerCase());
}

/**
 * The index terms of a text: {@link splitWords}, then stop-words out and stems in (as `options` say).
 *
 * @example
 * analyze('Retrieves the reports of a user'); // ['retriev', 'report', 'user']
 */
export function analyze(text: string, options: AnalyzeOptions = {}): string[] {
  const stopWords = options.stopWords !== false;
  const stem = options.stem !== false;
  const terms: string[] = [];
  for (const word of splitWords(text)) {
    if (stopWords && STOP_WORDS.has(word)) continue;
    terms.push(stem ? stemWord(word) : word);
  }
  return terms;
}

/**
 * A light English stemmer: plural and verb endings off, so "analyses", "analyzing" and "analyze" meet.
 * It is deliberately conservative (no derivational suffixes such as -ation or -ment): a word it does
 * not know the ending of stays as it is, and non-Latin words pass through untouched.
 *
 * @example
 * stemWord('companies'); // 'compani'
 * stemWord('running'); // 'run'
 */
export function stemWord(word: string): string {
  const known = STEMS.get(word);
  if (known !== undefined) return known;
  const stem = stemUncached(word);
  remember(STEMS, word, stem);
  return stem;
}

function stemUncached(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let stem = word;
  if (stem.endsWith('sses')) stem = stem.slice(0, -2);
  else if (stem.endsWith('ies')) stem = `${stem.slice(0, -3)}i`;
  else if (stem.endsWith('s') && !/(?:ss|us|is)$/.test(stem)) stem = stem.slice(0, -1);
  for (const suffix of ['ing', 'ed'] as const) {
    if (stem.endsWith(suffix) && /[aeiouy]/.test(stem.slice(0, -suffix.length))) {
      const base = stem.slice(0, -suffix.length);
      if (base.length < 3) break;
      stem = /([b-df-hj-np-tv-z])\1$/.test(base) && !/(?:ll|ss|zz)$/.test(base) ? base.slice(0, -1) : base;
      break;
    }
  }
  if (stem.endsWith('y') && stem.length > 3 && !/[aeiou]y$/.test(stem)) stem = `${stem.slice(0, -1)}i`;
  if (stem.endsWith('e') && stem.length > 4) stem = stem.slice(0, -1);
  return stem;
}

// English function words and the request phrasing of agent queries ("please help me …"); content words
// that could name what a tool does (get, list, find, use) are kept.
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about after again also am an and any are as at be been before being both but by can could did do ' +
    'does doing during each for from had has have having he her here hers him his how i if in into is it ' +
    'its itself just me more most my myself no nor not now of off on once only or other our ours out over ' +
    'own please same she should so some such than that the their theirs them then there these they this ' +
    'those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours e g eg etc'
  ).split(' '),
);
