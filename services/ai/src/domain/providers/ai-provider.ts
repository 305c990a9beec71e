import type { Correction } from '../language/grammar-check';
import type { PartOfSpeech } from '../language/nlp';
import type { CefrLevel, Difficulty } from '../language/word-frequency';

export interface GenerateCardsRequest {
  mode: 'text' | 'theme';
  input: string;
  difficulty: Difficulty;
  count: number;
  includeExamples: boolean;
  includeSynonyms: boolean;
  /** ISO 639-1 code of the words to learn */
  sourceLanguage: string;
  /** ISO 639-1 code translations are wanted in; none → no translation asked */
  targetLanguage: string | undefined;
}

export interface GeneratedCard {
  word: string;
  translation: string | null;
  partOfSpeech: string;
  pronunciation: string | null;
  definition: string | null;
  example: string | null;
  exampleTranslation: string | null;
  synonyms: string[];
  difficulty: Difficulty;
  confidence: number;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface GeneratedCards {
  cards: GeneratedCard[];
  usage: Usage;
  /** card fields this provider cannot supply (left null / empty), e.g. `translation` offline */
  unavailable: string[];
  /** why fields are unavailable (a missing package, a word the dictionary lacks), for people */
  notes?: string[];
}

export interface HighValueWord {
  word: string;
  lemma: string;
  partOfSpeech: string;
  cefrLevel: CefrLevel;
}

/** One word (or number) of an analysed sentence. */
export interface AnalysedToken {
  text: string;
  /** dictionary form; null where no analyser of the language knows the word */
  lemma: string | null;
  /** null where the analyser gives none (German's affix rules: nouns only, by their capital) */
  partOfSpeech: PartOfSpeech | string | null;
}

export interface SentenceAnalysis {
  original: string;
  corrected: string;
  corrections: Correction[];
  /** the words of `corrected` */
  tokens: AnalysedToken[];
  highValueWords: HighValueWord[];
  /** parts this provider could not give for the language (`spelling`, `grammar`, `lemma`…) */
  unavailable: string[];
  /** a part failed for a passing reason (a checker timed out): not worth keeping in the cache */
  transient?: boolean;
}

export interface WordLookup {
  word: string;
  lemma: string;
  partOfSpeech: PartOfSpeech | string;
  pronunciation: string | null;
  /** null for languages without a frequency list */
  cefrLevel: CefrLevel | null;
  frequencyRank: number | null;
  forms: string[];
  definition: string | null;
  translation: string | null;
  examples: string[];
  unavailable: string[];
  notes?: string[];
}

export interface ImageDescription {
  description: string;
  /** `template` (local, no model) or `model` */
  source: 'template' | 'model';
}

export interface RenderedImage {
  contentType: string;
  data: Buffer;
  width: number;
  height: number;
}

/** What an AI back-end does for the service; `local` (offline) and `openai` implement it. */
export interface AiProvider {
  readonly name: 'local' | 'openai';
  /** the translation directions it offers (from, to); undefined: any */
  readonly translationPairs?: ReadonlyArray<readonly [string, string]>;
  generateCards(request: GenerateCardsRequest): Promise<GeneratedCards>;
  analyzeSentence(request: { sentence: string; language: string }): Promise<SentenceAnalysis>;
  lookupWord(request: {
    word: string;
    context?: string | undefined;
    language: string;
    targetLanguage?: string | undefined;
  }): Promise<WordLookup>;
  describeImage(request: { word: string; context?: string | undefined }): Promise<ImageDescription>;
  renderImage(request: { description: string }): Promise<RenderedImage>;
}
