import type { PartOfSpeech } from './nlp';

/**
 * The ports through which the offline provider reads language data. The domain owns them;
 * data-access/ implements them on WordNet and FreeDict files, start.ts wires them in.
 */

export type WordClass = 'noun' | 'verb' | 'adjective' | 'adverb';

/** One meaning of an English word (a WordNet synset seen from one of its words). */
export interface Sense {
  partOfSpeech: WordClass;
  definition: string;
  /** example sentences as the data gives them (may use another word of the synset) */
  examples: string[];
  /** the other words of the synset */
  synonyms: string[];
  /** the lexicographer file (WordNet's coarse topic), e.g. `noun.food` */
  topic: string;
}

/** English monolingual data: morphology, meanings, a hierarchy for themes. */
export interface Lexicon {
  /** known base forms of a (possibly inflected) word, for one class or all; the word itself first if known */
  baseForms(word: string, pos?: WordClass): string[];
  /** meanings of a base form, most frequent first */
  senses(lemma: string, pos?: WordClass): Sense[];
  /**
   * Single words under a theme ("food", "the body", "travel"): the hyponyms, parts and topic-domain
   * members of the theme word's first senses, nearest first. Empty when the theme is not a known word.
   * Only words for which that is their main meaning come, unless `loose` (one of their first three).
   */
  themeWords(theme: string, loose?: boolean): string[];
}

/** A dictionary example: a phrase and its translation as the dictionary prints them. */
export interface DictionaryExample {
  source: string;
  target: string;
}

/** One entry of a bilingual dictionary. */
export interface DictionaryEntry {
  headword: string;
  /** part of speech as the dictionary marks it (`n`, `v`, `adj`…), when it does */
  partOfSpeech: string | undefined;
  /** IPA as the dictionary prints it, when it does */
  pronunciation: string | undefined;
  /** translations in the dictionary's order, grammar marks and subject labels removed */
  translations: string[];
  examples: DictionaryExample[];
  /** subject labels such as `techn.`, `zool.` */
  labels: string[];
  /**
   * Set when no dictionary of the pair has the word and the translation was found through other
   * languages instead (English → each of these → the target, all agreeing): not a direct entry.
   */
  via?: string[];
  /**
   * From a reviewed bilingual dictionary that tags every entry with its part of speech (Apertium's):
   * preferred over a FreeDict entry of the same class.
   */
  primary?: boolean;
  /**
   * Set when the translations are in an order that means something (Mueller's numbered senses, the
   * pivots' agreement): the first is the translation, however common a later one is (mostCommonFirst).
   */
  sensesInOrder?: boolean;
  /**
   * A reviewed dictionary of the other direction read backwards (Apertium's English → Spanish as
   * Spanish → English): as evidence that a translation leads back to the word it only repeats that
   * dictionary ("clave" and "llave" both read back as key), so it is not asked for it.
   */
  readBackwards?: boolean;
}

/** A bilingual dictionary from one language to another. */
export interface BilingualDictionary {
  readonly from: string;
  readonly to: string;
  /** entries for a headword (case-insensitive), in the dictionary's order */
  lookup(headword: string): DictionaryEntry[];
  /**
   * Entries found indirectly (through other languages, marked `via`), asked only when no form of the
   * word has a direct entry.
   */
  lookupIndirect?(headword: string): DictionaryEntry[];
}

/** Why a piece of data is not there (a missing package, an unreadable file). */
export interface DataStatus {
  name: string;
  available: boolean;
  /** where it is read from */
  source: string;
  message: string;
}

/** One reading of a word: its dictionary form and word class. */
export interface Reading {
  lemma: string;
  /** noun, verb, adjective, adverb; `other` for the rest (determiners, pronouns, names…) */
  partOfSpeech: WordClass | 'other';
  /** the finer part of speech (pronoun, determiner…) where the analyser tells it */
  category?: PartOfSpeech;
  /** a proper noun (a name) */
  proper?: boolean;
}

/** A spelling dictionary of one language (Hunspell's). Asynchronous: it may run in another process. */
export interface Speller {
  readonly language: string;
  /** the words asked that the dictionary does not know; undefined when the checker could not answer */
  misspelled(words: string[]): Promise<Set<string> | undefined>;
  /** the dictionary's suggestions for each word asked, best first (costly: ask for few) */
  suggest(words: string[]): Promise<Map<string, string[]> | undefined>;
}

/** One error a grammar checker found: where it is in the sentence (UTF-16 offsets), what to write. */
export interface GrammarError {
  start: number;
  end: number;
  /** the checker's rule, and its kind ("conj", "gn", "typo"…): alternatives of one error share `rule` */
  rule: string;
  kind: string;
  /** best first; may be empty (the checker only flags it) */
  suggestions: string[];
  message: string;
}

/** A grammar checker of one language (Grammalecte's for French). It may run in another process. */
export interface GrammarChecker {
  readonly language: string;
  /** the errors in the sentence, in the checker's order; undefined when it could not answer */
  check(sentence: string): Promise<GrammarError[] | undefined>;
}

/**
 * Morphology of one language: what dictionary forms an inflected word may have ("spielten" →
 * spielen, "comieron" → comer). Asynchronous: an analyser may run in another process.
 */
export interface Morphology {
  readonly language: string;
  /** the readings of each word asked (keyed by the word as given); a word it does not know has none */
  analyse(words: string[]): Promise<Map<string, Reading[]>>;
}

/** All the data the offline provider may use; each part may be missing on a given machine. */
export interface LanguageData {
  lexicon(): Lexicon | undefined;
  /** the morphological analyser of a language, when one is installed */
  morphology?(language: string): Morphology | undefined;
  dictionary(from: string, to: string): BilingualDictionary | undefined;
  /** the spelling dictionary of a language, when one is installed */
  speller?(language: string): Speller | undefined;
  /** the grammar checker of a language, when one is installed */
  grammar?(language: string): GrammarChecker | undefined;
  /** one line per part: WordNet and each language pair */
  status(): DataStatus[];
}
