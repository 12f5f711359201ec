// Letters from other scripts that render like Latin ones (after NFKD and lower-casing), from the
// Unicode confusables data for the characters a tool name can hold. Both a denied pattern and a
// registered name are folded the same way, so a mapping can only widen what a deny rule catches.
const LOOK_ALIKES: { readonly [char: string]: string } = {
  а: 'a',
  в: 'b',
  с: 'c',
  ԁ: 'd',
  е: 'e',
  ё: 'e',
  һ: 'h',
  і: 'l',
  ї: 'l',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  ԛ: 'q',
  ѕ: 's',
  т: 't',
  ц: 'u',
  у: 'y',
  х: 'x',
  ԝ: 'w',
  ѵ: 'v',
  ɡ: 'g',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'l',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ɑ: 'a',
  ı: 'l',
  ℓ: 'l',
  '0': 'o',
  '1': 'l',
  i: 'l',
  '|': 'l',
};

/**
 * The skeleton of a tool or source name, for deny and ask rules: NFKD-normalized with accents dropped (so
 * full-width `ｄｅｌｅｔｅ` and `délete` are `delete`), lower-cased, look-alike letters mapped to one Latin letter (`і`, `1`,
 * `I` and `l` alike), and runs of `-`, `_`, `.` and spaces read as one `_`. Wildcards are kept.
 *
 * @example
 * foldName('Delete-File') === foldName('dеlete_fіle'); // true (Cyrillic е and і)
 */
export function foldName(name: string): string {
  const cached = folded.get(name);
  if (cached !== undefined) return cached;
  const result = fold(name);
  if (folded.size >= MAX_CACHED) folded.clear();
  folded.set(name, result);
  return result;
}

// The gate folds every call's tool name; a registry has few names, so each is folded once.
const MAX_CACHED = 1_000;
const folded = new Map<string, string>();

function fold(name: string): string {
  // NFKD splits full-width and accented letters into a base letter and marks; the marks are dropped.
  const bare = name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  let result = '';
  for (const char of bare) result += Object.hasOwn(LOOK_ALIKES, char) ? LOOK_ALIKES[char] : char;
  return result.replace(/[-_.\s]+/g, '_');
}
