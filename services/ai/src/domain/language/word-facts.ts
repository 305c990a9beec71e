import type {
  BilingualDictionary,
  DictionaryEntry,
  DictionaryExample,
  Lexicon,
  Morphology,
  Reading,
  Sense,
  WordClass,
} from './language-data';
import type { PartOfSpeech } from './nlp';
import { commonnessIn, frequencyRank } from './word-frequency';

/** The dictionary's part-of-speech marks, as word classes. */
const CLASS_OF_MARK: Record<string, WordClass> = {
  n: 'noun',
  noun: 'noun',
  v: 'verb',
  vt: 'verb',
  vi: 'verb',
  verb: 'verb',
  adj: 'adjective',
  adv: 'adverb',
};

/** The word class an entry's part-of-speech mark names, if it names one. */
export const classOfEntry = (entry: DictionaryEntry): WordClass | undefined =>
  entry.partOfSpeech ? CLASS_OF_MARK[entry.partOfSpeech] : undefined;

export const wordClassOf = (pos: PartOfSpeech | string | undefined): WordClass | undefined =>
  pos === 'noun' || pos === 'verb' || pos === 'adjective' || pos === 'adverb' ? pos : undefined;

/** Subject labels of everyday vocabulary: an entry with only these is not specialist. */
const EVERYDAY_LABELS = new Set([
  'Am.',
  'Br.',
  'coll.',
  'fig.',
  'ugs.',
  'übtr.',
  'geh.',
  'zool.',
  'bot.',
  'cook.',
  'soc.',
  // Mueller's English–Russian marks: American, colloquial, figurative, zoology, botany, cooking
  'ам.',
  'разг.',
  'перен.',
  'зоол.',
  'бот.',
  'кул.',
]);

/** What the data tells of a translation in its own language, to choose among entries and translations. */
export interface ChoiceEvidence {
  /** how common a translation is in its language (commonnessIn) */
  commonness?: (translation: string) => number;
  /**
   * How directly the reverse dictionary leads from a translation back to the word: 2 when the word
   * is the first translation of one of its entries ("sing" → singen), 1 when a later one ("cough" →
   * auspacken, singen), 0 when none
   */
  leadsBack?: (translation: string) => number;
  /** the word classes a translation has in its language (WordNet, the reverse dictionary's marks), if known */
  classesOf?: (translation: string) => WordClass[] | undefined;
  /**
   * A translation's frequency rank (1 the most frequent), given only where a list ranks the words
   * finely enough to compare near-synonyms (English: SUBTLEX)
   */
  rank?: (translation: string) => number | undefined;
  /** whether the word is the first translation of a translation's first entry (its main sense) */
  mainlyLeadsBack?: (translation: string) => boolean;
}

/** How many of an entry's translations are weighed against each other: later ones are rarer senses. */
const WEIGHED_TRANSLATIONS = 4;
/** How many of an entry's translations are asked whether they lead back to the word (each costs a look-up). */
const CHECKED_TRANSLATIONS = 8;
/**
 * How many times more frequent a near-synonym must be to be shown before the dictionary's first:
 * "meat" (rank 1468) before "flesh" (2459), never "ever" before "always" (ranks a few apart).
 */
const CLEARLY_MORE_FREQUENT = 1.5;

/** +1 when a translation has the class asked, -1 when the data knows it only in others, 0 when unknown. */
function agreement(t: string, pos: WordClass | undefined, evidence: ChoiceEvidence): number {
  const classes = pos ? evidence.classesOf?.(t) : undefined;
  return classes === undefined ? 0 : classes.includes(pos!) ? 1 : -1;
}

/**
 * An entry's translations in the order a learner wants them: its most common first (mostCommonFirst);
 * then, unless its senses are in an order that means something, those of the class asked before those
 * of another (an unmarked entry may mix them: "close" → fermer, intime, proche), and, when `leadsBack`
 * is asked, those that lead straight back to the word before those that lead back only as a later
 * sense ("Kirche" → church before service).
 */
function orderedTranslations(
  entry: DictionaryEntry,
  pos: WordClass | undefined,
  evidence: ChoiceEvidence,
  leadsBack: ChoiceEvidence['leadsBack'],
) {
  const common = evidence.commonness ? mostCommonFirst(entry, evidence.commonness) : entry.translations;
  if (entry.sensesInOrder) return common;
  const checked = common.slice(0, CHECKED_TRANSLATIONS);
  const marked = classOfEntry(entry) !== undefined;
  const key = new Map(
    checked.map((t) => [
      t,
      (marked ? 0 : agreement(t, pos, evidence) * 4) +
        (leadsBack?.(t) ?? 0) +
        (evidence.commonness?.(t) ?? 0),
    ]),
  );
  const sorted = checked.sort((a, b) => key.get(b)! - key.get(a)!);
  return [...plainestFirst(sorted, key, leadsBack, evidence), ...common.slice(CHECKED_TRANSLATIONS)];
}

/**
 * Among the translations that tie first (same class, same weight of leading back to the word and of
 * commonness), the plainest word first when it is clearly more frequent: dictionaries list
 * near-synonyms in no order that means anything ("carne": flesh, meat; "pequeno": tiny, diminutive,
 * little, small). Only when the first leads back to the word (a frequent word that does not is
 * another sense: "сухой" is dry, not dead), and, when the word is the first's main sense ("mouse" →
 * muis), only a word whose main sense it is too ("ball" reaches muis through a minor entry of its own).
 */
function plainestFirst(
  sorted: string[],
  key: Map<string, number>,
  leadsBack: ChoiceEvidence['leadsBack'],
  { rank, mainlyLeadsBack }: ChoiceEvidence,
): string[] {
  const first = sorted[0];
  if (!rank || !mainlyLeadsBack || !leadsBack || first === undefined || !leadsBack(first)) return sorted;
  const rankOf = (t: string) => rank(t) ?? Infinity;
  const firstIsMain = mainlyLeadsBack(first);
  const plainest = sorted
    .filter((t) => key.get(t) === key.get(first) && (t === first || !firstIsMain || mainlyLeadsBack(t)))
    .reduce((best, t) => (rankOf(t) < rankOf(best) ? t : best));
  if (plainest === first || rankOf(plainest) * CLEARLY_MORE_FREQUENT > rankOf(first)) return sorted;
  return [plainest, ...sorted.filter((t) => t !== plainest)];
}

/**
 * Which of a headword's entries a learner wants, with its translations in the order shown: the entry
 * of the right part of speech (as marked, or as the data knows its translation), with the most
 * examples (the dictionary's main sense carries them), without specialist labels, whose translation
 * is common and leads back to the word, earliest first.
 */
export function bestChoice(
  entries: DictionaryEntry[],
  pos: WordClass | undefined,
  evidence: ChoiceEvidence = {},
): { entry: DictionaryEntry; translations: string[] } | undefined {
  const scoreOf = (e: DictionaryEntry, leadsBack: ChoiceEvidence['leadsBack']) => {
    const translations = orderedTranslations(e, pos, evidence, leadsBack);
    const shown = translations[0]!;
    const cls = classOfEntry(e);
    let score = Math.min(e.examples.length, 3);
    if (pos && cls) score += cls === pos ? 3 : -3;
    else score += agreement(shown, pos, evidence) * 3;
    // reviewed bilingual data first: outweighs a FreeDict entry's examples, never the class asked
    if (e.primary) score += 4;
    score -= e.labels.filter((l) => !EVERYDAY_LABELS.has(l)).length * 2;
    if (evidence.commonness) score += evidence.commonness(shown);
    return { score, shown, translations };
  };
  const scored = entries
    .filter((e) => e.translations.length > 0)
    .map((e, order) => ({ e, order, ...scoreOf(e, undefined) }))
    .sort((a, b) => b.score - a.score || a.order - b.order);
  // the reverse dictionary leads back to the word: the everyday equivalent, not a figurative one
  // (asked only of candidates that could still win with it, each a look-up per translation: one
  // entry, or a clear leader, needs no comparison between entries)
  const top = scored[0]?.score ?? 0;
  if (evidence.leadsBack)
    for (const c of scored.slice(0, 3).filter((x) => x.score + 4 >= top)) {
      Object.assign(c, scoreOf(c.e, evidence.leadsBack));
      if (scored.length > 1) c.score += evidence.leadsBack(c.shown) * 2;
    }
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  const best = scored[0];
  return best && { entry: best.e, translations: best.translations };
}

/** The entry bestChoice chooses. */
export const bestEntry = (
  entries: DictionaryEntry[],
  pos: WordClass | undefined,
  evidence: ChoiceEvidence = {},
) => bestChoice(entries, pos, evidence)?.entry;

export interface TranslationFacts {
  /** the headword found (a base form of the word asked) */
  headword: string;
  translation: string;
  /** further translations of the same entry */
  alternatives: string[];
  /** an example of the dictionary with its translation, when the entry has one */
  example: DictionaryExample | undefined;
  /** the entry chosen */
  entry: DictionaryEntry;
}

/**
 * An entry's translations with the first of its most common ones first, when that is more common
 * than the entry's first ("window": Sichtfenster, Fenster → Fenster); otherwise, and always for an
 * entry whose senses are in order, in the dictionary's order.
 */
export function mostCommonFirst(
  entry: DictionaryEntry,
  commonness: (translation: string) => number,
): string[] {
  const { translations } = entry;
  if (entry.sensesInOrder) return translations;
  const weighed = translations.slice(0, WEIGHED_TRANSLATIONS).map(commonness);
  const best = weighed.indexOf(Math.max(...weighed));
  if (best <= 0) return translations;
  return [translations[best]!, ...translations.filter((_, i) => i !== best)];
}

/**
 * Translations into English in the dictionary form of the card's class, as a card's headword is:
 * dictionaries give inflected forms ("kaufen" → "buying", "vergessen" → "forgotten"); WordNet's
 * morphology reduces a single word that is no lemma of that class itself (a "buying" is a noun, not
 * a verb: buy). A form WordNet lists as a lemma of its own stays ("windows"). Multi-word translations
 * are kept as they are.
 */
function inDictionaryForm(
  translations: string[],
  language: string,
  pos: WordClass | undefined,
  lexicon: Lexicon | undefined,
): string[] {
  if (language !== 'en' || !pos || !lexicon) return translations;
  const reduced = translations.map((t) => {
    if (/\s/.test(t) || lexicon.senses(t, pos).length > 0) return t;
    return lexicon.baseForms(t, pos).find((b) => b !== t && lexicon.senses(b, pos).length > 0) ?? t;
  });
  return [...new Set(reduced)];
}

/**
 * A dictionary whose look-ups are remembered for one translation: the reverse dictionary is asked of
 * each translation weighed for its class and for whether it leads back, the forward one again by the
 * second pass of translateWordAnalysed.
 */
function remembered(d: BilingualDictionary): BilingualDictionary {
  const seen = new Map<string, DictionaryEntry[]>();
  return {
    ...d,
    lookup(headword) {
      let entries = seen.get(headword);
      if (!entries) seen.set(headword, (entries = d.lookup(headword)));
      return entries;
    },
  };
}

/** A translation as a headword of the reverse dictionary: "(sich) freuen" → "freuen". */
const asHeadword = (t: string) => t.replace(/\s*\([^)]*\)\s*/g, ' ').trim();

/** ChoiceEvidence.leadsBack: 2 when the word is the first translation of one of t's entries, 1 a later one. */
function leadsBack(reverse: BilingualDictionary, t: string, word: string): number {
  let best = 0;
  for (const e of reverse.lookup(asHeadword(t))) {
    if (e.readBackwards) continue;
    const i = e.translations.findIndex((x) => x.toLowerCase() === word);
    if (i === 0) return 2;
    if (i > 0) best = 1;
  }
  return best;
}

/** Whether the word is the first translation of t's first entry: t's main sense is the word's. */
function mainSenseLeadsBack(reverse: BilingualDictionary, t: string, word: string): boolean {
  const main = reverse.lookup(asHeadword(t)).find((e) => !e.readBackwards && e.translations.length > 0);
  return main?.translations[0]?.toLowerCase() === word;
}

const WORD_CLASSES: WordClass[] = ['noun', 'verb', 'adjective', 'adverb'];

/**
 * The word classes a translation has in its language: English's from WordNet (a form counts by its
 * base form: "buying" is a verb form); the others' from the reverse dictionary's part-of-speech marks,
 * of the entries that lead back to the word where some do ("Schlaf" → sleep is a noun), unless the
 * language's analyser (formsIn) knows the word. Undefined when the data does not tell (an unmarked
 * dictionary, a word no analyser knows, a phrase WordNet does not know).
 */
function classesIn(
  language: string,
  lexicon: Lexicon | undefined,
  reverse: BilingualDictionary | undefined,
  formsIn: ((t: string) => WordClass[] | undefined) | undefined,
): ((t: string, word: string) => WordClass[] | undefined) | undefined {
  if (language === 'en' && lexicon)
    return (t) => {
      const plain = asHeadword(t);
      const known = WORD_CLASSES.filter((c) =>
        [plain, ...lexicon.baseForms(plain, c)].some((b) => lexicon.senses(b, c).length > 0),
      );
      return known.length ? known : undefined;
    };
  if (!reverse && !formsIn) return undefined;
  return (t, word) => {
    const forms = formsIn?.(t);
    if (forms !== undefined || !reverse) return forms;
    const marked = reverse.lookup(asHeadword(t)).filter((e) => classOfEntry(e));
    const leading = marked.filter((e) => e.translations.some((x) => x.toLowerCase() === word));
    const known = [...new Set((leading.length ? leading : marked).map((e) => classOfEntry(e)!))];
    return known.length ? known : undefined;
  };
}

/**
 * Translates a word: its dictionary forms (`bases`), the word itself (first when it is one of them),
 * then its base forms (English: WordNet's morphology), looked up until a headword has entries; a noun
 * the dictionary lists as written with a meaning of its own is translated as written (ownMeaning).
 * Undefined when the dictionary has none.
 */
export function translateWord(
  dictionary: BilingualDictionary,
  word: string,
  pos: WordClass | undefined,
  lexicon: Lexicon | undefined,
  reverse?: BilingualDictionary,
  /** dictionary forms of the word from a morphological analyser, asked before the word itself */
  bases: string[] = [],
  /** the classes of which a translation is a dictionary form, from the target language's analyser */
  formsIn?: (translation: string) => WordClass[] | undefined,
): TranslationFacts | undefined {
  if (reverse) reverse = remembered(reverse);
  // common words of the target language first, whatever the pair (commonnessIn)
  const commonness = commonnessIn(dictionary.to);
  // the word as written first when the analyser reads it as a dictionary form of its own ("море" is
  // sea before it is a form of мор; "verliezen" to lose before the plural of verlies), else its
  // dictionary forms first
  const itself = bases.find((b) => b.toLowerCase() === word.toLowerCase());
  const candidates = [...new Set([...(itself ? [itself] : []), ...bases, word])];
  if (dictionary.from === 'en' && lexicon)
    for (const b of [...lexicon.baseForms(word, pos), ...lexicon.baseForms(word)])
      if (!candidates.includes(b)) candidates.push(b);
  // every form in the dictionaries first, then through other languages (lookupIndirect)
  const direct = (h: string) => dictionary.lookup(h);
  const lookups = [direct];
  // through other languages only in the sense asked: a pivot word of another class is another sense
  if (dictionary.lookupIndirect)
    lookups.push((h) =>
      dictionary.lookupIndirect!(h).filter((e) => !pos || !classOfEntry(e) || classOfEntry(e) === pos),
    );
  const classesOf = classesIn(dictionary.to, lexicon, reverse, formsIn);
  const translateAs = (
    headword: string,
    lookup: (h: string) => DictionaryEntry[],
  ): TranslationFacts | undefined => {
    const h = headword.toLowerCase();
    const evidence: ChoiceEvidence = {
      commonness,
      leadsBack: reverse && ((t) => leadsBack(reverse, t, h)),
      classesOf: classesOf && ((t) => classesOf(t, h)),
      ...(dictionary.to === 'en' &&
        reverse && {
          rank: (t: string) => frequencyRank(asHeadword(t)),
          mainlyLeadsBack: (t: string) => mainSenseLeadsBack(reverse!, t, h),
        }),
    };
    const choice = bestChoice(lookup(headword), pos, evidence);
    if (!choice) return undefined;
    const { entry } = choice;
    const example = cardExample(entry.examples, headword);
    const translations = inDictionaryForm(
      choice.translations,
      dictionary.to,
      pos ?? classOfEntry(entry),
      lexicon,
    );
    return {
      headword,
      translation: translations[0]!,
      alternatives: translations.slice(1, 4),
      example,
      entry,
    };
  };
  for (const lookup of lookups)
    for (const headword of candidates) {
      const found = translateAs(headword, lookup);
      if (!found) continue;
      const written = itself || !bases.includes(found.headword) ? undefined : ownMeaning(found);
      return written ?? found;
    }
  return undefined;

  /**
   * The word as written, when the dictionary lists it with a meaning of its own: analysers give a
   * feminine noun its masculine as lemma ("hija" → hijo, "figlia" → figlio), which is another word
   * (son, not daughter); a plural or a tense the dictionary lists too means what its lemma means
   * ("Kinder": children, a form of child; "ging": walked, a form of one of gehen's) and stays with
   * its lemma. Told by English's morphology: for nouns and look-ups into English only.
   */
  function ownMeaning(byLemma: TranslationFacts): TranslationFacts | undefined {
    if (dictionary.to !== 'en' || !lexicon || (pos !== undefined && pos !== 'noun')) return undefined;
    const asWritten = translateAs(word, direct);
    if (!asWritten) return undefined;
    // what the lemma's entries say (not a reviewed pair read backwards: Apertium's hijo reads back
    // as son and daughter, one lemma for both genders), against what the word as written would show
    const lemmas = new Set(
      direct(byLemma.headword)
        .filter((e) => !e.readBackwards)
        .flatMap((e) => e.translations.slice(0, WEIGHED_TRANSLATIONS))
        .map((t) => asHeadword(t).toLowerCase()),
    );
    const shown = asHeadword(asWritten.translation).toLowerCase();
    const sameMeaning = [shown, ...lexicon.baseForms(shown)].some((t) => lemmas.has(t));
    return sameMeaning ? undefined : asWritten;
  }
}

/**
 * The classes of which a word is a dictionary form, from its analyser's readings ("ajuda": noun, though
 * also a form of ajudar); undefined when it has no reading as a dictionary form.
 */
function dictionaryFormClasses(word: string, readings: Reading[] | undefined): WordClass[] | undefined {
  const w = word.toLowerCase();
  const own = (readings ?? []).filter((r) => r.lemma.toLowerCase() === w);
  // an analyser that reads no class ("other": German Hunspell's adjectives) does not tell
  if (!own.length || own.some((r) => r.partOfSpeech === 'other')) return undefined;
  return [...new Set(own.map((r) => r.partOfSpeech as WordClass))];
}

/**
 * translateWord with the target language's analyser as evidence of each translation's class, where
 * the class matters (a card's part of speech) and the target is not English (WordNet's): "help" as
 * a verb is ajudar, not ajuda. One batch: the translations weighed are gathered by a first pass.
 */
export async function translateWordAnalysed(
  target: Morphology | undefined,
  /** translateWord's arguments; its formsIn is this function's to give */
  ...args: Parameters<typeof translateWord>
): Promise<TranslationFacts | undefined> {
  const [given, word, pos, lexicon, reverse, bases] = args;
  if (!target || !pos || given.to === 'en') return translateWord(given, word, pos, lexicon, reverse, bases);
  // the second pass asks the same words again (translateWord remembers the reverse dictionary's)
  const dictionary = remembered(given);
  // the translations weighed are an entry's first ones whatever their order: the reverse dictionary,
  // which only orders them, is not asked in this pass
  const asked = new Set<string>();
  translateWord(dictionary, word, pos, lexicon, undefined, bases, (t) => {
    if (!/\s/.test(t)) asked.add(t);
    return undefined;
  });
  const readings = asked.size
    ? await target.analyse([...asked]).catch(() => new Map<string, Reading[]>())
    : new Map<string, Reading[]>();
  return translateWord(dictionary, word, pos, lexicon, reverse, bases, (t) =>
    dictionaryFormClasses(t, readings.get(t)),
  );
}

/**
 * The dictionary example that makes a card: a phrase of two to eight words that contains the word
 * (not a conjugation table such as "I/he/she cooked"), the shortest such.
 */
export function cardExample(examples: DictionaryExample[], word: string): DictionaryExample | undefined {
  const stem = word.toLowerCase().slice(0, Math.max(3, word.length - 2));
  return examples
    .filter((e) => {
      const words = e.source.split(/\s+/).length;
      return words >= 2 && words <= 8 && !e.source.includes('/') && e.source.toLowerCase().includes(stem);
    })
    .sort((a, b) => a.source.length - b.source.length)[0];
}

export interface SenseFacts {
  lemma: string;
  sense: Sense;
  /** the other words of the chosen sense */
  synonyms: string[];
  /** an example sentence of WordNet that uses the word (or a form of it), if any */
  example: string | undefined;
}

/** The word's main meaning in WordNet (its first sense of the class asked, else its first sense). */
export function englishSense(
  lexicon: Lexicon,
  word: string,
  pos: WordClass | undefined,
): SenseFacts | undefined {
  const lemmas = [...lexicon.baseForms(word, pos), ...(pos ? lexicon.baseForms(word) : [])];
  for (const lemma of lemmas) {
    const senses = lexicon.senses(lemma, pos);
    const all = senses.length ? senses : lexicon.senses(lemma);
    const sense = all[0];
    if (!sense) continue;
    // synonyms of this meaning only: other senses' words ("house" → "firm") would mislead
    const synonyms = sense.synonyms.filter((syn) => syn.toLowerCase() !== lemma.toLowerCase());
    const stem = lemma.toLowerCase().slice(0, Math.max(3, lemma.length - 2));
    const example = all
      .filter((s) => s.partOfSpeech === sense.partOfSpeech)
      .flatMap((s) => s.examples)
      .find((e) => e.toLowerCase().includes(stem));
    return { lemma, sense, synonyms: synonyms.slice(0, 5), example };
  }
  return undefined;
}
