import { frequencyRankIn, frequentForms } from './word-frequency';

/**
 * Which word a misspelling most likely stands for: a noisy-channel choice among the dictionary's
 * suggestions and the language's 10 000 most frequent forms. A candidate costs the edits from it to
 * what was typed, counted twice: once on the letters and once on how they sound (so "nueba" is
 * "nueva", not "buena"; "хлеп" is "хлеб", not "хлев"; "messa" is "mesa", not "nessa"), plus a
 * term for how rare it is (a frequent word is likelier meant; one neither frequent nor known to the
 * language's analyser least). Hunspell alone ranks by letters and offers no word two slips away
 * ("балшой" → "большой", "musik" → "musique").
 */

/** Costs of one edit, from the intended word to what was typed. */
const OMITTED = 0.8; // a letter left out ("favre" for "favore"): the commonest slip
const ADDED = 1;
const SUBSTITUTED = 1;
const SWAPPED = 0.8;
/** Edits of the sound key weigh full, of the letters half: a slip of the ear outweighs a slip of the key. */
const LETTER_WEIGHT = 0.5;
/** Beyond this many edits of the sound key a frequent form is not a candidate. */
const MAX_KEY_EDITS = 1.6;

/** Three DP rows reused by every call (the frequent-form scan makes thousands of them). */
let rows = [new Float64Array(32), new Float64Array(32), new Float64Array(32)];

/**
 * Edit cost from `intended` to `typed` (Damerau–Levenshtein, adjacent swaps, weighted as above, over
 * UTF-16 units: words are letters); gives up (Infinity) once every path costs more than `bound`.
 */
export function editCost(intended: string, typed: string, bound = Infinity): number {
  const n = intended.length;
  const m = typed.length;
  if (Math.abs(n - m) * Math.min(OMITTED, ADDED) > bound) return Infinity;
  if (m + 1 > rows[0]!.length) rows = rows.map(() => new Float64Array(m + 1));
  let [before, previous, row] = rows as [Float64Array, Float64Array, Float64Array];
  for (let j = 0; j <= m; j++) previous[j] = j * ADDED;
  for (let i = 1; i <= n; i++) {
    const a = intended.charCodeAt(i - 1);
    row[0] = i * OMITTED;
    let least = row[0];
    for (let j = 1; j <= m; j++) {
      const b = typed.charCodeAt(j - 1);
      let cost = Math.min(
        previous[j]! + OMITTED,
        row[j - 1]! + ADDED,
        previous[j - 1]! + (a === b ? 0 : SUBSTITUTED),
      );
      if (i > 1 && j > 1 && a !== b && a === typed.charCodeAt(j - 2) && intended.charCodeAt(i - 2) === b)
        cost = Math.min(cost, before[j - 2]! + SWAPPED);
      row[j] = cost;
      if (cost < least) least = cost;
    }
    if (least > bound) return Infinity;
    [before, previous, row] = [previous, row, before];
  }
  return previous[m]!;
}

/** Accents are the slips learners make most; Spanish ñ is a letter of its own, not an accented n. */
const stripAccents = (w: string) =>
  w
    .split('ñ')
    .map((part) => part.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC'))
    .join('ñ');

type SoundRules = Array<[RegExp, string]>;
/** Iberian c and q: soft before e and i, hard elsewhere; h silent. */
const IBERIAN_C: SoundRules = [
  [/c(?=[ei])/g, 's'],
  [/qu/g, 'k'],
  [/[cq]/g, 'k'],
  [/h/g, ''],
];
/**
 * How a word sounds, roughly, per language: the spellings learners confuse because they sound alike
 * map to one (Spanish b/v, c/s/z; Russian unstressed о/а and е/и, final devoicing, soft sign;
 * French qu/c/k; doubled letters everywhere).
 */
const SOUND_RULES: Record<string, SoundRules> = {
  es: [[/ll/g, 'y'], [/v/g, 'b'], [/z/g, 's'], ...IBERIAN_C],
  pt: [[/ç/g, 's'], [/ch/g, 'x'], ...IBERIAN_C],
  it: [
    [/c(?=[ei])/g, 'C'],
    [/ch/g, 'k'],
    [/qu/g, 'k'],
    [/[cq]/g, 'k'],
    [/h/g, ''],
  ],
  fr: [
    [/qu/g, 'k'],
    [/q/g, 'k'],
    [/c(?=[aou])/g, 'k'],
    [/ph/g, 'f'],
    [/e$/, ''],
  ],
  de: [
    [/ß/g, 'ss'],
    [/dt$/, 't'],
    [/d$/, 't'],
    [/ph/g, 'f'],
    [/v/g, 'f'],
    [/ie/g, 'i'],
  ],
  nl: [
    [/ij/g, 'ei'],
    [/d$/, 't'],
    [/ch/g, 'g'],
  ],
  ru: [
    [/[ьъ]/g, ''],
    [/ё/g, 'е'],
    [/о/g, 'а'],
    [/[ея]/g, 'и'],
    [/б$/, 'п'],
    [/в$/, 'ф'],
    [/г$/, 'к'],
    [/д$/, 'т'],
    [/ж$/, 'ш'],
    [/з$/, 'с'],
  ],
};

export function soundKey(language: string, word: string): string {
  let key = word.toLowerCase();
  if (language !== 'ru') key = stripAccents(key);
  for (const [pattern, replacement] of SOUND_RULES[language] ?? []) key = key.replace(pattern, replacement);
  return key.replace(/(.)\1+/gu, '$1');
}

/** Rarity: 0 for the commonest word, about 0.6 at rank 10 000; unranked words cost more. */
function rarity(language: string, word: string, known: (word: string) => boolean): number {
  const rank = frequencyRankIn(language, word);
  if (rank !== undefined) return 0.15 * Math.log10(rank);
  return known(word) ? 0.7 : 1.1;
}

/** The frequent forms of a language with their sound keys, by the key's length, built once per language. */
const keyedForms = new Map<string, Array<Array<[string, string]>>>();
function frequentKeyed(language: string): Array<Array<[string, string]>> {
  let byLength = keyedForms.get(language);
  if (!byLength) {
    byLength = [];
    for (const form of frequentForms(language, 10_000)) {
      const key = soundKey(language, form);
      (byLength[key.length] ??= []).push([form, key]);
    }
    keyedForms.set(language, byLength);
  }
  return byLength;
}

/** Builds every language's keyed frequent forms now (~20 ms a language), not in a first request. */
export function warmUpSpellingChoice(languages: readonly string[]): void {
  for (const language of languages) frequentKeyed(language);
}

/**
 * The likeliest intended word for `typed`, among Hunspell's `suggestions` and the language's frequent
 * forms; undefined when neither offers one. `known`: the language's analyser knows the word.
 */
export function likeliestIntended(
  language: string,
  typed: string,
  suggestions: readonly string[],
  known: (word: string) => boolean,
): string | undefined {
  const lower = typed.toLowerCase();
  const typedKey = soundKey(language, typed);
  const candidates = new Map<string, number>();
  for (const s of suggestions) candidates.set(s, editCost(soundKey(language, s), typedKey));
  // a key more than two letters longer or shorter is more than MAX_KEY_EDITS away
  const byLength = frequentKeyed(language);
  for (let length = Math.max(0, typedKey.length - 2); length <= typedKey.length + 2; length++)
    for (const [form, key] of byLength[length] ?? []) {
      if (form === lower || candidates.has(form)) continue;
      const cost = editCost(key, typedKey, MAX_KEY_EDITS);
      if (cost <= MAX_KEY_EDITS) candidates.set(form, cost);
    }
  let best: string | undefined;
  let bestScore = Infinity;
  for (const [candidate, keyCost] of candidates) {
    // Hunspell's suggestions may be multi-word or capitalised; the letters compare lower-cased
    const score =
      keyCost + LETTER_WEIGHT * editCost(candidate.toLowerCase(), lower) + rarity(language, candidate, known);
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  // the typed word's case: "Buhc" → "Buch", "Kafee" → "Kaffee" (a list form is lower-cased)
  if (best && !suggestions.includes(best) && typed[0] !== lower[0])
    return best[0]!.toUpperCase() + best.slice(1);
  return best;
}
