import type {
  BilingualDictionary,
  DictionaryEntry,
  DictionaryExample,
  Lexicon,
  Sense,
  WordClass,
} from './language-data';
import type { PartOfSpeech } from './nlp';
import { commonnessIn } from './word-frequency';

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

/**
 * Which of a headword's entries a learner wants: the one of the right part of speech, with the most
 * examples (the dictionary's main sense carries them), without specialist labels, earliest first.
 */
export function bestEntry(
  entries: DictionaryEntry[],
  pos: WordClass | undefined,
  backTranslates?: (translation: string) => boolean,
  commonness?: (translation: string) => number,
): DictionaryEntry | undefined {
  const scored = entries
    .filter((e) => e.translations.length > 0)
    .map((e, order) => {
      const cls = e.partOfSpeech ? CLASS_OF_MARK[e.partOfSpeech] : undefined;
      let score = Math.min(e.examples.length, 3);
      if (pos && cls) score += cls === pos ? 3 : -3;
      // reviewed bilingual data first: outweighs a FreeDict entry's examples, never the class asked
      if (e.primary) score += 4;
      score -= e.labels.filter((l) => !EVERYDAY_LABELS.has(l)).length * 2;
      // the translation shown is the entry's most common (mostCommonFirst): it is the one weighed
      const shown = commonness ? mostCommonFirst(e, commonness)[0]! : e.translations[0]!;
      if (commonness) score += commonness(shown);
      return { e, score, order, shown };
    })
    .sort((a, b) => b.score - a.score || a.order - b.order);
  // the reverse dictionary leads back to the word: the everyday equivalent, not a figurative one
  // (asked only of candidates that could still win with it: one entry, or a clear leader, needs none)
  const top = scored[0]?.score ?? 0;
  if (backTranslates && scored.length > 1)
    for (const c of scored.slice(0, 3).filter((x) => x.score + 4 >= top))
      if (backTranslates(c.shown)) c.score += 4;
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored[0]?.e;
}

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

/** How many of an entry's translations are weighed against each other: later ones are rarer senses. */
const WEIGHED_TRANSLATIONS = 4;

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
 * Translates a word: its dictionary forms (`bases`), the word itself, then its base forms (English:
 * WordNet's morphology), looked up until a headword has entries. Undefined when the dictionary has none.
 */
export function translateWord(
  dictionary: BilingualDictionary,
  word: string,
  pos: WordClass | undefined,
  lexicon: Lexicon | undefined,
  reverse?: BilingualDictionary,
  /** dictionary forms of the word from a morphological analyser, asked before the word itself */
  bases: string[] = [],
): TranslationFacts | undefined {
  // common words of the target language first, whatever the pair (commonnessIn)
  const commonness = commonnessIn(dictionary.to);
  const candidates = [...new Set([...bases, word])];
  if (dictionary.from === 'en' && lexicon)
    for (const b of [...lexicon.baseForms(word, pos), ...lexicon.baseForms(word)])
      if (!candidates.includes(b)) candidates.push(b);
  // every form in the dictionaries first, then through other languages (lookupIndirect)
  const lookups = [(h: string) => dictionary.lookup(h)];
  // through other languages only in the sense asked: a pivot word of another class is another sense
  if (dictionary.lookupIndirect)
    lookups.push((h) =>
      dictionary.lookupIndirect!(h).filter((e) => !pos || !classOfEntry(e) || classOfEntry(e) === pos),
    );
  for (const lookup of lookups)
    for (const headword of candidates) {
      const h = headword.toLowerCase();
      const backTranslates = reverse
        ? (t: string) =>
            reverse
              .lookup(t.replace(/\s*\([^)]*\)\s*/g, ' ').trim())
              .some((e) => e.translations.some((x) => x.toLowerCase() === h))
        : undefined;
      const entry = bestEntry(lookup(headword), pos, backTranslates, commonness);
      if (!entry) continue;
      const example = cardExample(entry.examples, headword);
      const translations = inDictionaryForm(
        mostCommonFirst(entry, commonness),
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
    }
  return undefined;
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
